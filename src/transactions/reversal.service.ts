import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { formatMoney } from '../common/money/money';
import { PG_POOL } from '../database/pg-pool';
import { requestHash } from '../idempotency/idempotency-key';
import type { AnswerContext, IdempotentAnswer } from '../idempotency/stored-outcome';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { callMovement } from './movement-call';
import { OutcomeRenderer } from './outcome-renderer';
import type { ReversalRequest } from './reversal.dto';

export interface ReversalCommand {
  caller: AuthenticatedUser;
  originalReferenceId: string;
  request: ReversalRequest;
  idempotencyKey: string;
  context: AnswerContext;
}

/** A refund of a transfer by its receiver: sql/reverse_transfer.sql once, its outcome rendered. */
@Injectable()
export class ReversalService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly renderer: OutcomeRenderer,
    private readonly outbox: OutboxRelay,
  ) {}

  async reverse({
    caller,
    originalReferenceId,
    request,
    idempotencyKey,
    context,
  }: ReversalCommand): Promise<IdempotentAnswer> {
    const amount = request.amount ? formatMoney(request.amount) : null;
    const note = request.note ?? null;
    const owner = caller.upiId.toLowerCase();
    const hash = requestHash({ reversalOf: originalReferenceId.toLowerCase(), amount, note });
    const result = await callMovement(this.pool, 'reverse_transfer', [
      owner,
      idempotencyKey,
      hash,
      originalReferenceId,
      amount,
      note,
      randomUUID(),
      randomUUID(),
      context,
    ]);
    if (result.outcome.code === 'completed' && !result.replayed) this.outbox.nudge();
    return this.renderer.render(result);
  }
}
