import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { findLedgerViolations } from '../../scripts/lib/ledger-invariants';
import { type ApiClient, newIdempotencyKey, type RegisteredUser } from './api-client';

export interface Attempt {
  key: string;
  sender: RegisteredUser;
  receiverUpiId: string;
  amount: string;
  at: number;
  status?: number;
  body?: { referenceId: string; type?: string; detail?: string };
  retryAfter?: string | null;
  contentType?: string | null;
}

/**
 * Clients sending transfers with idempotency keys, without pause, while a test breaks something.
 * A dropped connection leaves its attempt unanswered, to be retried with its key; with
 * `everyRequestAnswered` it fails the load instead (the fault must never cost an answer).
 */
export class TransferLoad {
  readonly attempts: Attempt[] = [];
  private running = true;
  private readonly workers: Promise<void>[];

  constructor(
    private readonly api: ApiClient,
    private readonly users: RegisteredUser[],
    workers = 4,
    private readonly everyRequestAnswered = false,
  ) {
    this.workers = Array.from({ length: workers }, (_, seed) => this.worker(seed, workers));
  }

  private async worker(seed: number, step: number): Promise<void> {
    const count = this.users.length;
    for (let i = seed; this.running; i += step) {
      const sender = this.users[i % count];
      const receiver = this.users[(i * 7 + 3) % count];
      if (receiver === sender) continue;
      const attempt: Attempt = {
        key: newIdempotencyKey(),
        sender,
        receiverUpiId: receiver.upiId,
        amount: `${1 + (i % 37)}.${String(i % 100).padStart(2, '0')}`,
        at: Date.now(),
      };
      this.attempts.push(attempt);
      await this.send(attempt);
      // A client backs off a little on 503 (less than Retry-After, to see the recovery promptly).
      if (attempt.status === 503) await sleep(100);
    }
  }

  async send(attempt: Attempt): Promise<void> {
    const answer = this.api.transfer(attempt.sender, attempt.receiverUpiId, attempt.amount, { key: attempt.key });
    const response = this.everyRequestAnswered ? await answer : await answer.catch(() => undefined);
    if (!response) return; // a dropped connection: no answer, so nothing acknowledged
    attempt.status = response.status;
    attempt.body = response.body;
    attempt.retryAfter = response.headers.get('retry-after');
    attempt.contentType = response.headers.get('content-type');
  }

  /** Waits until a 503 answers a transfer sent after `since`. */
  async firstUnavailableAfter(since: number, timeoutMs: number): Promise<number> {
    return this.firstAfter(since, timeoutMs, 503);
  }

  /** Resolves with the time of the first 201 to a transfer sent after `since`. */
  async firstSuccessAfter(since: number, timeoutMs: number): Promise<number> {
    return this.firstAfter(since, timeoutMs, 201);
  }

  private async firstAfter(since: number, timeoutMs: number, status: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.attempts.find((a) => a.at >= since && a.status === status);
      if (found) return found.at;
      await sleep(50);
    }
    throw new Error(`no transfer was answered ${status} within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }
}

/** During a fault: only 201, 503 problems with Retry-After, or a business 422; never a 500. */
export function expectNoServerErrors(attempts: Attempt[]): void {
  const unexpected = attempts.filter(
    (a) =>
      a.status !== undefined &&
      !(a.status === 201 || a.status === 503 || (a.status === 422 && /insufficient-balance$/.test(a.body!.type!))),
  );
  expect(unexpected.map((a) => ({ status: a.status, body: a.body }))).toEqual([]);
  for (const attempt of attempts.filter((a) => a.status === 503)) {
    expect(attempt.body?.type).toMatch(/\/service-unavailable$/);
    expect(attempt.contentType).toMatch(/^application\/problem\+json/);
    expect(Number(attempt.retryAfter)).toBeGreaterThan(0);
  }
}

/**
 * Retries every unanswered or 503 transfer with its key, then: each acknowledged transfer exists
 * exactly once with its amount, the ledger holds, and the users' money adds up.
 */
export async function expectMoneyIntact(
  load: TransferLoad,
  users: RegisteredUser[],
  openingBalance: number,
  url: string,
): Promise<void> {
  for (const attempt of load.attempts.filter((a) => a.status === undefined || a.status === 503)) {
    await load.send(attempt);
  }
  expect(load.attempts.filter((a) => a.status !== 201 && a.status !== 422)).toEqual([]);
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const succeeded = load.attempts.filter((a) => a.status === 201);
    const stored = await db.query(
      `SELECT t.reference_id::text, t.amount::text FROM transactions t JOIN users u ON u.id = t.sender_id
       WHERE u.reference_id = ANY($1::uuid[])`,
      [users.map((u) => u.referenceId)],
    );
    const storedAmounts = new Map(stored.rows.map((row) => [row.reference_id, Number(row.amount)]));
    expect(storedAmounts.size).toBe(succeeded.length);
    for (const attempt of succeeded) expect(storedAmounts.get(attempt.body!.referenceId)).toBe(Number(attempt.amount));
    expect(await findLedgerViolations(db, { userReferenceIds: users.map((u) => u.referenceId) })).toEqual([]);
    const total = await db.query('SELECT sum(balance)::text AS total FROM users WHERE reference_id = ANY($1::uuid[])', [
      users.map((u) => u.referenceId),
    ]);
    expect(total.rows[0].total).toBe(`${users.length * openingBalance}.0000`);
  } finally {
    await db.end();
  }
}
