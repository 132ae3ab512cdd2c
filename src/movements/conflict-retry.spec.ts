import { ApiError } from '../common/errors/api-error';
import { ERROR_DESCRIPTORS, ErrorCode } from '../common/errors/error-code';
import { CONFLICT_RETRIES, conflictRetryPolicy, isTransactionConflict } from './conflict-retry';
import { translateMovementError } from './movement-call';

/** An error as pg raises it: the SQLSTATE in `code`. */
const pgError = (code: string) => Object.assign(new Error(`SQLSTATE ${code}`), { code });

/** A call that fails with each of `failures` in turn, then answers 'done'; counts its attempts. */
function failingThen(...failures: Error[]) {
  const call = {
    attempts: 0,
    run: async () => {
      const failure = failures[call.attempts++];
      if (failure) throw failure;
      return 'done';
    },
  };
  return call;
}

describe('the retry of a movement rolled back by a conflict', () => {
  it.each(['40P01', '40001'])('runs a call rolled back with %s again, until it goes through', async (code) => {
    const call = failingThen(pgError(code), pgError(code));
    await expect(conflictRetryPolicy().execute(call.run)).resolves.toBe('done');
    expect(call.attempts).toBe(3);
  });

  it('gives up after its bounded retries, with the conflict itself', async () => {
    const call = failingThen(...Array.from({ length: CONFLICT_RETRIES + 2 }, () => pgError('40P01')));
    await expect(conflictRetryPolicy().execute(call.run)).rejects.toMatchObject({ code: '40P01' });
    expect(call.attempts).toBe(CONFLICT_RETRIES + 1);
  });

  it.each(['55P03', '23505', '22003'])('never runs a call that failed otherwise (%s) again', async (code) => {
    const call = failingThen(pgError(code));
    await expect(conflictRetryPolicy().execute(call.run)).rejects.toMatchObject({ code });
    expect(call.attempts).toBe(1);
  });

  it.each(['40P01', '40001'])(
    'answers a conflict still there after the retries (%s) 409 conflict, never a 5xx',
    (code) => {
      const answer = translateMovementError(pgError(code));
      expect(answer).toBeInstanceOf(ApiError);
      expect((answer as ApiError).code).toBe(ErrorCode.Conflict);
      expect(ERROR_DESCRIPTORS[ErrorCode.Conflict].status).toBe(409);
    },
  );

  it('answers a key recorded meanwhile by a writer without its lock (23505 on idempotency_keys) 409 in flight', () => {
    const taken = Object.assign(pgError('23505'), { table: 'idempotency_keys_2026_11_28' });
    const answer = translateMovementError(taken);
    expect(answer).toBeInstanceOf(ApiError);
    expect((answer as ApiError).code).toBe(ErrorCode.IdempotencyKeyInFlight);
    const elsewhere = Object.assign(pgError('23505'), { table: 'transactions_2026_11' });
    expect(translateMovementError(elsewhere)).toBe(elsewhere);
  });

  it('waits a jittered delay of at most 100 ms before each retry, not the same delays every time', async () => {
    const delays = async () => {
      const seen: number[] = [];
      const policy = conflictRetryPolicy();
      policy.onRetry(({ delay }) => seen.push(delay));
      await policy.execute(failingThen(pgError('40P01'), pgError('40P01'), pgError('40P01')).run);
      return seen;
    };
    const runs = [await delays(), await delays(), await delays()];
    for (const run of runs) {
      expect(run).toHaveLength(3);
      for (const delay of run) expect(delay).toBeGreaterThan(0);
      for (const delay of run) expect(delay).toBeLessThanOrEqual(100);
    }
    expect(new Set(runs.map((run) => run.join(','))).size).toBeGreaterThan(1);
  });

  it('tells a conflict from other errors', () => {
    expect(
      [pgError('40P01'), pgError('40001'), pgError('40P02'), new Error('x'), undefined].map(isTransactionConflict),
    ).toEqual([true, true, false, false, false]);
  });
});
