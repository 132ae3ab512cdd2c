import { Client } from 'pg';
import { createDataSource, migrateAndVerify, SchemaMismatchError } from '../../src/database/data-source';
import { testUrl, withClient, withScratchDatabase } from '../support/db';
import { randomPhone, uniqueUpiId } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { withTempDir } from '../support/temp-dir';
import { startTestApp } from '../support/test-app';

describe('database rules', () => {
  let db: Client;
  let userId: string;
  let upiId: string;

  beforeAll(async () => {
    db = new Client({ connectionString: testUrl() });
    await db.connect();
    upiId = uniqueUpiId('db');
    const user = await db.query(
      `INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
       VALUES (gen_random_uuid(), 'DB Rules', $1, $2, 10) RETURNING id`,
      [upiId, randomPhone()],
    );
    userId = user.rows[0].id;
    await db.query(
      `INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after)
       VALUES ($1, gen_random_uuid(), 'CREDIT', 10, 0, 10)`,
      [userId],
    );
  });
  afterAll(() => db.end());

  it('refuses to update a ledger entry', async () => {
    await expect(db.query('UPDATE ledger_entries SET amount = 1 WHERE user_id = $1', [userId])).rejects.toThrow(
      /append-only/i,
    );
  });

  it('refuses to delete a ledger entry', async () => {
    await expect(db.query('DELETE FROM ledger_entries WHERE user_id = $1', [userId])).rejects.toThrow(/append-only/i);
  });

  it('refuses to truncate the ledger', async () => {
    // On a scratch database: if the rule were missing, the shared test ledger must not be the one lost.
    await withScratchDatabase((url) =>
      withClient(url, async (c) => {
        await expect(c.query('TRUNCATE ledger_entries CASCADE')).rejects.toThrow(/append-only/i);
      }),
    );
  });

  describe('users and transactions are kept (their foreign keys were dropped for speed)', () => {
    /** Runs `attempt` against a transaction of `userId` made for it; nothing outlives the test. */
    async function withTransaction(attempt: (transactionId: string) => Promise<void>): Promise<void> {
      await db.query('BEGIN');
      try {
        const transaction = await db.query(
          `INSERT INTO transactions (reference_id, sender_id, receiver_id, sender_upi_id, receiver_upi_id, amount)
           VALUES (gen_random_uuid(), $1, 0, 'a', 'b', 1) RETURNING id`,
          [userId],
        );
        await attempt(transaction.rows[0].id);
      } finally {
        await db.query('ROLLBACK');
      }
    }

    it.each([
      ['delete a user', 'DELETE FROM users WHERE id = $1', 'user'],
      ['change a user id', 'UPDATE users SET id = DEFAULT WHERE id = $1', 'user'],
      ['delete a transaction', 'DELETE FROM transactions WHERE id = $1', 'transaction'],
      ['change a transaction id', 'UPDATE transactions SET id = DEFAULT WHERE id = $1', 'transaction'],
    ])('refuses to %s', async (_what, sql, target) => {
      await withTransaction(async (transactionId) => {
        await db.query('SAVEPOINT attempt');
        const id = target === 'user' ? userId : transactionId;
        await expect(db.query(sql, [id])).rejects.toMatchObject({ code: '23001' });
        await db.query('ROLLBACK TO SAVEPOINT attempt');
        expect((await db.query('SELECT 1 FROM users WHERE id = $1', [userId])).rowCount).toBe(1);
        expect((await db.query('SELECT 1 FROM transactions WHERE id = $1', [transactionId])).rowCount).toBe(1);
      });
    });

    it.each(['users', 'transactions'])('refuses to truncate %s', async (table) => {
      // On a scratch database: if the rule were missing, the shared test data must not be the one lost.
      await withScratchDatabase((url) =>
        withClient(url, async (c) => {
          await expect(c.query(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(/TRUNCATE is not allowed on/);
        }),
      );
    });

    it('refuses a ledger entry, written without its hash, for an account or a transaction that does not exist', async () => {
      await expect(
        db.query(
          `INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after)
           VALUES (999999999, gen_random_uuid(), 'CREDIT', 1, 0, 1)`,
        ),
      ).rejects.toMatchObject({ code: '23503' });
      await expect(
        db.query(
          `INSERT INTO ledger_entries (user_id, transaction_id, transaction_reference_id, entry_type, amount, balance_before, balance_after)
           VALUES ($1, 999999999, gen_random_uuid(), 'CREDIT', 1, 10, 11)`,
          [userId],
        ),
      ).rejects.toMatchObject({ code: '23503' });
    });
  });

  it('refuses a negative balance', async () => {
    await expect(db.query('UPDATE users SET balance = -0.0001 WHERE id = $1', [userId])).rejects.toThrow(
      /ck_users_balance_non_negative/,
    );
  });

  it('refuses a second user whose UPI ID differs only in case', async () => {
    await expect(
      db.query(
        `INSERT INTO users (reference_id, name, upi_id, phone_number, balance) VALUES (gen_random_uuid(), 'Twin', $1, $2, 0)`,
        [upiId.toUpperCase(), randomPhone()],
      ),
    ).rejects.toThrow(/uq_users_upi_id_lower/);
  });

  it('stores money as numeric(19,4)', async () => {
    const columns = await db.query(
      `SELECT table_name, column_name, numeric_precision, numeric_scale FROM information_schema.columns
       WHERE data_type = 'numeric' AND table_schema = 'public' ORDER BY table_name, column_name`,
    );
    expect(columns.rows.length).toBeGreaterThanOrEqual(5);
    for (const column of columns.rows) expect([column.numeric_precision, column.numeric_scale]).toEqual([19, 4]);
  });
});

describe('schema verification at start', () => {
  it('refuses to serve, naming the difference, when the schema does not match what the migrations build', async () => {
    await withScratchDatabase(async (url) => {
      await withClient(url, (c) => c.query('ALTER TABLE users ALTER COLUMN name TYPE varchar(50)'));
      const dataSource = createDataSource(url, 2);
      await dataSource.initialize();
      try {
        const failure = await migrateAndVerify(dataSource).catch((error: Error) => error);
        expect(failure).toBeInstanceOf(SchemaMismatchError);
        expect((failure as Error).message).toMatch(/refusing to serve[\s\S]*users/);
        expect((failure as Error).message).toContain('+ column users.name character varying(50) not null');
        expect((failure as Error).message).toContain('- column users.name character varying(100) not null');
      } finally {
        await dataSource.destroy();
      }
      await expect(startTestApp({ DATABASE_URL: url })).rejects.toBeInstanceOf(SchemaMismatchError);
    });
  });

  it('refuses to serve when an index the migrations make is missing, on any table', async () => {
    await withScratchDatabase(async (url) => {
      await withClient(url, (c) => c.query('DROP INDEX ix_role_grant_events_user'));
      await expect(startTestApp({ DATABASE_URL: url })).rejects.toThrow(
        /refusing to serve[\s\S]*- index role_grant_events\.ix_role_grant_events_user CREATE INDEX/,
      );
    });
  });

  it('answers a sanitized 500 when the database fails unexpectedly', async () => {
    await withScratchDatabase(async (url) => {
      const app = await startTestApp({ DATABASE_URL: url });
      try {
        const user = await app.api.registerUser();
        await withClient(url, (c) => c.query('ALTER TABLE users RENAME COLUMN phone_number TO phone_gone'));
        const response = await app.api.get(`/api/v1/users/${user.referenceId}`, user.token);
        expectProblem(response, 500, 'internal-error');
        expect(response.text).not.toMatch(/phone_number|column|QueryFailed|node_modules/);
      } finally {
        await app.close();
      }
    });
  });
});

describe('embedded PostgreSQL', () => {
  it('keeps registered users across a restart of the service and its database', async () => {
    await withTempDir(
      'payments-restart',
      async (dataDir) => {
        const env = { DATABASE_URL: '', DATA_DIR: dataDir };
        const first = await startTestApp(env);
        let user;
        try {
          user = await first.api.registerUser({ balance: '12.3456' });
        } finally {
          await first.close();
        }
        const second = await startTestApp(env);
        try {
          const token = await second.api.login(user.upiId);
          const profile = await second.api.get(`/api/v1/users/${user.referenceId}`, token);
          expect(profile.status).toBe(200);
          expect(profile.text).toContain('"balance":12.3456');
        } finally {
          await second.close();
        }
      },
      { forPostgres: true },
    );
  }, 90_000);
});
