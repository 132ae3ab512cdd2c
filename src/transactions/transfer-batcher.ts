import { Inject, Injectable } from '@nestjs/common';
import { InjectMetric, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { Pool } from 'pg';
import type { Histogram } from 'prom-client';
import { isDatabaseUnavailable } from '../common/errors/postgres-errors';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';
import type { MovementResult } from '../idempotency/stored-outcome';
import { outsideRequestContext } from '../common/outside-request-context';
import { MoneyPathLoad } from '../movements/money-path-load';
import { callMovement, callMovementBatch, movementCallStatement } from '../movements/movement-call';
import type { TransferResult } from './transfer-outcome';
import { AccountsInFlight, takeBatch } from './batch-formation';
import { TRANSFER_FUNDS, type TransferParameters, transferBatchArguments } from './transfer-parameters';

export const TRANSFER_BATCH_SIZE = 'payments_transfer_batch_size';

export const transferBatchMetricProviders = [
  makeHistogramProvider({
    name: TRANSFER_BATCH_SIZE,
    help: 'Transfers per database call (group commit): 1 when the service is not busy',
    buckets: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1000],
  }),
];

/** transfer_funds_batch takes transfer_funds's parameters, one array each. */
const BATCH_CALL = movementCallStatement('transfer_funds_batch', Object.keys(TRANSFER_FUNDS.argumentTypes).length);
/**
 * A call still running after this long (a normal batch takes a few milliseconds) is waiting for
 * something held outside the batcher, a row or a key: its slot is lent to the next batch, so one
 * blocked call never stops the instance's other transfers.
 */
const STALLED_AFTER_MS = 50;

interface Pending {
  parameters: TransferParameters;
  /** The accounts its call locks, as the database orders them: lower-cased UPI IDs. */
  accounts: string[];
  settle: (result: Promise<TransferResult>) => void;
}

/**
 * Group commit (smart batching, no timer): transfers go to the database as soon as the event loop
 * has read the requests in hand and a batch slot is free; while every slot's call is in flight,
 * arrivals queue, and the next free slot takes all of them (up to the cap) as one call to
 * transfer_funds_batch, one transaction. Under light load every batch is one transfer, sent
 * through transfer_funds, and waits for nothing.
 * A batch the database refuses as a whole is run again one transfer at a time, so one poisoned
 * item fails alone; an item the batch defers (its key is in flight elsewhere) runs alone too.
 */
@Injectable()
export class TransferBatcher {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  /** Calls in flight for longer than STALLED_AFTER_MS: each has lent its slot to the next batch. */
  private stalled = 0;
  private dispatchPending = false;
  private readonly accountsInFlight = new AccountsInFlight();
  /**
   * A batch serves many requests and belongs to none: bound here, at construction, the dispatch
   * (and so each call and its watchdog) never runs in the context of the request whose arrival
   * scheduled it, whose id its log lines would otherwise carry.
   */
  private readonly dispatchSoon = outsideRequestContext(() => {
    this.dispatchPending = false;
    this.dispatch();
  });

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly config: AppConfig,
    @InjectMetric(TRANSFER_BATCH_SIZE) private readonly batchSize: Histogram,
    private readonly load: MoneyPathLoad,
  ) {}

  transfer(parameters: TransferParameters): Promise<TransferResult> {
    return new Promise((resolve) => {
      const accounts = [parameters.senderUpiId.toLowerCase(), parameters.receiverUpiId.toLowerCase()];
      this.queue.push({ parameters, accounts, settle: resolve });
      // Not a timer: the dispatch runs once the event loop has finished the requests it is reading
      // now, so those that arrived together leave together; on a quiet service that is at once.
      if (!this.dispatchPending) {
        this.dispatchPending = true;
        setImmediate(this.dispatchSoon);
      }
    });
  }

  private dispatch(): void {
    while (this.inFlight - this.stalled < this.config.transferBatchesInFlight && this.queue.length > 0) {
      const batch = takeBatch(this.queue, this.accountsInFlight, this.config.transferBatchMaxSize);
      // Everything queued touches an account in flight: the call that frees it dispatches again.
      if (batch.length === 0) return;
      this.launch(batch);
    }
  }

  /** One call in flight: it holds its accounts and its slot until it ends or stalls. */
  private launch(batch: Pending[]): void {
    this.accountsInFlight.hold(batch);
    this.inFlight += 1;
    this.batchSize.observe(batch.length);
    this.load.sawBatch(batch.length, this.queue.length);
    let lent = false;
    const watchdog = setTimeout(() => {
      lent = true;
      this.stalled += 1;
      // It waits for something outside the batcher, perhaps before locking some of its accounts:
      // the database's locks, not the batcher, now decide who goes first on them.
      this.accountsInFlight.release(batch);
      this.dispatch();
    }, STALLED_AFTER_MS).unref();
    void this.run(batch).finally(() => {
      clearTimeout(watchdog);
      if (lent) this.stalled -= 1;
      else this.accountsInFlight.release(batch);
      this.inFlight -= 1;
      this.dispatch();
    });
  }

  private async run(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      // Awaited, so the slot stays busy while its call is: that is what lets the next batch form.
      await settled(batch[0], this.alone(batch[0].parameters));
      return;
    }
    let results: MovementResult[];
    try {
      results = await callMovementBatch(
        this.pool,
        BATCH_CALL,
        transferBatchArguments(batch.map((item) => item.parameters)),
      );
      if (results.length !== batch.length) throw new Error(`${results.length} outcomes for ${batch.length} transfers`);
    } catch (error) {
      // The whole batch was refused (a poisoned item, a key written without its lock, a deadlock
      // or serialization victim): nothing of it was committed, so each item runs alone, where a
      // conflict is retried (callMovement), and fails only itself. After a connection lost during
      // the commit it may have been committed: alone, each item then replays its record. With no
      // database at all, each answers 503 at once (within the query bound), and the client's
      // retry with its key replays or applies it.
      const again = (item: Pending) =>
        isDatabaseUnavailable(error) ? Promise.reject(error) : this.alone(item.parameters);
      await Promise.all(batch.map((item) => settled(item, again(item))));
      return;
    }
    batch.forEach((item, index) => {
      const result = results[index] as TransferResult;
      // Deferred: its key is held by a request in flight; alone, it waits for it as a twin does.
      item.settle(result.outcome.code === 'deferred' ? this.alone(item.parameters) : Promise.resolve(result));
    });
  }

  private alone(parameters: TransferParameters): Promise<TransferResult> {
    return callMovement(this.pool, TRANSFER_FUNDS, parameters) as Promise<TransferResult>;
  }
}

/** Hands the item its result and waits for it, without letting one item's failure reject the batch. */
async function settled(item: Pending, result: Promise<TransferResult>): Promise<void> {
  item.settle(result);
  await result.catch(() => undefined);
}
