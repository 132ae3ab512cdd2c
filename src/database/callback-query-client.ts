import { Client } from 'pg';

type QueryFn = (...args: unknown[]) => unknown;

/**
 * pg's Client, except that a query() that returns a promise hands pg its callback when pg creates
 * the query (as pg-pool's pool.query() does), instead of letting pg attach one to the query
 * afterwards. The caller sees the same promise, answer and errors. Every query's error, whoever
 * asked, also goes to `queryFailed` (the disk-full window's look, disk-full-window.ts).
 *
 * Why: with pg's own promise path, V8 keeps every answer (the rows and their strings) alive through
 * the young generation's collections until the next full collection, although nothing refers to
 * it once the caller is done; with the callback given first it does not. Measured with 100 answers
 * of 25 rows: 1.9 MB promoted to the old space against 30 KB (test/medium/pg-pool.medium-spec.ts).
 * Under load the outbox relay's rows alone were a third of what the service promoted, and what is
 * promoted is what brings the full collections that stall every request (docs/decisions/0013-the-tail-at-1000-transfers-per-second.md).
 */
export class CallbackQueryClient extends Client {
  constructor(...args: ConstructorParameters<typeof Client>) {
    super(...args);
    const query = this.query.bind(this) as QueryFn;
    const withCallback: QueryFn = (...queryArgs) => {
      // A submittable (a cursor, a stream) reports its errors to its own handlers.
      if (typeof (queryArgs[0] as { submit?: unknown } | null)?.submit === 'function') return query(...queryArgs);
      const callback = queryArgs[queryArgs.length - 1];
      if (typeof callback === 'function') {
        queryArgs[queryArgs.length - 1] = (error: Error | null, ...rest: unknown[]) => {
          if (error) this.queryFailed(error);
          return (callback as QueryFn)(error, ...rest);
        };
        return query(...queryArgs);
      }
      return new Promise((resolve, reject) => {
        query(...queryArgs, (error: Error | null, result: unknown) => {
          if (!error) return resolve(result);
          this.queryFailed(error);
          reject(error);
        });
      }).catch((error: Error) => {
        // As pg does: the stack then leads back to the caller, not to the socket's read.
        Error.captureStackTrace(error);
        throw error;
      });
    };
    this.query = withCallback as Client['query'];
  }

  /** Sees the error of every query of this client; the caller still gets it. */
  protected queryFailed(_error: Error): void {}
}
