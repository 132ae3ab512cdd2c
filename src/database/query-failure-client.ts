import { Client } from 'pg';

type QueryFn = (...args: unknown[]) => unknown;

/**
 * pg's Client, except that every query's error, whoever asked, also goes to `queryFailed` (the
 * disk-full window's look, disk-full-window.ts). The caller gets pg's own promise or callback,
 * answer and error.
 */
export class QueryFailureClient extends Client {
  constructor(...args: ConstructorParameters<typeof Client>) {
    super(...args);
    const query = this.query.bind(this) as QueryFn;
    const watched: QueryFn = (...queryArgs) => {
      // A submittable (a cursor, a stream) reports its errors to its own handlers.
      if (typeof (queryArgs[0] as { submit?: unknown } | null)?.submit === 'function') return query(...queryArgs);
      const callback = queryArgs[queryArgs.length - 1];
      if (typeof callback !== 'function') {
        return (query(...queryArgs) as Promise<unknown>).catch((error: Error) => {
          this.queryFailed(error);
          throw error;
        });
      }
      queryArgs[queryArgs.length - 1] = (error: Error | null, ...rest: unknown[]) => {
        if (error) this.queryFailed(error);
        return (callback as QueryFn)(error, ...rest);
      };
      return query(...queryArgs);
    };
    this.query = watched as Client['query'];
  }

  /** Sees the error of every query of this client; the caller still gets it. */
  protected queryFailed(_error: Error): void {}
}
