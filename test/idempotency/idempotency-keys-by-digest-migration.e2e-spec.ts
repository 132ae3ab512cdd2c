import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { IdempotencyKeysByDigest1764037000000 } from '../../migrations/1764037000000-idempotency-keys-by-digest';
import { migrateAllAndVerify, migrationTimestamp, withClient, withDatabaseBefore } from '../support/db';

const MIGRATION = migrationTimestamp(IdempotencyKeysByDigest1764037000000);

/** The migrations up to `upTo`, over a data source the caller uses (then destroyed). */
async function withMigrations(url: string, upTo: number, use: (dataSource: DataSource) => Promise<unknown>) {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS.filter((m) => migrationTimestamp(m) <= upTo),
    migrationsTableName: 'schema_migrations',
    poolSize: 2,
  });
  await dataSource.initialize();
  try {
    await use(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/** idempotency_keys as the schema check reads it, and the indexes of its partitions (names without the day). */
async function shape(db: Client) {
  const columns = await db.query<{ line: string }>(
    `SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
            || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') || ' ' || a.attidentity::text AS line
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = 'idempotency_keys'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attname`,
  );
  const indexes = await db.query<{ line: string }>(
    `SELECT DISTINCT regexp_replace(pg_get_indexdef(x.indexrelid), 'idempotency_keys_p\\d{8}', 'idempotency_keys_pDAY', 'g')
              AS line
     FROM pg_inherits i JOIN pg_index x ON x.indrelid = i.inhrelid
     WHERE i.inhparent = 'idempotency_keys'::regclass ORDER BY 1`,
  );
  return { columns: columns.rows.map((row) => row.line), indexes: indexes.rows.map((row) => row.line) };
}

const OWNER = 'old.alice@bank';
const HASH = 'ab'.repeat(32);

describe('IdempotencyKeysByDigest: records keyed by a digest of owner and key', () => {
  it('converts each day in place: same answers, the digest index, no id or updated_at; a twin is refused', async () => {
    await withDatabaseBefore(IdempotencyKeysByDigest1764037000000, async (url) => {
      const [done, handWritten, requestId] = [randomUUID(), randomUUID(), randomUUID()];
      const outcome = {
        code: 'insufficient-balance',
        data: { available: '1.0000', required: '5.0000' },
        at: '2026-11-28T10:00:00.000Z',
        requestId,
        instance: '/api/v1/transactions',
      };
      await withClient(url, async (db) => {
        await db.query(
          `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome)
           VALUES ($1, $2, decode($3, 'hex'), 'FAILED', 422, $4)`,
          [OWNER, done, HASH, outcome],
        );
        await db.query(
          `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
           VALUES ($1, $2, 'by-hand', 'PROCESSING')`,
          [OWNER, handWritten],
        );
        expect((await shape(db)).indexes).toEqual([
          'CREATE UNIQUE INDEX idempotency_keys_pDAY_owner_key ON public.idempotency_keys_pDAY ' +
            'USING btree (owner_upi_id, idempotency_key)',
        ]);
      });

      // The schema check passes, and the function files are applied.
      expect(await migrateAllAndVerify(url)).toContain('IdempotencyKeysByDigest1764037000000');

      await withClient(url, async (db) => {
        const { columns, indexes } = await shape(db);
        expect(columns.filter((line) => /^(id|updated_at|request_id) /.test(line))).toEqual(['request_id uuid ']);
        expect(indexes).toEqual([
          'CREATE UNIQUE INDEX idempotency_keys_pDAY_key_digest ON public.idempotency_keys_pDAY ' +
            'USING btree (idempotency_key_digest((owner_upi_id)::text, (idempotency_key)::text))',
        ]);
        // A record written before answers as it did: its request id still in its outcome.
        const claim = await db.query(`SELECT idempotency_claim($1, $2, $3) AS replay`, [OWNER, done, HASH]);
        expect(claim.rows[0].replay).toEqual(outcome);
        const reused = await db.query(`SELECT idempotency_claim($1, $2, $3) AS replay`, [OWNER, done, 'cd'.repeat(32)]);
        expect(reused.rows[0].replay).toEqual({ code: 'key-reused' });
        // A record without an outcome is still in flight (409), never taken over.
        await expect(
          db.query(`SELECT idempotency_claim($1, $2, $3)`, [OWNER, handWritten, HASH]),
        ).rejects.toMatchObject({ code: '55P03' });
        // The converted day's index refuses a second record of one owner and key, not another owner's.
        await expect(
          db.query(
            `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status) VALUES ($1, $2, '', 'FAILED')`,
            [OWNER, done],
          ),
        ).rejects.toMatchObject({ code: '23505', constraint: expect.stringMatching(/_key_digest$/) });
        await db.query(
          `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status) VALUES ($1, $2, '', 'FAILED')`,
          ['old.bob@bank', done],
        );
      });
    });
  }, 60_000);

  it('goes down and up again: the (owner, key) indexes, id and updated_at back, request ids in the outcomes', async () => {
    await withDatabaseBefore(IdempotencyKeysByDigest1764037000000, async (url) => {
      const before = await withClient(url, shape);
      await withMigrations(url, MIGRATION, (dataSource) => dataSource.runMigrations({ transaction: 'each' }));
      const [key, requestId] = [randomUUID(), randomUUID()];
      await withClient(url, (db) =>
        db.query(
          `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status, response_status, outcome,
                                         request_id)
           VALUES ($1, $2, decode($3, 'hex'), 'FAILED', 404, '{"code": "user-not-found", "instance": "/x"}', $4)`,
          [OWNER, key, HASH, requestId],
        ),
      );

      await withMigrations(url, MIGRATION, (dataSource) => dataSource.undoLastMigration({ transaction: 'each' }));
      await withClient(url, async (db) => {
        expect(await shape(db)).toEqual(before);
        const { rows } = await db.query(
          `SELECT id IS NOT NULL AS has_id, updated_at IS NOT NULL AS has_updated_at, outcome
           FROM idempotency_keys WHERE owner_upi_id = $1 AND idempotency_key = $2`,
          [OWNER, key],
        );
        expect(rows).toEqual([
          { has_id: true, has_updated_at: true, outcome: { code: 'user-not-found', instance: '/x', requestId } },
        ]);
        // The identity goes on.
        const next = await db.query(
          `INSERT INTO idempotency_keys (owner_upi_id, idempotency_key, request_hash, status)
           VALUES ($1, $2, '', 'FAILED') RETURNING id`,
          [OWNER, randomUUID()],
        );
        expect(next.rows[0].id).toBeDefined();
      });

      await withMigrations(url, MIGRATION, (dataSource) => dataSource.runMigrations({ transaction: 'each' }));
      await withClient(url, async (db) => {
        expect((await shape(db)).indexes).toEqual([
          'CREATE UNIQUE INDEX idempotency_keys_pDAY_key_digest ON public.idempotency_keys_pDAY ' +
            'USING btree (idempotency_key_digest((owner_upi_id)::text, (idempotency_key)::text))',
        ]);
      });
    });
  }, 60_000);
});
