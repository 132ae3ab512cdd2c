import { AsyncResource } from 'node:async_hooks';

/**
 * `fn`, always run in the async context it was bound in (call this at construction, outside any
 * request). Timers and other async resources that `fn` creates then do not capture the calling
 * request's context: a per-key timer armed inside a request (rate-limiter-flexible's memory store
 * arms one per key and window) would keep that request's logger and bindings reachable for the
 * whole window, so a large share of requests outlived V8's young generation and filled the old
 * one, which then needed a full collection every few seconds under load.
 */
export function outsideRequestContext<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return AsyncResource.bind(fn);
}
