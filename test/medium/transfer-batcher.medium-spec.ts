import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, Pool } from 'pg';
import { Histogram, Registry } from 'prom-client';
import { ApiError } from '../../src/common/errors/api-error';
import { ErrorCode } from '../../src/common/errors/error-code';
import { type AppConfig, loadConfig } from '../../src/config/app-config';
import { requestHash } from '../../src/idempotency/idempotency-key';
import { MoneyPathLoad } from '../../src/movements/money-path-load';
import { TRANSFER_BATCH_SIZE, TransferBatcher } from '../../src/transactions/transfer-batcher';
import { movementArguments } from '../../src/movements/movement-call';
import { TRANSFER_FUNDS, type TransferParameters } from '../../src/transactions/transfer-parameters';
import { connectTestDatabase } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { type MediumUser, newUser } from './support/factories';
import { waitForBackendBlockedBy } from './support/locks';

/**
 * TransferBatcher over a real pool: one batch slot (unless a test says two), so the transfers
 * handed to it while its first call is in flight form the next batch, deterministically (no timer
 * is involved anywhere).
 */
describe('TransferBatcher', () => {
  let db: Client;
  let pool: Pool;
  let batcher: TransferBatcher;
  let twoSlots: TransferBatcher;
  let config: AppConfig;
  let sizes: Histogram;
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-batcher-'));

  beforeAll(async () => {
    db = await connectTestDatabase();
    pool = new Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 4 });
    config = loadConfig({
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      TRANSFER_BATCHES_IN_FLIGHT: '1',
      TRANSFER_BATCH_MAX_SIZE: '64',
    });
    sizes = new Histogram({
      name: TRANSFER_BATCH_SIZE,
      help: 'test',
      buckets: [1, 2, 3, 4, 8],
      registers: [new Registry()],
    });
    batcher = new TransferBatcher(pool, config, sizes, new MoneyPathLoad());
    twoSlots = new TransferBatcher(pool, { ...config, transferBatchesInFlight: 2 }, sizes, new MoneyPathLoad());
  });
  afterAll(async () => {
    await pool.end();
    await db.end();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => sizes.reset());

  const transfer = (
    sender: MediumUser,
    receiver: MediumUser,
    amount: string,
    key = randomUUID(),
  ): TransferParameters => ({
    owner: sender.upiId.toLowerCase(),
    idempotencyKey: key,
    requestHash: requestHash({ senderUpiId: sender.upiId, receiverUpiId: receiver.upiId, amount, note: null }),
    senderUpiId: sender.upiId,
    receiverUpiId: receiver.upiId,
    amount,
    note: null,
    referenceId: randomUUID(),
    eventId: randomUUID(),
    context: { requestId: 'medium', instance: '/medium' },
  });
  /** Hands the batcher one transfer, then the others once that one's call is in flight. */
  async function sendWhileOneIsInFlight(first: TransferParameters, ...rest: TransferParameters[]) {
    const firstResult = batcher.transfer(first);
    // The batcher dispatches after the event loop's current phase; this waits that long.
    await new Promise((resolve) => setImmediate(resolve));
    return [firstResult, ...rest.map((parameters) => batcher.transfer(parameters))];
  }
  const batchSizes = async () => {
    const values = (await sizes.get()).values;
    const of = (name: string) => values.find((value) => value.metricName === `${TRANSFER_BATCH_SIZE}_${name}`)?.value;
    return { batches: of('count'), transfers: of('sum') };
  };
  const balance = async (user: MediumUser) =>
    (await db.query<{ b: string }>('SELECT balance::text AS b FROM users WHERE id = $1', [user.id])).rows[0].b;

  it('sends transfers that arrive together as one batch, and those arriving meanwhile as the next', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const together = await Promise.all([1, 2, 3].map(() => batcher.transfer(transfer(alice, bob, '1.0000'))));
    expect(await batchSizes()).toEqual({ batches: 1, transfers: 3 });
    sizes.reset();
    const transfers = [1, 2, 3].map(() => transfer(alice, bob, '1.0000'));
    const results = await Promise.all(await sendWhileOneIsInFlight(transfers[0], ...transfers.slice(1)));
    expect([...together, ...results].map((result) => result.outcome.code)).toEqual(Array(6).fill('completed'));
    expect(await batchSizes()).toEqual({ batches: 2, transfers: 3 });
    expect([await balance(alice), await balance(bob)]).toEqual(['94.0000', '6.0000']);
  });

  it('sends a batch in arrival order: of a sender with 100 sending 60 then 60, the first one wins', async () => {
    const [alice, bob, carol] = [await newUser(db, '100'), await newUser(db), await newUser(db)];
    const [first, second] = [transfer(alice, bob, '60.0000'), transfer(alice, carol, '60.0000')];
    const results = await Promise.all([batcher.transfer(first), batcher.transfer(second)]);
    expect(await batchSizes()).toEqual({ batches: 1, transfers: 2 });
    expect(results.map((result) => result.outcome.code)).toEqual(['completed', 'insufficient-balance']);
    expect(results[0].outcome.data).toMatchObject({ referenceId: first.referenceId, receiverUpiId: bob.upiId });
    expect(results[1].outcome.data).toEqual({ available: '40.0000', required: '60.0000' });
    const written = await db.query('SELECT reference_id FROM transactions WHERE sender_id = $1', [alice.id]);
    expect(written.rows).toEqual([{ reference_id: first.referenceId }]);
    expect([await balance(alice), await balance(bob), await balance(carol)]).toEqual(['40.0000', '60.0000', '0.0000']);
  });

  it('never sends more than TRANSFER_BATCH_MAX_SIZE transfers in one call', async () => {
    const capped = new TransferBatcher(pool, { ...config, transferBatchMaxSize: 2 }, sizes, new MoneyPathLoad());
    const receiver = await newUser(db);
    const senders: MediumUser[] = [];
    for (let i = 0; i < 5; i++) senders.push(await newUser(db, '10'));
    const results = await Promise.all(senders.map((sender) => capped.transfer(transfer(sender, receiver, '1.0000'))));
    expect(results.map((result) => result.outcome.code)).toEqual(Array(5).fill('completed'));
    // 2 + 2 + 1: every call within the cap.
    expect(await batchSizes()).toEqual({ batches: 3, transfers: 5 });
    const upToTwo = (await sizes.get()).values.find(
      (value) => value.metricName === `${TRANSFER_BATCH_SIZE}_bucket` && value.labels.le === 2,
    );
    expect(upToTwo?.value).toBe(3);
    expect(await balance(receiver)).toBe('5.0000');
  });

  // A deadlock forced with a second session: the transfer holds a and waits for z, held by the
  // holder, which then asks for a. The transfer waited first, so its deadlock check runs first and
  // it is the victim (the holder's check is put off); its call is run again and goes through.
  it('runs a transfer rolled back as a deadlock victim (40P01) again: it completes, no error reaches the caller', async () => {
    const a = await newUser(db, '100', 'a');
    const z = await newUser(db, '100', 'z');
    const holder = await connectTestDatabase();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    let result: Promise<{ outcome: { code: string } }> | undefined;
    try {
      await holder.query(`SET deadlock_timeout = '10s'`);
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [z.id]);
      result = batcher.transfer(transfer(a, z, '5.0000'));
      await waitForBackendBlockedBy(db, holderPid, 10_000);
      // Granted only once the transfer's transaction, which held a, was rolled back.
      await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [a.id]);
      expect(await balance(a)).toBe('100.0000');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await result).outcome.code).toBe('completed');
    expect([await balance(a), await balance(z)]).toEqual(['95.0000', '105.0000']);
  });

  // Two instances on the same accounts: this one batching, the other sending each transfer alone
  // through transfer_funds on its own pool, both in every direction at once. The other's calls
  // are not retried here, so a deadlock between the two paths would surface as a 40P01.
  it('beside an instance running single transfers on the same accounts, every transfer of both completes', async () => {
    const users: MediumUser[] = [];
    for (let i = 0; i < 4; i++) users.push(await newUser(db, '1000', 'abcd'[i]));
    const other = new Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 4 });
    // Every ordered pair of the four, four times over: each pair moves both ways on both paths.
    const moves = [1, 2, 3, 4].flatMap(() =>
      users.flatMap((from) => users.filter((to) => to !== from).map((to) => [from, to] as const)),
    );
    try {
      const alone = (from: MediumUser, to: MediumUser) => {
        const parameters = transfer(from, to, '1.0000');
        return other
          .query<{ result: { code: string } }>(
            'SELECT result FROM transfer_funds($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
            movementArguments(TRANSFER_FUNDS, parameters),
          )
          .then(({ rows }) => rows[0].result.code);
      };
      const batched = (from: MediumUser, to: MediumUser) =>
        twoSlots.transfer(transfer(from, to, '1.0000')).then((result) => result.outcome.code);
      const codes = await Promise.all(moves.flatMap(([from, to]) => [batched(from, to), alone(to, from)]));
      expect(codes).toEqual(Array(moves.length * 2).fill('completed'));
    } finally {
      await other.end();
    }
    const { batches, transfers } = await batchSizes();
    expect(transfers).toBe(moves.length);
    expect(batches).toBeLessThan(moves.length);
    const total = await db.query<{ sum: string }>('SELECT sum(balance)::text AS sum FROM users WHERE id = ANY($1)', [
      users.map((user) => user.id),
    ]);
    expect(total.rows[0].sum).toBe('4000.0000');
  });

  it('runs a batch the database refused one transfer at a time: the poisoned item fails alone', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    // One more unit and this balance leaves numeric(19,4): the whole batch's statement fails with 22003.
    const brimful = await newUser(db, '999999999999999.0000');
    const [first, good, poisoned, alsoGood] = await Promise.allSettled(
      await sendWhileOneIsInFlight(
        transfer(alice, bob, '1.0000'),
        transfer(alice, bob, '2.0000'),
        transfer(alice, brimful, '1.0000'),
        transfer(alice, bob, '3.0000'),
      ),
    );
    expect(await batchSizes()).toEqual({ batches: 2, transfers: 4 });
    for (const result of [first, good, alsoGood]) {
      expect(result).toMatchObject({ status: 'fulfilled', value: { outcome: { code: 'completed' }, replayed: false } });
    }
    expect(poisoned.status).toBe('rejected');
    expect(((poisoned as PromiseRejectedResult).reason as ApiError).code).toBe(ErrorCode.ValidationFailed);
    expect([await balance(alice), await balance(bob), await balance(brimful)]).toEqual([
      '94.0000',
      '6.0000',
      '999999999999999.0000',
    ]);
  });

  it('runs a deferred item alone, where it waits for its key like a twin, while its neighbours commit', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const key = randomUUID();
    const holder = await connectTestDatabase();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))`, [
      alice.upiId.toLowerCase(),
      key,
    ]);
    const settled = await sendWhileOneIsInFlight(
      transfer(alice, bob, '1.0000'),
      transfer(alice, bob, '10.0000', key),
      transfer(alice, bob, '2.0000'),
    );
    let neighbourAnswered = false;
    void settled[2].then(() => (neighbourAnswered = true));
    try {
      // The deferred item, alone, now waits for the key (2 s at most); its neighbour did not wait.
      await waitForBackendBlockedBy(db, holderPid, 10_000);
      expect(neighbourAnswered).toBe(true);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const results = await Promise.all(settled);
    expect(results.map((result) => result.outcome.code)).toEqual(['completed', 'completed', 'completed']);
    expect(await batchSizes()).toEqual({ batches: 2, transfers: 3 });
    expect(await balance(alice)).toBe('87.0000');
  });
  it('lends the only slot to the next batch while a call waits for a row held outside the batcher', async () => {
    const [alice, bob, carol, dave] = [
      await newUser(db, '100'),
      await newUser(db),
      await newUser(db, '100'),
      await newUser(db),
    ];
    const holder = await connectTestDatabase();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [bob.id]);
    let blocked: Promise<unknown> | undefined;
    try {
      blocked = batcher.transfer(transfer(alice, bob, '1.0000'));
      await waitForBackendBlockedBy(db, holderPid, 10_000);
      // The slot's call is still waiting for bob's row: without the loan this one would queue behind it.
      const passing = await batcher.transfer(transfer(carol, dave, '5.0000'));
      expect(passing.outcome.code).toBe('completed');
      expect(await balance(dave)).toBe('5.0000');
      expect(await balance(bob)).toBe('0.0000');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(((await blocked) as { outcome: { code: string } }).outcome.code).toBe('completed');
    expect([await balance(alice), await balance(bob)]).toEqual(['99.0000', '1.0000']);
  });

  it('with two slots, keeps a transfer out of the next batch while an account of it is in flight', async () => {
    const [alice, bob, carol, dave, erin] = [
      await newUser(db, '100'),
      await newUser(db),
      await newUser(db, '100'),
      await newUser(db, '100'),
      await newUser(db),
    ];
    // alice's row is held, so the first call stays in flight, holding bob for the batcher, until released.
    const holder = await connectTestDatabase();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [alice.id]);
    let results: Promise<{ outcome: { code: string } }>[];
    try {
      const first = twoSlots.transfer(transfer(alice, bob, '1.0000'));
      await new Promise((resolve) => setImmediate(resolve));
      // bob is in flight: carol's transfer to him waits for that call; dave's goes past it, alone.
      results = [
        first,
        twoSlots.transfer(transfer(carol, bob, '2.0000')),
        twoSlots.transfer(transfer(dave, erin, '3.0000')),
      ];
      expect((await results[2]).outcome.code).toBe('completed');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect((await Promise.all(results)).map((result) => result.outcome.code)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(await batchSizes()).toEqual({ batches: 3, transfers: 3 });
    expect([await balance(bob), await balance(erin)]).toEqual(['3.0000', '3.0000']);
  });

  it('marks the money path busy for a batch of several transfers, never for one alone', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const load = new MoneyPathLoad();
    const watched = new TransferBatcher(pool, config, sizes, load);
    expect((await watched.transfer(transfer(alice, bob, '1.0000'))).outcome.code).toBe('completed');
    expect(load.busy).toBe(false);
    const together = await Promise.all([1, 2].map(() => watched.transfer(transfer(alice, bob, '1.0000'))));
    expect(together.map((result) => result.outcome.code)).toEqual(['completed', 'completed']);
    expect(load.busy).toBe(true);
  });

  it('calls the database outside the context of the request that handed it a transfer, alone or in a batch', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const requestContext = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    // A real pool that notes, at each call, the request context it was called in.
    const recording = new Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 2 });
    const query = recording.query.bind(recording) as (...args: unknown[]) => unknown;
    recording.query = ((...args: unknown[]) => {
      seen.push(requestContext.getStore());
      return query(...args);
    }) as Pool['query'];
    try {
      const watched = new TransferBatcher(recording, config, sizes, new MoneyPathLoad());
      const asRequest = (id: string) => requestContext.run(id, () => watched.transfer(transfer(alice, bob, '1.0000')));
      expect((await asRequest('request-1')).outcome.code).toBe('completed');
      const together = await Promise.all([asRequest('request-2'), asRequest('request-3')]);
      expect(together.map((result) => result.outcome.code)).toEqual(['completed', 'completed']);
      expect(await batchSizes()).toEqual({ batches: 2, transfers: 3 });
      expect(seen).toEqual([undefined, undefined]);
    } finally {
      await recording.end();
    }
  });
});
