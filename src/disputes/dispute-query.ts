import { type Query, readOneOf } from '../common/paging/page';
import { DISPUTE_STATUSES, type DisputeStatus } from './dispute.dto';
import type { DisputeFilter } from './disputes.repository';

/** status=, and overdue=true|false where the list offers it (the admin's). */
export function readDisputeFilter(query: Query, withOverdue: boolean): DisputeFilter {
  const status = readOneOf<DisputeStatus>(query, 'status', DISPUTE_STATUSES);
  const overdue = withOverdue ? readOneOf(query, 'overdue', ['true', 'false'] as const) : undefined;
  return { status, overdue: overdue === undefined ? undefined : overdue === 'true' };
}
