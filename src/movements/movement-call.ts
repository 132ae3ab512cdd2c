import type { Pool } from 'pg';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { PgErrorCode, pgErrorCode } from '../common/errors/postgres-errors';
import type { MovementResult, StoredOutcome } from '../idempotency/stored-outcome';
import { CONFLICT_RETRIES, conflictRetryPolicy, isTransactionConflict } from './conflict-retry';
import type { MovementResource } from './outcome-renderer';

/**
 * A money movement's SQL function as the service calls it: its name and the SQL type of each
 * parameter, in the function's argument order (p_ + the field's snake_case name). Each movement
 * declares one beside its typed parameters; a medium test holds every declaration to what
 * PostgreSQL reports for the function's signature.
 */
export interface MovementFunction<Parameters> {
  name: string;
  argumentTypes: { readonly [Field in keyof Parameters]-?: string };
  /** Whether a completed movement writes an outbox event (the relay is woken for it). */
  publishes: boolean;
  /** The resource a completed movement created, from its stored data. */
  resource: MovementResource;
}

/** The function's positional values, from the typed object, in the declared order. */
export function movementArguments<Parameters>(fn: MovementFunction<Parameters>, parameters: Parameters): unknown[] {
  return (Object.keys(fn.argumentTypes) as (keyof Parameters)[]).map((field) => parameters[field] ?? null);
}

/** Each function's prepared statement, built once: every call of the function names it. */
const CALL_STATEMENTS = new Map<string, { name: string; text: string }>();

/** The prepared statement that calls a movement function (or its batch form) with `arity` parameters. */
export function movementCallStatement(name: string, arity: number): { name: string; text: string } {
  let statement = CALL_STATEMENTS.get(name);
  if (!statement) {
    const placeholders = Array.from({ length: arity }, (_, index) => `$${index + 1}`).join(', ');
    statement = { name, text: `SELECT result, replayed FROM ${name}(${placeholders})` };
    CALL_STATEMENTS.set(name, statement);
  }
  return statement;
}

// Entered only after a first attempt met a conflict, so it holds the retries left.
const conflictRetry = conflictRetryPolicy(CONFLICT_RETRIES - 1);

/**
 * Calls a money movement's SQL function (src/<module>/sql/<fn>.sql) as one prepared statement, one
 * round trip, and reads its outcome. The transfer, reversals and deposits all go through here. A
 * call rolled back by a deadlock or a serialization failure wrote nothing: it is run again.
 */
export async function callMovement<Parameters>(
  pool: Pool,
  fn: MovementFunction<Parameters>,
  parameters: Parameters,
): Promise<MovementResult> {
  const values = movementArguments(fn, parameters);
  const statement = movementCallStatement(fn.name, values.length);
  try {
    const call = () => pool.query<{ result: StoredOutcome; replayed: boolean }>({ ...statement, values });
    // The first attempt goes straight to the pool; only a conflict's victim enters the policy.
    const { rows } = await call().catch((error: unknown) => {
      if (!isTransactionConflict(error)) throw error;
      return conflictRetry.execute(call);
    });
    return { outcome: rows[0].result, replayed: rows[0].replayed };
  } catch (error) {
    throw translateMovementError(error);
  }
}

/**
 * One call of a movement's batch form (its statement from movementCallStatement): one outcome per
 * item, in order. Not retried, not translated: a refused batch committed nothing, and the caller
 * runs its items alone.
 */
export async function callMovementBatch(
  pool: Pool,
  statement: { name: string; text: string },
  values: unknown[],
): Promise<MovementResult[]> {
  const { rows } = await pool.query<{ result: StoredOutcome; replayed: boolean }>({ ...statement, values });
  return rows.map((row) => ({ outcome: row.result, replayed: row.replayed }));
}

/**
 * What a movement's database failure means to the client: a twin request still holding the key
 * (or a record of the key written meanwhile without its lock, found by the unique index) is 409
 * (retry shortly), so is a conflict still there after the retries; a balance beyond numeric(19,4)
 * is 422. Anything else stays unexpected.
 */
export function translateMovementError(error: unknown): unknown {
  if (isTransactionConflict(error)) {
    return new ApiError(ErrorCode.Conflict, 'The movement met concurrent ones and was not applied; retry it');
  }
  const code = pgErrorCode(error);
  if (code === PgErrorCode.LockNotAvailable || isIdempotencyKeyTaken(error)) {
    return new ApiError(
      ErrorCode.IdempotencyKeyInFlight,
      'A request with this Idempotency-Key is still being processed; retry shortly',
    );
  }
  if (code === PgErrorCode.NumericValueOutOfRange) {
    return new ApiError(ErrorCode.ValidationFailed, 'A balance would exceed the largest supported amount', {
      errors: { amount: 'would overflow a balance' },
    });
  }
  return error;
}

/** A unique violation of a day's idempotency_keys partition: the key was recorded meanwhile. */
function isIdempotencyKeyTaken(error: unknown): boolean {
  const table = (error as { table?: unknown } | null)?.table;
  return (
    pgErrorCode(error) === PgErrorCode.UniqueViolation &&
    typeof table === 'string' &&
    table.startsWith('idempotency_keys')
  );
}
