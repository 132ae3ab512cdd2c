import { ERROR_DESCRIPTORS, type ErrorCode } from './error-code';

/** An RFC 9457 problem as every error of this API is written, in this member order. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  timestamp: string;
  requestId: string;
  errors?: Record<string, string>;
}

/** What a problem fixes besides its code: where and when it was first answered. */
export interface ProblemOccurrence {
  instance: string;
  timestamp: string;
  requestId: string;
}

/**
 * The one problem-body builder: the problem filter (a live request), a replayed movement outcome
 * (the first answer's stored instance, time and request id) and the raw HTTP-layer refusals all
 * build their bodies here, from the outcome vocabulary (error-code.ts).
 */
export function problemBody(
  errorsBaseUrl: string,
  code: ErrorCode,
  detail: string,
  occurrence: ProblemOccurrence,
  errors?: Record<string, string>,
): ProblemBody {
  const { status, title } = ERROR_DESCRIPTORS[code];
  const body: ProblemBody = { type: `${errorsBaseUrl}/${code}`, title, status, detail, ...occurrence };
  if (errors) body.errors = errors;
  return body;
}
