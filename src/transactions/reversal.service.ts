import { Injectable } from '@nestjs/common';
import { formatMoney } from '../common/money/money';
import type { IdempotentAnswer } from '../idempotency/stored-outcome';
import { MovementRunner, type MovementRequest, movementKey, newMovementIds } from '../movements/movement-runner';
import { REVERSE_TRANSFER } from './reversal-parameters';
import type { ReversalRequest } from './reversal.dto';

export interface ReversalCommand extends MovementRequest {
  originalReferenceId: string;
  request: ReversalRequest;
}

/**
 * A refund of a transfer by its receiver: one call of reverse_transfer (sql/reversal_apply.sql in
 * the movement skeleton), its outcome rendered.
 */
@Injectable()
export class ReversalService {
  constructor(private readonly movements: MovementRunner) {}

  reverse(command: ReversalCommand): Promise<IdempotentAnswer> {
    const { originalReferenceId, request, context } = command;
    const amount = request.amount ? formatMoney(request.amount) : null;
    const note = request.note ?? null;
    return this.movements.run(REVERSE_TRANSFER, {
      ...movementKey(command, { reversalOf: originalReferenceId.toLowerCase(), amount, note }),
      originalReferenceId,
      amount,
      note,
      ...newMovementIds(),
      context,
    });
  }
}
