import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { hashPin, verifyPin } from '../access/pin-hash';
import { ApiError, unauthorized } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { AppConfig } from '../config/app-config';
import type { UserRow } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { LOGIN_FAILURES, LOGIN_LOCKOUTS, type LoginFailureReason } from './login-metrics';
import { LoginRateLimiter } from './login-rate-limiter';

/** The one answer for unknown UPI ID, missing PIN and wrong PIN: nobody can tell which it was. */
const LOGIN_REFUSED = 'Unknown UPI ID';

/**
 * Login: per-address rate limit, then the lock of the UPI ID for this source (the client address
 * if the owner logged in from it before, else every other address together; counted for the
 * account that holds the ID now, so failures from before it was registered are not its own),
 * then the PIN.
 * Unknown users, missing PINs and wrong PINs take the same path (count, same 401) in similar
 * time; only a real PIN hash runs scrypt: an unknown UPI ID waits as long as a check typically
 * takes instead, which costs no CPU, so a flood of made-up IDs cannot fill the cores.
 */
@Injectable()
export class LoginService implements OnModuleInit {
  /** How long one PIN check takes here, as a moving average; unknown IDs wait this long. */
  private typicalCheckMs = 50;

  constructor(
    private readonly users: UsersService,
    private readonly attempts: LoginAttemptsRepository,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly config: AppConfig,
    @InjectMetric(LOGIN_FAILURES) private readonly failures: Counter<'reason'>,
    @InjectMetric(LOGIN_LOCKOUTS) private readonly lockouts: Counter,
  ) {}

  async onModuleInit(): Promise<void> {
    const started = performance.now();
    await verifyPin('000000', await hashPin('000000'));
    this.typicalCheckMs = performance.now() - started;
  }

  async login(upiId: string, pin: string | undefined, clientIp: string): Promise<UserRow> {
    await this.guard(this.rateLimiter.consume(clientIp), 'rate_limited');
    const user = await this.users.findForLogin(upiId);
    // The spec's login: a user without a PIN, while PINs are optional, needs nothing more.
    if (user && !user.pinHash && !this.config.authPinRequired) return user;

    const key = await this.attempts.keyFor(upiId, user?.id ?? null, clientIp);
    const attempt = await this.attempts.start(key);
    if (!attempt.allowed) {
      this.failures.inc({ reason: 'locked' });
      if (attempt.lockedNow) this.lockouts.inc();
      const detail = attempt.permanent
        ? 'Too many failed logins for this UPI ID from this address: login from it is locked until an operator unlocks it'
        : 'Too many failed logins for this UPI ID; try again later';
      throw new ApiError(ErrorCode.LoginLocked, detail, {
        headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
      });
    }
    if (!(await this.pinMatches(user, pin))) {
      this.failures.inc({ reason: 'unknown_or_wrong_pin' });
      if (await this.attempts.failed(key)) this.lockouts.inc();
      throw unauthorized(LOGIN_REFUSED);
    }
    await this.attempts.succeeded(key, clientIp);
    delete user!.pinHash;
    return user!;
  }

  /**
   * One scrypt when there is a real hash to check; otherwise a wait as long as a check typically
   * takes (a moving average of real ones), so the answer comes in similar time at no CPU cost.
   */
  private async pinMatches(user: UserRow | null, pin: string | undefined): Promise<boolean> {
    if (!user?.pinHash) {
      await sleep(this.typicalCheckMs * (0.9 + Math.random() * 0.2));
      return false;
    }
    const started = performance.now();
    const matches = await verifyPin(pin ?? '', user.pinHash);
    this.typicalCheckMs = 0.9 * this.typicalCheckMs + 0.1 * (performance.now() - started);
    return matches && pin !== undefined;
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
