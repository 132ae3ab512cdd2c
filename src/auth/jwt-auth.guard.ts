import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../common/errors/api-error';
import { IS_PUBLIC, REQUIRED_ROLES } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import type { TokenClaims } from './token.service';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/** The one guard: a valid HS256 bearer token on every non-public route, then the route's roles. */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) {
      // Public routes may still look at a valid token (health details for admins); a bad one is ignored.
      request.user = this.tryAuthenticate(request.headers.authorization);
      return true;
    }

    request.user = this.authenticate(request.headers.authorization);

    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_ROLES, targets) ?? [];
    if (!required.every((role) => request.user!.roles.includes(role))) {
      throw forbidden(`This operation requires ${required.join(', ')}`);
    }
    return true;
  }

  private tryAuthenticate(header: string | undefined): AuthenticatedUser | undefined {
    if (!header) return undefined;
    try {
      return this.authenticate(header);
    } catch {
      return undefined;
    }
  }

  private authenticate(header: string | undefined): AuthenticatedUser {
    if (!header) throw unauthorized('Missing bearer token');
    const match = BEARER.exec(header);
    if (!match) throw unauthorized('Malformed Authorization header; expected "Bearer <token>"');
    let claims: TokenClaims;
    try {
      claims = this.jwt.verify<TokenClaims>(match[1], { algorithms: ['HS256'] });
    } catch (error) {
      const expired = (error as { name?: string }).name === 'TokenExpiredError';
      throw unauthorized(expired ? 'The bearer token has expired' : 'The bearer token is invalid');
    }
    if (typeof claims.sub !== 'string' || typeof claims.referenceId !== 'string' || !Array.isArray(claims.roles)) {
      throw unauthorized('The bearer token is missing required claims');
    }
    return { upiId: claims.sub, referenceId: claims.referenceId, roles: claims.roles };
  }
}
