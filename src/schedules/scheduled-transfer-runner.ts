import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Pool } from 'pg';
import { AppConfig } from '../config/app-config';
import { beginTransaction, commitTransaction, rollbackQuietly } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import { DatabaseOutages } from '../common/errors/database-outages';
import { nextOccurrenceAfter } from './occurrences';
import { RunExecutor, RunNotFinished } from './run-executor';
import { type InstructionStatus, type NewRun, ScheduledTransfersRepository } from './scheduled-transfers.repository';

const TICK_MS = 1000;
/** Instructions this process runs at once; each holds one connection for its claim and borrows one for its transfer. */
const MAX_LANES = 4;
/** A run later than this (the service was down) is recorded MISSED instead of moving money. */
export const CATCH_UP_WINDOW_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
/** How long this process leaves aside an occurrence that could not finish, so it blocks no other. */
const RETRY_AFTER_MS = 5000;

/**
 * Runs due standing instructions. A lane claims one due instruction (FOR UPDATE SKIP LOCKED), runs
 * its occurrence as a transfer, records the run and moves the instruction to its next occurrence,
 * then commits, all while holding the row lock: two instances never run the same occurrence, and a
 * process that dies mid-run leaves the instruction due, so whoever claims it next runs the
 * occurrence again under the same Idempotency-Key and records what the first attempt did.
 */
@Injectable()
export class ScheduledTransferRunner implements OnApplicationShutdown {
  private readonly logger = new Logger('ScheduledTransfers');
  private pumping: Promise<void> | undefined;
  private stopped = false;
  private failing = false;
  private readonly lanes: number;
  private readonly catchUpWindowMs: number;
  /** Instructions whose run could not finish (a dependency down), by when to try them again. */
  private readonly retryAt = new Map<string, number>();

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly repository: ScheduledTransfersRepository,
    private readonly executor: RunExecutor,
    private readonly config: AppConfig,
    private readonly outages: DatabaseOutages,
  ) {
    // A claim holds its connection while its transfer needs another: one connection always stays free.
    this.lanes = Math.min(MAX_LANES, config.dbPoolSize - 1);
    if (this.lanes < 1)
      this.logger.warn('Scheduled transfers do not run with DB_POOL_SIZE=1: a run needs two connections');
    // A run is repeated only while its first attempt's Idempotency-Key is surely kept, so never twice.
    this.catchUpWindowMs = Math.min(CATCH_UP_WINDOW_MS, config.idempotencyTtlHours * HOUR_MS);
  }

  @Interval('scheduled-transfers', TICK_MS)
  tick(): void {
    if (this.stopped || this.pumping || this.lanes < 1) return;
    this.pumping = this.pump().finally(() => (this.pumping = undefined));
  }

  /** One claim on an idle tick; the lanes join only when it found work. */
  private async pump(): Promise<void> {
    if (!(await this.drain(1))) return;
    await Promise.all(Array.from({ length: this.lanes }, () => this.drain()));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.pumping;
  }

  /** Runs due occurrences until none is left (or `limit`); true if it ran any. */
  private async drain(limit = Infinity): Promise<boolean> {
    let ran = 0;
    try {
      while (ran < limit && !this.stopped && (await this.runNext())) {
        ran += 1;
        this.failing = false;
      }
    } catch (error) {
      // Once per outage, not every tick: the run stays due and is tried again.
      if (!this.outages.absorbs('scheduled-transfers', error) && !this.failing)
        this.logger.warn({ msg: 'Running scheduled transfers failed; retrying', error: String(error) });
      this.failing = true;
    }
    return ran > 0;
  }

  private resting(): string[] {
    const now = Date.now();
    for (const [referenceId, at] of this.retryAt) if (at <= now) this.retryAt.delete(referenceId);
    return [...this.retryAt.keys()];
  }

  /** Claims and runs one due occurrence; false when nothing is due. */
  private async runNext(): Promise<boolean> {
    const client = await this.pool.connect();
    let released = false;
    try {
      await beginTransaction(client);
      const instruction = await this.repository.claimDue(client, this.resting());
      if (!instruction) {
        await commitTransaction(client);
        return false;
      }
      const dueAt = instruction.nextRunAt!;
      const run: NewRun =
        instruction.lateMs >= this.catchUpWindowMs ? { status: 'MISSED' } : await this.executor.run(instruction, dueAt);
      const occurrences = instruction.occurrences + 1;
      const nextRunAt =
        instruction.maxOccurrences !== null && occurrences >= instruction.maxOccurrences
          ? null
          : nextOccurrenceAfter(instruction, dueAt, this.config.businessTimeZone);
      const status: InstructionStatus = nextRunAt === null ? 'COMPLETED' : 'ACTIVE';
      await this.repository.recordRun(client, instruction.id, dueAt, run, { nextRunAt, status });
      await commitTransaction(client);
      this.logger.log({
        msg: 'Scheduled transfer run recorded',
        scheduledTransferId: instruction.referenceId,
        dueAt: dueAt.toISOString(),
        status: run.status,
        transactionReferenceId: run.transactionReferenceId ?? null,
        problemType: run.problem?.type ?? null,
      });
      return true;
    } catch (error) {
      await rollbackQuietly(client);
      // A run that could not finish stays due; set aside for a while, it holds up no other instruction.
      if (error instanceof RunNotFinished) {
        this.retryAt.set(error.referenceId, Date.now() + RETRY_AFTER_MS);
        if (!this.failing)
          this.logger.warn({ msg: 'A scheduled transfer run will be tried again', error: error.message });
        this.failing = true;
        return true;
      }
      client.release(error as Error);
      released = true;
      throw error;
    } finally {
      if (!released) client.release();
    }
  }
}
