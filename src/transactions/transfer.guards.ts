import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { requireSelf } from '../access/access-rules';
import type { AuthenticatedUser } from '../access/authenticated-user';
import { TransferRateLimiter } from './transfer-rate-limiter';

type AuthenticatedRequest = FastifyRequest & { user?: AuthenticatedUser };

function callerOf(context: ExecutionContext): { request: AuthenticatedRequest; caller: AuthenticatedUser } {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.user) throw new Error('Transfer guards run after authentication');
  return { request, caller: request.user };
}

/**
 * Only the caller may send from their account (403, docs/api-guide.md "Send money"), checked
 * before the rate limit, the body's validation and any lock or write. A missing or non-string
 * sender is the validation's 422.
 */
@Injectable()
export class SenderIsCallerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { request, caller } = callerOf(context);
    const sender = (request.body as { senderUpiId?: unknown } | null)?.senderUpiId;
    if (typeof sender === 'string') {
      requireSelf(caller, sender, 'senderUpiId must be the UPI ID of the authenticated user');
    }
    return true;
  }
}

/** RATE_LIMIT_PER_SECOND per user (429), after identity and before the key and the body are read. */
@Injectable()
export class TransferRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: TransferRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.limiter.consume(callerOf(context).caller.upiId);
    return true;
  }
}
