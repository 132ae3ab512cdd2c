import type { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, newIdempotencyKey, type RegisteredUser } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { waitUntil } from '../support/wait';

interface TransferAttempt {
  key: string;
  sender: RegisteredUser;
  receiverUpiId: string;
  amount: string;
  /** The final answer the client saw; undefined while the outcome is unknown (connection lost). */
  status?: number;
  body?: { referenceId: string; amount: number };
}

const USERS = 12;
const OPENING_BALANCE = 1000;
const WORKERS = 8;

describe('crash safety', () => {
  let db: Client;
  const dataDirs: string[] = [];
  const env = () => ({
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    DATA_DIR: dataDirs[dataDirs.push(makeTempDir('payments-crash')) - 1],
    JWT_SECRET: TEST_JWT_SECRET,
    RATE_LIMIT_PER_SECOND: '100000',
  });
  beforeAll(async () => {
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    dataDirs.splice(0).forEach(removeTempDir);
  });

  it('loses, creates and repeats no money when the service is SIGKILLed mid-stream', async () => {
    let service = await ServiceProcess.start(env());
    let api = new ApiClient(service.baseUrl);
    const users = await Promise.all(
      Array.from({ length: USERS }, () => api.registerUser({ balance: OPENING_BALANCE })),
    );
    const attempts: TransferAttempt[] = [];

    let streaming = true;
    const worker = async (seed: number) => {
      for (let i = seed; streaming; i += WORKERS) {
        const sender = users[i % USERS];
        const receiver = users[(i * 7 + 3) % USERS];
        if (receiver === sender) continue;
        const attempt: TransferAttempt = {
          key: newIdempotencyKey(),
          sender,
          receiverUpiId: receiver.upiId,
          amount: `${1 + (i % 97)}.${String(i % 100).padStart(2, '0')}`,
        };
        attempts.push(attempt);
        try {
          const response = await api.transfer(sender, receiver.upiId, attempt.amount, { key: attempt.key });
          attempt.status = response.status;
          attempt.body = response.body;
        } catch {
          return; // the service is gone; this attempt's outcome is unknown
        }
      }
    };
    const stream = Array.from({ length: WORKERS }, (_, seed) => worker(seed));
    // Kill once the stream is well under way, by count rather than by clock (the machine may be loaded).
    const completed = () => attempts.filter((a) => a.status === 201).length;
    await waitUntil(() => completed() > 20, 'more than 20 completed transfers', 60_000);
    expect(await service.stop('SIGKILL')).toBeNull();
    streaming = false;
    await Promise.all(stream);

    const unknown = attempts.filter((a) => a.status === undefined);
    const answered = attempts.filter((a) => a.status !== undefined);
    expect(answered.filter((a) => a.status === 201).length).toBeGreaterThan(20);
    expect(unknown.length).toBeGreaterThan(0); // the kill landed mid-request
    expect(answered.filter((a) => a.status !== 201 && a.status !== 422)).toEqual([]);

    // Start again; a client retries every request whose outcome it never saw, with the same key.
    service = await ServiceProcess.start(env());
    api = new ApiClient(service.baseUrl);
    try {
      for (const attempt of unknown) {
        const response = await api.transfer(attempt.sender, attempt.receiverUpiId, attempt.amount, {
          key: attempt.key,
        });
        attempt.status = response.status;
        attempt.body = response.body;
      }
      expect(attempts.filter((a) => a.status !== 201 && a.status !== 422)).toEqual([]);

      // Every acknowledged transfer is in the database, with its amount, exactly once.
      const succeeded = attempts.filter((a) => a.status === 201);
      const stored = await db.query(
        `SELECT t.reference_id::text, t.amount::text FROM transactions t JOIN users u ON u.id = t.sender_id
         WHERE u.reference_id = ANY($1::uuid[])`,
        [users.map((u) => u.referenceId)],
      );
      const storedAmounts = new Map(stored.rows.map((row) => [row.reference_id, Number(row.amount)]));
      expect(storedAmounts.size).toBe(succeeded.length);
      for (const attempt of succeeded)
        expect(storedAmounts.get(attempt.body!.referenceId)).toBe(Number(attempt.amount));

      expect(await findLedgerViolations(db, { userReferenceIds: users.map((u) => u.referenceId) })).toEqual([]);
      const total = await db.query(
        'SELECT sum(balance)::text AS total FROM users WHERE reference_id = ANY($1::uuid[])',
        [users.map((u) => u.referenceId)],
      );
      expect(total.rows[0].total).toBe(`${USERS * OPENING_BALANCE}.0000`);
    } finally {
      await service.stop('SIGTERM');
    }
  }, 90_000);
});
