import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';
import { IDEMPOTENT_REPLAYED_HEADER, readIdempotencyKey } from './idempotency-key';
import { MOVEMENT_SECONDS, MOVEMENTS_TOTAL } from './idempotency-metrics';
import type { IdempotentAnswer } from './stored-outcome';

const STOP_TIMER = Symbol('movementTimer');

type MovementRequest = FastifyRequest & {
  idempotencyKey?: string;
  [STOP_TIMER]?: (labels: { outcome: string }) => number;
};

/** The validated Idempotency-Key of a route behind IdempotencyKeyGuard. */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const key = context.switchToHttp().getRequest<MovementRequest>().idempotencyKey;
  if (key === undefined) throw new Error('IdempotencyKey used on a route without IdempotencyKeyGuard');
  return key;
});

/**
 * Counts and times every answer of a money movement route, once it is sent, whatever produced
 * it (the handler, a validation pipe, the problem filter): a Fastify onSend hook, so the route
 * needs no Nest interceptor (and no RxJS chain) on its hot path.
 */
@Injectable()
export class MovementMetrics implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @InjectMetric(MOVEMENTS_TOTAL) private readonly answers: Counter,
    @InjectMetric(MOVEMENT_SECONDS) private readonly latency: Histogram,
  ) {}

  /** From here on the request is a movement whose answer is counted. */
  start(request: MovementRequest): void {
    request[STOP_TIMER] = this.latency.startTimer();
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onSend', (request: MovementRequest, reply, payload, done) => {
      const stop = request[STOP_TIMER];
      if (stop) {
        request[STOP_TIMER] = undefined;
        const outcome = String(reply.statusCode);
        const replayed = reply.getHeader(IDEMPOTENT_REPLAYED_HEADER) === 'true';
        this.answers.inc({ outcome, replayed: String(replayed) });
        stop({ outcome });
      }
      done(null, payload);
    });
  }
}

/**
 * A money movement route's last guard, after identity, sender and rate limit: reads and
 * validates Idempotency-Key before the body is validated (so 400 for the key comes before the
 * body's 400/422). Answers from here on are counted by MovementMetrics.
 */
@Injectable()
export class IdempotencyKeyGuard implements CanActivate {
  constructor(private readonly metrics: MovementMetrics) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<MovementRequest>();
    this.metrics.start(request);
    request.idempotencyKey = readIdempotencyKey(request.headers['idempotency-key']);
    return true;
  }
}

/**
 * Sends a rendered movement answer with its status, type and headers, marking a replay with
 * Idempotent-Replayed. The body is already JSON text, rendered from the stored outcome: the
 * route returns it to be sent as is, never re-serialised.
 */
export function sendAnswer(reply: FastifyReply, answer: IdempotentAnswer): string {
  void reply.status(answer.status).type(answer.contentType);
  for (const [name, value] of Object.entries(answer.headers)) void reply.header(name, value);
  if (answer.replayed) void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  return answer.body;
}
