import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export const ROLE_USER = 'ROLE_USER';
export const ROLE_ADMIN = 'ROLE_ADMIN';

/** Who the bearer token says the caller is. */
export interface AuthenticatedUser {
  upiId: string;
  referenceId: string;
  roles: string[];
}

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_ROLES = 'auth:roles';

/** The route needs no token. Everything else does: the guard is global. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The caller's token must carry every one of these roles (403 otherwise). */
export const Roles = (...roles: string[]) => SetMetadata(REQUIRED_ROLES, roles);

export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedUser => {
  const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
  if (!request.user) throw new Error('CurrentUser used on a public route');
  return request.user;
});

export function isSameUpiId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
