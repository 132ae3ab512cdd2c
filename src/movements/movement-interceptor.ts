import {
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';
import { catchError, map, type Observable, throwError } from 'rxjs';
import { ApiError } from '../common/errors/api-error';
import { ERROR_DESCRIPTORS } from '../common/errors/error-code';
import { instanceOf } from '../common/errors/problem.filter';
import { labelResponse } from '../common/response-labels';
import { IDEMPOTENT_REPLAYED_HEADER, readIdempotencyKey } from '../idempotency/idempotency-key';
import { MOVEMENT_SECONDS, MOVEMENTS_TOTAL, TRANSFER_SECONDS, TRANSFERS_TOTAL } from './movement-metrics';
import { MOVEMENT_KIND, type MovementKind } from './movement-kind';
import { type AnswerContext, isIdempotentAnswer } from '../idempotency/stored-outcome';

type KeyedRequest = FastifyRequest & { idempotencyKey?: string };

/** The validated Idempotency-Key of a route behind MovementInterceptor. */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const key = context.switchToHttp().getRequest<KeyedRequest>().idempotencyKey;
  if (key === undefined) throw new Error('IdempotencyKey used on a route without MovementInterceptor');
  return key;
});

/** What the first answer fixes (request id, path), for the movement to store with its outcome. */
export const AnswerContextOf = createParamDecorator((_data: unknown, context: ExecutionContext): AnswerContext => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  return { requestId: String(request.id), instance: instanceOf(request) };
});

/**
 * A money movement route (src/movements/movement-route.ts): reads and validates Idempotency-Key
 * before the body is validated (so 400 for the key comes before 422), sends the handler's rendered
 * answer with its status, marks replays with Idempotent-Replayed, counts answers by the route's
 * movement kind, status and replay, and records on the reply what the observers report.
 */
@Injectable()
export class MovementInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @InjectMetric(MOVEMENTS_TOTAL) private readonly answers: Counter,
    @InjectMetric(MOVEMENT_SECONDS) private readonly latency: Histogram,
    @InjectMetric(TRANSFERS_TOTAL) private readonly transferAnswers: Counter,
    @InjectMetric(TRANSFER_SECONDS) private readonly transferLatency: Histogram,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<string> {
    const http = context.switchToHttp();
    const request = http.getRequest<KeyedRequest>();
    const reply = http.getResponse<FastifyReply>();
    // A route using the interceptor without a declared kind is a transfer (a payment request's pay).
    const kind = this.reflector.get<MovementKind | undefined>(MOVEMENT_KIND, context.getHandler()) ?? 'transfer';
    const started = performance.now();
    const record = (status: number, replayed: boolean) => {
      const seconds = (performance.now() - started) / 1000;
      const outcome = String(status);
      this.answers.inc({ kind, outcome, replayed: String(replayed) });
      this.latency.observe({ kind, outcome }, seconds);
      if (kind === 'transfer') {
        this.transferAnswers.inc({ outcome, replayed: String(replayed) });
        this.transferLatency.observe({ outcome }, seconds);
      }
      labelResponse(reply.raw, { movement: kind, replayed });
    };
    try {
      request.idempotencyKey = readIdempotencyKey(request.headers['idempotency-key']);
    } catch (error) {
      record(statusOf(error), false);
      throw error;
    }
    return next.handle().pipe(
      map((answer: unknown) => {
        if (!isIdempotentAnswer(answer)) throw new Error('An idempotent route must return an IdempotentAnswer');
        record(answer.status, answer.replayed);
        void reply.status(answer.status).type(answer.contentType);
        for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
        if (answer.replayed) void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
        labelResponse(reply.raw, { problemType: answer.problemType, transactionReferenceId: answer.referenceId });
        // Already JSON text, rendered from the stored outcome: sent as is, never re-serialised.
        return answer.body;
      }),
      catchError((error: unknown) => {
        record(statusOf(error), false);
        return throwError(() => error);
      }),
    );
  }
}

function statusOf(error: unknown): number {
  if (error instanceof ApiError) return ERROR_DESCRIPTORS[error.code].status;
  const status = (error as { getStatus?: () => number } | null)?.getStatus?.();
  return typeof status === 'number' ? status : 500;
}
