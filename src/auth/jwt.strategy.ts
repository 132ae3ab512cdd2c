import { createSecretKey } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import passport from 'passport';
import { Strategy } from 'passport-jwt';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { unauthorized } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { RevocationService } from './revocation.service';
import { RoleGrantsService } from './role-grants.service';
import type { TokenClaims } from './token.service';
import { type TokenCaller, VerifiedTokens } from './verified-tokens';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

const JWT_STRATEGY = 'jwt';

let strategiesMade = 0;

/** Only a well-formed "Bearer <header.payload.signature>" is read; anything else counts as no token. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  return (header && BEARER.exec(header)?.[1]) ?? null;
}

/**
 * passport-jwt verifies the signature (HS256 only, so `alg: none` and other algorithms fail)
 * and the expiry; validate() then insists on every claim we issue, `exp` and `jti` included,
 * and on the token not being revoked.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) implements OnModuleDestroy {
  /**
   * passport keeps strategies in one registry per process. Each app registers its own strategy
   * under a name of its own, so no app ever authenticates through another app's strategy (tests
   * run several instances in one process; a closed one must not serve the others).
   */
  declare readonly strategyName: string;

  private readonly verified = new VerifiedTokens();

  private readonly maxLifetimeSeconds: number;

  constructor(
    config: AppConfig,
    private readonly revocations: RevocationService,
    private readonly grants: RoleGrantsService,
  ) {
    // A KeyObject, made once: given the secret as a string, jsonwebtoken first tries (and fails)
    // to parse it as a public key on every request, which the CPU profile showed on the hot path.
    // passport-jwt hands it to jsonwebtoken untouched; its typings only name string | Buffer.
    const secretOrKey = createSecretKey(Buffer.from(config.jwtSecret)) as unknown as Buffer;
    super({ jwtFromRequest: bearerToken, secretOrKey, algorithms: ['HS256'], passReqToCallback: true });
    this.maxLifetimeSeconds = config.jwtExpirationMs / 1000;
  }

  // Called by the mixin's constructor to register this strategy.
  getPassportInstance(): passport.PassportStatic {
    const name = `${JWT_STRATEGY}-${++strategiesMade}`;
    Object.defineProperty(this, 'strategyName', { value: name });
    const register = (_name: string, strategy: passport.Strategy) => passport.use(name, strategy);
    return { use: register } as unknown as passport.PassportStatic;
  }

  onModuleDestroy(): void {
    passport.unuse(this.strategyName);
  }

  /** Called by passport-jwt once the signature and expiry hold; the token is then remembered as verified. */
  async validate(request: FastifyRequest, claims: Partial<TokenClaims>): Promise<AuthenticatedUser> {
    const caller = callerOf(claims, this.maxLifetimeSeconds);
    await this.refuseRevoked(caller);
    this.verified.remember(bearerToken(request)!, caller);
    return this.withCurrentRoles(caller);
  }

  /** The caller of a token verified before and not expired since, or undefined for passport to verify it. */
  async knownCaller(request: FastifyRequest): Promise<AuthenticatedUser | undefined> {
    const token = bearerToken(request);
    const caller = token === null ? undefined : this.verified.callerOf(token);
    if (!caller) return undefined;
    await this.refuseRevoked(caller);
    return this.withCurrentRoles(caller);
  }

  /** Roles are the account's grants now (RoleGrantsService), never what the token claims. */
  private async withCurrentRoles(caller: TokenCaller): Promise<AuthenticatedUser> {
    const roles = await this.grants.rolesOf(caller);
    return Object.freeze({ ...caller, roles: roles as string[] });
  }

  private async refuseRevoked(caller: TokenCaller): Promise<void> {
    if (await this.revocations.isRevoked(caller.upiId, caller.token.id)) {
      throw unauthorized('The bearer token has been revoked');
    }
  }
}

/** Insists on every claim we issue, `exp` and `jti` included. Frozen: one caller serves every request with its token. */
function callerOf(claims: Partial<TokenClaims>, maxLifetimeSeconds: number): TokenCaller {
  const { sub, referenceId, roles, jti, exp, iat } = claims;
  if (typeof exp !== 'number') throw unauthorized('The bearer token has no expiry (exp)');
  // A token living longer than this service issues was not issued by it as configured now.
  if (typeof iat !== 'number' || exp - iat > maxLifetimeSeconds || iat > Date.now() / 1000 + 60) {
    throw unauthorized('The bearer token lives longer than JWT_EXPIRATION_MS allows');
  }
  if (typeof sub !== 'string' || typeof referenceId !== 'string' || !Array.isArray(roles) || typeof jti !== 'string') {
    throw unauthorized('The bearer token is missing required claims');
  }
  return Object.freeze({
    upiId: sub,
    referenceId,
    roles: Object.freeze([...(roles as string[])]) as string[],
    token: Object.freeze({ id: jti, expiresAtMs: exp * 1000 }),
  });
}
