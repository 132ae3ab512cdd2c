import { ERROR_DESCRIPTORS, type ErrorCode } from './error-code';
import type { ProblemBody } from './problem.filter';

/** What a problem fixes besides its code: where and when it was first answered. */
export interface ProblemOccurrence {
  instance: string;
  timestamp: string;
  requestId: string;
}

/**
 * A problem body from stored facts rather than the live request, so that a replayed answer carries
 * the first answer's instance, time and request id. Same fields and order as the problem filter.
 */
export function problemFromOccurrence(
  errorsBaseUrl: string,
  code: ErrorCode,
  detail: string,
  occurrence: ProblemOccurrence,
): ProblemBody {
  const descriptor = ERROR_DESCRIPTORS[code];
  return {
    type: `${errorsBaseUrl}/${code}`,
    title: descriptor.title,
    status: descriptor.status,
    detail,
    instance: occurrence.instance,
    timestamp: occurrence.timestamp,
    requestId: occurrence.requestId,
  };
}
