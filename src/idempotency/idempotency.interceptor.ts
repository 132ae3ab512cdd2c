import {
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';
import { catchError, map, type Observable, throwError } from 'rxjs';
import { ApiError } from '../common/errors/api-error';
import { ERROR_DESCRIPTORS } from '../common/errors/error-code';
import { instanceOf } from '../common/errors/problem.filter';
import { recordReplyFacts } from '../common/errors/reply-facts';
import { IDEMPOTENT_REPLAYED_HEADER, readIdempotencyKey } from './idempotency-key';
import { MOVEMENT_SECONDS, MOVEMENTS_TOTAL } from './idempotency-metrics';
import { type AnswerContext, isIdempotentAnswer } from './stored-outcome';

type KeyedRequest = FastifyRequest & { idempotencyKey?: string };

/** The validated Idempotency-Key of a route behind IdempotencyInterceptor. */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const key = context.switchToHttp().getRequest<KeyedRequest>().idempotencyKey;
  if (key === undefined) throw new Error('IdempotencyKey used on a route without IdempotencyInterceptor');
  return key;
});

/** What the first answer fixes (request id, path), for the movement to store with its outcome. */
export const AnswerContextOf = createParamDecorator((_data: unknown, context: ExecutionContext): AnswerContext => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  return { requestId: String(request.id), instance: instanceOf(request) };
});

/**
 * A money movement route: reads and validates Idempotency-Key before the body is validated (so
 * 400 for the key comes before 422), sends the handler's rendered answer with its status, marks
 * replays with Idempotent-Replayed, and counts answers by status and replay.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @InjectMetric(MOVEMENTS_TOTAL) private readonly answers: Counter,
    @InjectMetric(MOVEMENT_SECONDS) private readonly latency: Histogram,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<string> {
    const http = context.switchToHttp();
    const request = http.getRequest<KeyedRequest>();
    const reply = http.getResponse<FastifyReply>();
    const stop = this.latency.startTimer();
    const record = (status: number, replayed: boolean) => {
      this.answers.inc({ outcome: String(status), replayed: String(replayed) });
      stop({ outcome: String(status) });
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
        recordReplyFacts(reply.raw, {
          problemType: answer.problemType,
          transactionReferenceId: answer.referenceId,
          replayed: answer.replayed,
        });
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
