import { ApiError, forbidden } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import type { AuthenticatedUser } from './authenticated-user';

/**
 * Every ownership rule of the API, in one place. Queries repeat the owner in their WHERE
 * clause as well; these checks decide between 404 and 403 and give the detail.
 */

export function isSameUpiId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The caller acts as themselves: a UPI ID in the request must be theirs (403 otherwise). */
export function requireSelf(caller: AuthenticatedUser, upiId: string, detail: string): void {
  if (!isSameUpiId(upiId, caller.upiId)) throw forbidden(detail);
}

/** Profiles, ledgers and statements belong to their owner alone: unknown is 404, someone else's is 403. */
export function requireOwner<T extends { upiId: string; referenceId: string }>(
  caller: AuthenticatedUser,
  account: T | null,
  notFoundDetail: string,
): T {
  if (!account) throw new ApiError(ErrorCode.UserNotFound, notFoundDetail);
  if (account.referenceId !== caller.referenceId || !isSameUpiId(account.upiId, caller.upiId)) {
    throw forbidden('You may only access your own profile and ledger');
  }
  return account;
}

/** A transaction is readable by its two parties only: unknown is 404, anyone else's is 403. */
export function requireParty<T extends { senderUpiId: string; receiverUpiId: string }>(
  caller: AuthenticatedUser,
  transaction: T | null,
  notFoundDetail: string,
): T {
  if (!transaction) throw new ApiError(ErrorCode.TransactionNotFound, notFoundDetail);
  if (!isSameUpiId(transaction.senderUpiId, caller.upiId) && !isSameUpiId(transaction.receiverUpiId, caller.upiId)) {
    throw forbidden('Only the sender or the receiver may read a transaction');
  }
  return transaction;
}
