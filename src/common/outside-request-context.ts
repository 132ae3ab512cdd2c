import { AsyncResource } from 'node:async_hooks';

/**
 * `fn`, always run in the async context it was bound in (call this at construction, outside any
 * request). Timers and other async resources that `fn` creates then do not capture the calling
 * request's context: a per-key timer armed inside a request (rate-limiter-flexible's memory store
 * arms one per key and window) would keep that request's logger and bindings reachable for the
 * whole window (a second for transfers, a minute for logins).
 */
export function outsideRequestContext<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return AsyncResource.bind(fn);
}
