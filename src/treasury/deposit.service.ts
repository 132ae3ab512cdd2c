import { Injectable } from '@nestjs/common';
import { formatMoney } from '../common/money/money';
import type { IdempotentAnswer } from '../idempotency/stored-outcome';
import { MovementRunner, type MovementRequest, movementKey, newMovementIds } from '../movements/movement-runner';
import { DEPOSIT_FUNDS } from './deposit-parameters';
import type { DepositRequest } from './deposit.dto';

export interface DepositCommand extends MovementRequest {
  request: DepositRequest;
}

/**
 * Money issued by the treasury to a user (admin only): one call of deposit_funds
 * (sql/deposit_apply.sql in the movement skeleton), rendered.
 */
@Injectable()
export class DepositService {
  constructor(private readonly movements: MovementRunner) {}

  deposit(command: DepositCommand): Promise<IdempotentAnswer> {
    const { request, context } = command;
    const amount = formatMoney(request.amount);
    const note = request.note ?? null;
    return this.movements.run(DEPOSIT_FUNDS, {
      ...movementKey(command, { depositTo: request.upiId.toLowerCase(), amount, note }),
      upiId: request.upiId,
      amount,
      note,
      referenceId: newMovementIds().referenceId,
      context,
    });
  }
}
