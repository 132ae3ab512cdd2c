import { Injectable, Optional } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { problemBody } from '../common/errors/problem-body';
import { AppConfig } from '../config/app-config';
import type { IdempotentAnswer, MovementResult, StoredOutcome } from '../idempotency/stored-outcome';
import { LimitsMetrics } from '../limits/limits-metrics';
import {
  COMPLETED_STATUS,
  isMovementOutcomeCode,
  MOVEMENT_REFUSALS,
  type MovementRefusal,
  type MovementRefusalCode,
} from './movement-outcomes';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The one place a movement's outcome becomes HTTP: 201 with the transaction, or the problem its
 * code maps to (movement-outcomes.ts). Only stored facts are used (time, request id, path of the
 * first answer), so a replay, even after a restart, is the same bytes. A new movement adds its
 * refusal codes to MOVEMENT_REFUSALS, nothing here.
 */
@Injectable()
export class OutcomeRenderer {
  constructor(
    private readonly config: AppConfig,
    @Optional() private readonly limits?: LimitsMetrics,
  ) {}

  /** `resource` renders a completed outcome: the movement's own (MovementFunction.resource). */
  render({ outcome, replayed }: MovementResult, resource?: MovementResource): IdempotentAnswer {
    const { code } = outcome;
    if (!isMovementOutcomeCode(code)) {
      throw new Error(`No rendering for movement outcome ${code} (${JSON.stringify(outcome)})`);
    }
    switch (code) {
      case 'completed':
        if (!resource) throw new Error('A completed movement is rendered as the resource it created');
        return created(resource(outcome.data ?? {}, outcome), replayed);
      case 'key-reused':
        // Not a stored answer: the problem is about this request, so it is rendered fresh.
        throw new ApiError(
          ErrorCode.IdempotencyKeyReused,
          'This Idempotency-Key was already used for a different request; use a new key for a new transfer',
        );
      case 'deferred':
        throw new Error('A deferred batch item is run alone by TransferBatcher, never rendered');
      default:
        return this.refusal(code, outcome, replayed);
    }
  }

  private refusal(code: MovementRefusalCode, outcome: StoredOutcome, replayed: boolean): IdempotentAnswer {
    const data = outcome.data ?? {};
    const refusal: MovementRefusal = MOVEMENT_REFUSALS[code];
    if (!replayed) this.countRefusal(code, data);
    const body = problemBody(this.config.errorsBaseUrl, refusal.problem, refusal.detail(data), {
      instance: outcome.instance ?? '',
      timestamp: outcome.at ?? '',
      requestId: outcome.requestId ?? '',
    });
    return {
      status: body.status,
      contentType: PROBLEM_TYPE,
      body: JSON.stringify({ ...body, ...refusal.members?.(data) }),
      headers: {},
      replayed,
      problemType: refusal.problem,
      problemDetail: body.detail,
    };
  }

  /** Limits and freezes count their refusals (src/limits), once per decision, never per replay. */
  private countRefusal(code: MovementRefusalCode, data: Record<string, unknown>): void {
    if (code === 'limit-exceeded') this.limits?.refused((data.limit as { name: string }).name);
    if (code === 'account-frozen') this.limits?.refused('account-frozen');
  }
}

/** The resource a completed movement created, as its 201 answer carries it. */
export interface CreatedResource {
  body: unknown;
  location: string;
  referenceId: string;
}

/** How a movement's completed outcome (its stored data) becomes the resource it created. */
export type MovementResource = (data: Record<string, unknown>, outcome: StoredOutcome) => CreatedResource;

function created({ body, location, referenceId }: CreatedResource, replayed: boolean): IdempotentAnswer {
  return {
    status: COMPLETED_STATUS,
    contentType: JSON_TYPE,
    body: JSON.stringify(body),
    headers: { Location: location },
    replayed,
    referenceId,
  };
}
