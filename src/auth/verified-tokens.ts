import type { TokenClaims } from './token.service';

/** Enough for every live token of a busy instance; the oldest entry goes first beyond it. */
const MAX_ENTRIES = 10_000;

/**
 * Tokens whose signature and claims were already checked by passport-jwt (jsonwebtoken), keyed
 * by the whole token text, signature included: the same text always carries the same claims, so
 * only the expiry must be checked again. A client sends one token many times; the profile showed
 * its HMAC and JSON decoding on every request. Revocation is checked on every request regardless.
 */
export class VerifiedTokens {
  private readonly claimsByToken = new Map<string, { claims: Partial<TokenClaims>; exp: number }>();

  remember(token: string, claims: Partial<TokenClaims>, exp: number): void {
    if (this.claimsByToken.size >= MAX_ENTRIES) {
      this.claimsByToken.delete(this.claimsByToken.keys().next().value!);
    }
    this.claimsByToken.set(token, { claims, exp });
  }

  /** The claims of a token verified before and not expired since (jsonwebtoken's own rule). */
  claimsOf(token: string, nowMs = Date.now()): Partial<TokenClaims> | undefined {
    const entry = this.claimsByToken.get(token);
    if (entry === undefined) return undefined;
    if (Math.floor(nowMs / 1000) >= entry.exp) {
      this.claimsByToken.delete(token);
      return undefined;
    }
    return entry.claims;
  }
}
