import { ValidationError } from '../common/errors/api-error';
import { type Query, single } from '../common/paging/page';
import { DISPUTE_STATUSES, type DisputeStatus } from './dispute.dto';
import type { DisputeFilter } from './disputes.repository';

/** A query parameter given at most once and from a fixed list (anything else is 422). */
export function readOneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const value = single(query, name);
  if (value !== undefined && !allowed.includes(value as T)) {
    throw new ValidationError({ [name]: `${name} must be one of: ${allowed.join(', ')}` });
  }
  return value as T | undefined;
}

/** status=, and overdue=true|false where the list offers it (the admin's). */
export function readDisputeFilter(query: Query, withOverdue: boolean): DisputeFilter {
  const status = readOneOf<DisputeStatus>(query, 'status', DISPUTE_STATUSES);
  const overdue = withOverdue ? readOneOf(query, 'overdue', ['true', 'false'] as const) : undefined;
  return { status, overdue: overdue === undefined ? undefined : overdue === 'true' };
}
