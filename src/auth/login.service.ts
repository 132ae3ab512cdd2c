import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { hashPin, verifyPin } from '../access/pin-hash';
import { ApiError, unauthorized } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { LOGIN_FAILURES, LOGIN_LOCKOUTS, type LoginFailureReason } from './login-metrics';
import { LoginRateLimiter } from './login-rate-limiter';

/** The one answer for unknown UPI ID, missing PIN and wrong PIN: nobody can tell which it was. */
const LOGIN_REFUSED = 'Unknown UPI ID';

/**
 * Login: per-address rate limit, then the UPI ID's lock, then the PIN. Unknown users, missing
 * PINs and wrong PINs take the same path (count, one scrypt, same 401), so they answer alike
 * and in similar time.
 */
@Injectable()
export class LoginService implements OnModuleInit {
  private dummyHash = '';

  constructor(
    private readonly users: UsersService,
    private readonly attempts: LoginAttemptsRepository,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly config: AppConfig,
    @InjectMetric(LOGIN_FAILURES) private readonly failures: Counter<'reason'>,
    @InjectMetric(LOGIN_LOCKOUTS) private readonly lockouts: Counter,
  ) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await hashPin('000000');
  }

  async login(upiId: string, pin: string | undefined, clientIp: string): Promise<User> {
    await this.guard(this.rateLimiter.consume(clientIp), 'rate_limited');
    const user = await this.users.findForLogin(upiId);
    // The spec's login: a user without a PIN, while PINs are optional, needs nothing more.
    if (user && !user.pinHash && !this.config.authPinRequired) return user;

    const attempt = await this.attempts.start(upiId);
    if (!attempt.allowed) {
      this.failures.inc({ reason: 'locked' });
      if (attempt.lockedNow) this.lockouts.inc();
      throw new ApiError(ErrorCode.LoginLocked, 'Too many failed logins for this UPI ID; try again later', {
        headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
      });
    }
    if (!(await this.pinMatches(user, pin))) {
      this.failures.inc({ reason: 'unknown_or_wrong_pin' });
      if (await this.attempts.failed(upiId)) this.lockouts.inc();
      throw unauthorized(LOGIN_REFUSED);
    }
    await this.attempts.succeeded(upiId);
    delete user!.pinHash;
    return user!;
  }

  /** Always one scrypt: against a dummy hash when there is no real one, so every refusal costs the same. */
  private async pinMatches(user: User | null, pin: string | undefined): Promise<boolean> {
    const matches = await verifyPin(pin ?? '', user?.pinHash ?? this.dummyHash);
    return matches && !!user?.pinHash && pin !== undefined;
  }

  private async guard(check: Promise<void>, reason: LoginFailureReason): Promise<void> {
    try {
      await check;
    } catch (error) {
      this.failures.inc({ reason });
      throw error;
    }
  }
}
