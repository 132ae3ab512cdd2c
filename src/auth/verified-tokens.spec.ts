import { VerifiedTokens } from './verified-tokens';

describe('VerifiedTokens', () => {
  const claims = { sub: 'alice@okbank', jti: 'j1', exp: 1_000 };

  it('knows a remembered token until the second of its exp, as jsonwebtoken does', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.c', claims, 1_000);
    expect(tokens.claimsOf('a.b.c', 999_999)).toBe(claims);
    expect(tokens.claimsOf('a.b.c', 1_000_000)).toBeUndefined();
    // Forgotten once expired, even if the clock were to go back.
    expect(tokens.claimsOf('a.b.c', 999_000)).toBeUndefined();
  });

  it('knows only the exact token text', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.c', claims, 1_000);
    expect(tokens.claimsOf('a.b.d', 0)).toBeUndefined();
  });

  it('forgets the oldest token beyond its bound', () => {
    const tokens = new VerifiedTokens();
    for (let i = 0; i <= 10_000; i += 1) tokens.remember(`t${i}`, claims, 1_000);
    expect(tokens.claimsOf('t0', 0)).toBeUndefined();
    expect(tokens.claimsOf('t1', 0)).toBe(claims);
    expect(tokens.claimsOf('t10000', 0)).toBe(claims);
  });
});
