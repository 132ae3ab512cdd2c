import { AsyncLocalStorage } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Pool } from 'pg';
import type { Counter } from 'prom-client';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AppConfig } from '../config/app-config';
import { TransferRateLimiter } from '../transactions/transfer-rate-limiter';
import { AddressRateLimit } from './http/address-rate-limit';
import { outsideRequestContext } from './outside-request-context';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const requestContext = new AsyncLocalStorage<{ requestLogger: object }>();

/** Runs `consume` as a request would, then reports whether that request's store is still reachable. */
async function storeOutlivesRequest(consume: () => Promise<unknown>): Promise<boolean> {
  let store: WeakRef<object> | undefined;
  await (async () => {
    const requestStore = { requestLogger: { bindings: 'x'.repeat(1000) } };
    store = new WeakRef(requestStore);
    await requestContext.run(requestStore, consume);
  })();
  for (let i = 0; i < 3; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
  }
  return store!.deref() !== undefined;
}

describe('outsideRequestContext', () => {
  it('runs the function in the context it was bound in', () => {
    const bound = requestContext.run({ requestLogger: {} }, () =>
      outsideRequestContext(() => requestContext.getStore()),
    );
    expect(requestContext.run({ requestLogger: {} }, bound)).toBeDefined();
    const unbound = outsideRequestContext(() => requestContext.getStore());
    expect(requestContext.run({ requestLogger: {} }, unbound)).toBeUndefined();
  });

  it("control: a memory limiter called inside a request keeps that request's context for its window", async () => {
    const limiter = new RateLimiterMemory({ points: 5, duration: 60 });
    expect(await storeOutlivesRequest(() => limiter.consume('203.0.113.9'))).toBe(true);
  });

  it("AddressRateLimit does not keep the calling request's context", async () => {
    const limit = new AddressRateLimit(5, 'logins');
    expect(await storeOutlivesRequest(() => limit.consume('203.0.113.9'))).toBe(false);
  });

  it("TransferRateLimiter does not keep the calling request's context", async () => {
    const config = { rateLimitPerSecond: 5, rateLimitStore: 'memory' } as AppConfig;
    const limiter = new TransferRateLimiter(config, { inc: () => undefined } as unknown as Counter, {} as Pool);
    expect(await storeOutlivesRequest(() => limiter.consume('alice@upi'))).toBe(false);
  });
});
