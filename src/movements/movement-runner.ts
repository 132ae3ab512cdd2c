import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { PG_POOL } from '../database/pg-pool';
import { requestHash } from '../idempotency/idempotency-key';
import type { AnswerContext, IdempotentAnswer, MovementResult } from '../idempotency/stored-outcome';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { callMovement, type MovementFunction } from './movement-call';
import { OutcomeRenderer } from './outcome-renderer';
import { timeOrderedUuid } from './time-ordered-uuid';

/** What every movement's function takes before its own fields: the key, its scope and the request's hash. */
export interface MovementKey {
  /** The caller's lower-cased UPI ID: the idempotency key's scope. */
  owner: string;
  idempotencyKey: string;
  /** SHA-256 of the request's canonical form (requestHash). */
  requestHash: string;
}

/** A movement request as every movement route hands it over. */
export interface MovementRequest {
  caller: AuthenticatedUser;
  idempotencyKey: string;
  context: AnswerContext;
}

/** The key part of a movement's parameters, from the caller, the key and the request's canonical form. */
export function movementKey(
  { caller, idempotencyKey }: MovementRequest,
  canonical: Record<string, string | null>,
): MovementKey {
  return { owner: caller.upiId.toLowerCase(), idempotencyKey, requestHash: requestHash(canonical) };
}

/** Fresh identifiers for what a movement creates: its transaction and its event, in time order. */
export function newMovementIds(): { referenceId: string; eventId: string } {
  return { referenceId: timeOrderedUuid(), eventId: timeOrderedUuid() };
}

/**
 * The service side of the movement skeleton, shared by transfers, reversals and deposits: run the
 * movement's SQL function (which claims the key, decides and stores, in one transaction), wake the
 * outbox relay for a fresh movement that wrote an event, and render the outcome.
 */
@Injectable()
export class MovementRunner {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly renderer: OutcomeRenderer,
    private readonly outbox: OutboxRelay,
  ) {}

  async run<Parameters>(fn: MovementFunction<Parameters>, parameters: Parameters): Promise<IdempotentAnswer> {
    return this.answer(fn, await callMovement(this.pool, fn, parameters));
  }

  /** A result obtained elsewhere (a batch, a replay while a dependency is down), answered alike. */
  answer<Parameters>(fn: MovementFunction<Parameters>, result: MovementResult): IdempotentAnswer {
    if (fn.publishes && result.outcome.code === 'completed' && !result.replayed) this.outbox.nudge();
    return this.renderer.render(result, fn.resource);
  }
}
