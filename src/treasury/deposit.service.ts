import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { formatMoney } from '../common/money/money';
import { PG_POOL } from '../database/pg-pool';
import { requestHash } from '../idempotency/idempotency-key';
import type { AnswerContext, IdempotentAnswer, StoredOutcome } from '../idempotency/stored-outcome';
import { translateMovementError } from '../transactions/movement-errors';
import { OutcomeRenderer } from '../transactions/outcome-renderer';
import type { DepositRequest } from './deposit.dto';

export interface DepositCommand {
  caller: AuthenticatedUser;
  request: DepositRequest;
  idempotencyKey: string;
  context: AnswerContext;
}

/** Money issued by the treasury to a user (admin only): sql/deposit_funds.sql once, rendered. */
@Injectable()
export class DepositService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly renderer: OutcomeRenderer,
  ) {}

  async deposit({ caller, request, idempotencyKey, context }: DepositCommand): Promise<IdempotentAnswer> {
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    const hash = requestHash({ depositTo: request.upiId.toLowerCase(), amount, note });
    try {
      const { rows } = await this.pool.query<{ result: StoredOutcome; replayed: boolean }>({
        name: 'deposit_funds',
        text: 'SELECT result, replayed FROM deposit_funds($1, $2, $3, $4, $5, $6, $7, $8)',
        values: [caller.upiId.toLowerCase(), idempotencyKey, hash, request.upiId, amount, note, randomUUID(), context],
      });
      return this.renderer.render({ outcome: rows[0].result, replayed: rows[0].replayed });
    } catch (error) {
      throw translateMovementError(error);
    }
  }
}
