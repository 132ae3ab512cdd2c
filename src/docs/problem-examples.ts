import {
  ERROR_DESCRIPTORS,
  ErrorCode,
  type ErrorDescriptor,
  type ProblemExampleFields,
} from '../common/errors/error-code';

/** A documented problem body before the document fixes its `type` base URL and its `instance`. */
export interface ProblemExample extends ProblemExampleFields {
  slug: string;
  title: string;
  status: number;
}

/** What a status means when an operation does not name the exact problems it answers with. */
export const DEFAULT_PROBLEMS: Record<number, string[]> = {
  400: [ErrorCode.InvalidRequest],
  401: [ErrorCode.Unauthorized],
  403: [ErrorCode.Forbidden],
  404: [ErrorCode.NotFound],
  405: [ErrorCode.MethodNotAllowed],
  409: [ErrorCode.Conflict],
  413: [ErrorCode.PayloadTooLarge],
  414: [ErrorCode.UriTooLong],
  415: [ErrorCode.UnsupportedMediaType],
  422: [ErrorCode.ValidationFailed],
  429: [ErrorCode.RateLimitExceeded],
  500: [ErrorCode.InternalError],
  503: [ErrorCode.ServiceUnavailable],
};

/** The documented example of one problem code, known to ERROR_DESCRIPTORS. */
export function problemExample(code: string): ProblemExample {
  const descriptor = (ERROR_DESCRIPTORS as Partial<Record<string, ErrorDescriptor>>)[code];
  if (!descriptor) throw new Error(`Unknown problem code ${code}`);
  const { status, title, example = { detail: title } } = descriptor;
  return { slug: code, title, status, ...example };
}

/** Every problem slug the service can answer with. */
export function problemSlugs(): string[] {
  return Object.keys(ERROR_DESCRIPTORS);
}
