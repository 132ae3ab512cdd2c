import { type TokenCaller, VerifiedTokens } from './verified-tokens';

describe('VerifiedTokens', () => {
  const caller: TokenCaller = {
    upiId: 'alice@okbank',
    referenceId: 'r1',
    roles: ['USER'],
    token: { id: 'j1', expiresAtMs: 1_000_000 },
  };

  it('knows a remembered token until the second of its exp, as jsonwebtoken does', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.c', caller);
    expect(tokens.callerOf('a.b.c', 999_999)).toBe(caller);
    expect(tokens.callerOf('a.b.c', 1_000_000)).toBeUndefined();
    // Forgotten once expired, even if the clock were to go back.
    expect(tokens.callerOf('a.b.c', 999_000)).toBeUndefined();
  });

  it('knows only the exact token text', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.c', caller);
    expect(tokens.callerOf('a.b.d', 0)).toBeUndefined();
  });

  it('forgets the oldest token beyond its bound', () => {
    const tokens = new VerifiedTokens();
    for (let i = 0; i <= 10_000; i += 1) tokens.remember(`t${i}`, caller);
    expect(tokens.callerOf('t0', 0)).toBeUndefined();
    expect(tokens.callerOf('t1', 0)).toBe(caller);
    expect(tokens.callerOf('t10000', 0)).toBe(caller);
  });
});
