import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from './authenticated-user';

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
