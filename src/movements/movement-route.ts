import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_SCHEMA } from '../idempotency/idempotency-key';
import { MovementInterceptor } from './movement-interceptor';
import { MOVEMENT_KIND, type MovementKind } from './movement-kind';

export interface MovementRouteOptions {
  kind: MovementKind;
  /** The problems this movement answers with besides those every movement route shares (below). */
  problems: (number | string)[];
  /** What the key names in the API document ("Names this payment: ..."); the kind by default. */
  names?: string;
  /** An example Idempotency-Key for the API document. */
  keyExample?: string;
}

/**
 * A money movement route, declared once for all of them: the Idempotency-Key header and its
 * problems in the API document, MovementInterceptor (movement-interceptor.ts), and the route's movement kind (read
 * by the interceptor for the metrics and the request log line). Every movement route also answers
 * 400 for its body or key, 401, 409 for a key in flight, 415, 422 for its body, 429 and 503.
 */
export function MovementRoute({ kind, problems, names = kind, keyExample }: MovementRouteOptions): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: true,
      description: `Names this ${names}: a retry with the same key and body replays the stored result`,
      schema: { ...IDEMPOTENCY_KEY_SCHEMA, ...(keyExample !== undefined && { example: keyExample }) },
    }),
    // In this order, so each status lists the route's own problems before the key's.
    ApiProblems(
      ErrorCode.InvalidRequest,
      ErrorCode.ValidationFailed,
      ...problems,
      ErrorCode.IdempotencyKeyMissing,
      ErrorCode.IdempotencyKeyInvalid,
      ErrorCode.IdempotencyKeyReused,
      401,
      ErrorCode.IdempotencyKeyInFlight,
      415,
      429,
      503,
    ),
    SetMetadata(MOVEMENT_KIND, kind),
    UseInterceptors(MovementInterceptor),
  );
}
