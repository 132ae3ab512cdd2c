import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, AuthModuleOptions } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../common/errors/api-error';
import { IS_PUBLIC, REQUIRED_ROLES } from '../access/access.decorators';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { JwtStrategy } from './jwt.strategy';

type AuthRequest = FastifyRequest & { user?: AuthenticatedUser };

/** What a route's decorators ask of its caller; fixed once the app is built. */
interface AccessRule {
  isPublic: boolean;
  requiredRoles: string[];
}

/** The one guard (APP_GUARD): a valid bearer token on every non-public route, then the route's roles. */
@Injectable()
export class JwtAuthGuard extends AuthGuard() {
  // The options name this app's own strategy (JwtStrategy.strategyName), see AuthModule.
  constructor(
    private readonly reflector: Reflector,
    private readonly strategy: JwtStrategy,
    options: AuthModuleOptions,
  ) {
    super(options);
  }

  /** Per controller class, per handler: read from the metadata on a route's first request only. */
  private readonly rules = new WeakMap<object, WeakMap<object, AccessRule>>();

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const { isPublic, requiredRoles: required } = this.ruleFor(context);
    const request = context.switchToHttp().getRequest<AuthRequest>();
    if (isPublic) {
      // Public routes may still look at a valid token (health details for admins); a bad one is ignored.
      if (request.headers.authorization) await this.tryAuthenticate(context, request);
      return true;
    }

    await this.authenticate(context, request);
    if (!required.every((role) => request.user!.roles.includes(role))) {
      throw forbidden(`This operation requires ${required.join(', ')}`);
    }
    return true;
  }

  private ruleFor(context: ExecutionContext): AccessRule {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byHandler = this.rules.get(controller);
    if (!byHandler) this.rules.set(controller, (byHandler = new WeakMap()));
    let rule = byHandler.get(handler);
    if (!rule) {
      const targets = [handler, controller];
      rule = {
        isPublic: Boolean(this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)),
        requiredRoles: this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_ROLES, targets) ?? [],
      };
      byHandler.set(handler, rule);
    }
    return rule;
  }

  /** A token verified before skips passport's signature check; its revocation is still checked. */
  private async authenticate(context: ExecutionContext, request: AuthRequest): Promise<void> {
    const known = await this.strategy.knownCaller(request);
    if (known) request.user = known;
    else await super.canActivate(context);
    // What a caller's token unlocks is theirs alone: no shared or browser cache may keep it.
    void context.switchToHttp().getResponse<FastifyReply>().header('Cache-Control', 'no-store');
  }

  private async tryAuthenticate(context: ExecutionContext, request: AuthRequest): Promise<void> {
    try {
      await this.authenticate(context, request);
    } catch {
      request.user = undefined;
    }
  }

  /** passport's reasons, in the words the API has always used. */
  override handleRequest<T = AuthenticatedUser>(
    error: unknown,
    user: T | false,
    info: unknown,
    context: ExecutionContext,
  ): T {
    if (error) throw error;
    if (user) return user;
    const header = context.switchToHttp().getRequest<AuthRequest>().headers.authorization;
    if (!header) throw unauthorized('Missing bearer token');
    const reason = (info as { name?: string; message?: string } | undefined) ?? {};
    if (reason.message === 'No auth token') {
      throw unauthorized('Malformed Authorization header; expected "Bearer <token>"');
    }
    throw unauthorized(
      reason.name === 'TokenExpiredError' ? 'The bearer token has expired' : 'The bearer token is invalid',
    );
  }
}
