import type Big from 'big.js';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { formatMoney, Money } from '../common/money/money';

/** TRANSFER_AMOUNT_MAX (1000000 under `none`, as the spec's maximum; 100000 under `npci`): 422 on `amount`. */
export function assertTransferAmountMax(amount: Big, max: string): void {
  if (amount.lte(max)) return;
  const message = `amount must be at most ${formatMoney(new Money(max))}`;
  throw new ApiError(ErrorCode.ValidationFailed, message, { errors: { amount: message } });
}
