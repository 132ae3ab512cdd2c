import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { formatMoney } from '../common/money/money';
import { PG_POOL } from '../database/pg-pool';
import { requestHash } from '../idempotency/idempotency-key';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { callMovement } from '../transactions/movement-call';
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
    const result = await callMovement(this.pool, 'deposit_funds', [
      caller.upiId.toLowerCase(),
      idempotencyKey,
      hash,
      request.upiId,
      amount,
      note,
      randomUUID(),
      context,
    ]);
    return this.renderer.render(result);
  }
}
