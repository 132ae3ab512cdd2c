import { ErrorCode } from './error-code';

/**
 * A failure the client should hear about. Domain code throws these; the problem
 * filter turns them into application/problem+json.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extras: {
      errors?: Record<string, string>;
      headers?: Record<string, string>;
      /** The problem's own members after the standard ones (limit-exceeded's `limit`). */
      members?: Record<string, unknown>;
    } = {},
  ) {
    super(detail);
  }
}

export class ValidationError extends ApiError {
  constructor(errors: Record<string, string>, detail = 'Request validation failed') {
    super(ErrorCode.ValidationFailed, detail, { errors });
  }
}

export const invalidRequest = (detail: string) => new ApiError(ErrorCode.InvalidRequest, detail);
export const forbidden = (detail = 'You are not allowed to perform this operation') =>
  new ApiError(ErrorCode.Forbidden, detail);
export const unauthorized = (detail = 'A valid bearer token is required') =>
  new ApiError(ErrorCode.Unauthorized, detail);
