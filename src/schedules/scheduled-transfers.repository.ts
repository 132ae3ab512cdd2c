import { Inject, Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../database/in-transaction';
import { PG_POOL } from '../database/pg-pool';
import type { Frequency } from './occurrences';

export type InstructionStatus = 'ACTIVE' | 'PAUSED' | 'CANCELLED' | 'COMPLETED';
export type RunStatus = 'COMPLETED' | 'FAILED' | 'MISSED';

export interface InstructionRow {
  id: string;
  referenceId: string;
  senderUpiId: string;
  receiverUpiId: string;
  amount: string;
  note: string | null;
  frequency: Frequency;
  startAt: Date;
  endAt: Date | null;
  maxOccurrences: number | null;
  status: InstructionStatus;
  nextRunAt: Date | null;
  occurrences: number;
  createdAt: Date;
}

export type NewInstruction = Omit<InstructionRow, 'id' | 'status' | 'occurrences' | 'createdAt'>;

export interface RunRow {
  dueAt: Date;
  ranAt: Date;
  status: RunStatus;
  transactionReferenceId: string | null;
  problemType: string | null;
  problemDetail: string | null;
}

export interface NewRun {
  status: RunStatus;
  transactionReferenceId?: string;
  problem?: { type: string; detail: string };
}

/** The instruction's columns as InstructionRow names them, from the table aliased `t` if given. */
function columns(t = ''): string {
  const p = t ? `${t}.` : '';
  return `${p}id::text AS id, ${p}reference_id AS "referenceId", ${p}sender_upi_id AS "senderUpiId",
    ${p}receiver_upi_id AS "receiverUpiId", ${p}amount::text AS amount, ${p}note, ${p}frequency,
    ${p}start_at AS "startAt", ${p}end_at AS "endAt", ${p}max_occurrences AS "maxOccurrences", ${p}status,
    ${p}next_run_at AS "nextRunAt", ${p}occurrences, ${p}created_at AS "createdAt"`;
}
const COLUMNS = columns();

/** The one way to scheduled_transfers and scheduled_transfer_runs. */
@Injectable()
export class ScheduledTransfersRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Inserts the instruction unless its sender already has `max` live ones (ACTIVE or PAUSED): then
   * `created` is null. One sender's creations queue on a transaction-scoped advisory lock, so
   * concurrent requests never pass the cap together; money movements never take it.
   */
  async insertWithinCap(
    instruction: NewInstruction,
    max: number,
  ): Promise<{ created: InstructionRow | null; live: number }> {
    return inTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('scheduled_transfers'), hashtext(lower($1)))`, [
        instruction.senderUpiId,
      ]);
      const live = await this.liveCount(client, instruction.senderUpiId);
      if (live >= max) return { created: null, live };
      return { created: await this.insert(client, instruction), live: live + 1 };
    });
  }

  private async liveCount(client: PoolClient, senderUpiId: string): Promise<number> {
    const { rows } = await client.query<{ live: number }>(
      `SELECT count(*)::int AS live FROM scheduled_transfers
       WHERE lower(sender_upi_id) = lower($1) AND status IN ('ACTIVE', 'PAUSED')`,
      [senderUpiId],
    );
    return rows[0].live;
  }

  private async insert(client: PoolClient, instruction: NewInstruction): Promise<InstructionRow> {
    const { rows } = await client.query<InstructionRow>(
      `INSERT INTO scheduled_transfers (reference_id, sender_upi_id, receiver_upi_id, amount, note, frequency,
         start_at, end_at, max_occurrences, next_run_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [
        instruction.referenceId,
        instruction.senderUpiId,
        instruction.receiverUpiId,
        instruction.amount,
        instruction.note,
        instruction.frequency,
        instruction.startAt,
        instruction.endAt,
        instruction.maxOccurrences,
        instruction.nextRunAt,
      ],
    );
    return rows[0];
  }

  async find(referenceId: string): Promise<InstructionRow | null> {
    const { rows } = await this.pool.query<InstructionRow>(
      `SELECT ${COLUMNS} FROM scheduled_transfers WHERE reference_id = $1`,
      [referenceId],
    );
    return rows[0] ?? null;
  }

  async listBySender(senderUpiId: string): Promise<InstructionRow[]> {
    const { rows } = await this.pool.query<InstructionRow>(
      `SELECT ${COLUMNS} FROM scheduled_transfers WHERE lower(sender_upi_id) = lower($1)
       ORDER BY created_at DESC, id DESC`,
      [senderUpiId],
    );
    return rows;
  }

  /** Changes status and next run only if the row still has the status the caller decided on. */
  async transition(
    referenceId: string,
    from: InstructionStatus,
    to: InstructionStatus,
    nextRunAt: Date | null,
  ): Promise<InstructionRow | null> {
    const { rows } = await this.pool.query<InstructionRow>(
      `UPDATE scheduled_transfers SET status = $3, next_run_at = $4, updated_at = now()
       WHERE reference_id = $1 AND status = $2 RETURNING ${COLUMNS}`,
      [referenceId, from, to, nextRunAt],
    );
    return rows[0] ?? null;
  }

  async runs(instructionId: string): Promise<RunRow[]> {
    const { rows } = await this.pool.query<RunRow>(
      `SELECT due_at AS "dueAt", ran_at AS "ranAt", status, transaction_reference_id AS "transactionReferenceId",
         problem_type AS "problemType", problem_detail AS "problemDetail"
       FROM scheduled_transfer_runs WHERE scheduled_transfer_id = $1 ORDER BY due_at DESC`,
      [instructionId],
    );
    return rows;
  }

  async userByReference(referenceId: string): Promise<{ upiId: string; referenceId: string } | null> {
    const { rows } = await this.pool.query<{ upiId: string; referenceId: string }>(
      `SELECT upi_id AS "upiId", reference_id AS "referenceId" FROM users WHERE reference_id = $1`,
      [referenceId],
    );
    return rows[0] ?? null;
  }

  /** The receiver as registered (its stored spelling), or null. */
  async registeredUpiId(upiId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ upiId: string }>(
      `SELECT upi_id AS "upiId" FROM users WHERE lower(upi_id) = lower($1)`,
      [upiId],
    );
    return rows[0]?.upiId ?? null;
  }

  /**
   * The earliest due active instruction no other worker holds, locked for the caller's transaction
   * (FOR UPDATE SKIP LOCKED): any number of instances claim without waiting for or doubling each other.
   * `late` is measured on the database's clock, the one every instance shares.
   */
  async claimDue(
    client: PoolClient,
    skipped: string[],
  ): Promise<(InstructionRow & { lateMs: number; senderReferenceId: string }) | null> {
    const { rows } = await client.query<InstructionRow & { lateMs: number; senderReferenceId: string }>(
      `SELECT ${columns('s')},
         (extract(epoch FROM now() - s.next_run_at) * 1000)::float8 AS "lateMs",
         coalesce(u.reference_id::text, '') AS "senderReferenceId"
       FROM scheduled_transfers s LEFT JOIN users u ON lower(u.upi_id) = lower(s.sender_upi_id)
       WHERE s.status = 'ACTIVE' AND s.next_run_at <= now() AND s.reference_id <> ALL($1::uuid[])
       ORDER BY s.next_run_at LIMIT 1 FOR UPDATE OF s SKIP LOCKED`,
      [skipped],
    );
    return rows[0] ?? null;
  }

  /**
   * The transaction a run completed under `idempotencyKey`, if the stored outcome is the runner's own
   * (its `instance` is the runs path, which no client request has).
   */
  async completedRunTransfer(ownerUpiId: string, idempotencyKey: string, instance: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ referenceId: string }>(
      `SELECT idempotent_replay(k, encode(k.request_hash, 'hex'))->'data'->>'referenceId' AS "referenceId"
       FROM idempotency_record($1, $2) k WHERE k.status = 'SUCCESS' AND k.outcome->>'instance' = $3`,
      [ownerUpiId.toLowerCase(), idempotencyKey, instance],
    );
    return rows[0]?.referenceId ?? null;
  }

  /** Records one occurrence and moves the instruction on, in the claim's transaction. */
  async recordRun(
    client: PoolClient,
    instructionId: string,
    dueAt: Date,
    run: NewRun,
    next: { nextRunAt: Date | null; status: InstructionStatus },
  ): Promise<void> {
    await client.query(
      `INSERT INTO scheduled_transfer_runs
         (scheduled_transfer_id, due_at, status, transaction_reference_id, problem_type, problem_detail)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        instructionId,
        dueAt,
        run.status,
        run.transactionReferenceId ?? null,
        run.problem?.type ?? null,
        run.problem?.detail ?? null,
      ],
    );
    await client.query(
      `UPDATE scheduled_transfers SET occurrences = occurrences + 1, next_run_at = $2, status = $3, updated_at = now()
       WHERE id = $1`,
      [instructionId, next.nextRunAt, next.status],
    );
  }
}
