import { createSecretKey } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-jwt';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { unauthorized } from '../common/errors/api-error';
import { AppConfig } from '../config/app-config';
import { RevocationService } from './revocation.service';
import type { TokenClaims } from './token.service';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

export const JWT_STRATEGY = 'jwt';

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
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    config: AppConfig,
    private readonly revocations: RevocationService,
  ) {
    // A KeyObject, made once: given the secret as a string, jsonwebtoken first tries (and fails)
    // to parse it as a public key on every request, which the CPU profile showed on the hot path.
    // passport-jwt hands it to jsonwebtoken untouched; its typings only name string | Buffer.
    const secretOrKey = createSecretKey(Buffer.from(config.jwtSecret)) as unknown as Buffer;
    super({ jwtFromRequest: bearerToken, secretOrKey, algorithms: ['HS256'] });
  }

  async validate(claims: Partial<TokenClaims>): Promise<AuthenticatedUser> {
    const { sub, referenceId, roles, jti, exp } = claims;
    if (typeof exp !== 'number') throw unauthorized('The bearer token has no expiry (exp)');
    if (
      typeof sub !== 'string' ||
      typeof referenceId !== 'string' ||
      !Array.isArray(roles) ||
      typeof jti !== 'string'
    ) {
      throw unauthorized('The bearer token is missing required claims');
    }
    if (await this.revocations.isRevoked(sub, jti)) throw unauthorized('The bearer token has been revoked');
    return { upiId: sub, referenceId, roles: roles as string[], token: { id: jti, expiresAtMs: exp * 1000 } };
  }
}
