import type { AuthenticatedUser } from '../access/authenticated-user';

/** Enough for every live token of a busy instance; the oldest entry goes first beyond it. */
const MAX_ENTRIES = 10_000;

/** A caller as its token names it, token included. */
export type TokenCaller = AuthenticatedUser & Required<Pick<AuthenticatedUser, 'token'>>;

/**
 * Callers of tokens whose signature and claims were already checked (passport-jwt, then the
 * strategy's claim checks), keyed by the whole token text, signature included: the same text
 * always carries the same claims, so only the expiry must be checked again. A client sends one
 * token many times; the profile showed its HMAC and JSON decoding on every request. Revocation
 * is checked on every request regardless.
 */
export class VerifiedTokens {
  private readonly callerByToken = new Map<string, TokenCaller>();

  remember(token: string, caller: TokenCaller): void {
    if (this.callerByToken.size >= MAX_ENTRIES) {
      this.callerByToken.delete(this.callerByToken.keys().next().value!);
    }
    this.callerByToken.set(token, caller);
  }

  /** The caller of a token verified before and not expired since (jsonwebtoken's rule: expired in the second of exp). */
  callerOf(token: string, nowMs = Date.now()): TokenCaller | undefined {
    const caller = this.callerByToken.get(token);
    if (caller === undefined) return undefined;
    if (Math.floor(nowMs / 1000) >= caller.token.expiresAtMs / 1000) {
      this.callerByToken.delete(token);
      return undefined;
    }
    return caller;
  }
}
