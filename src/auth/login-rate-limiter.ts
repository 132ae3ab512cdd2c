import { Injectable } from '@nestjs/common';
import { AddressRateLimit } from '../common/http/address-rate-limit';
import { AppConfig } from '../config/app-config';

/**
 * LOGIN_RATE_LIMIT_PER_MINUTE login attempts per client IP (0: off). Per process, while the
 * lockout (in PostgreSQL) still bounds guesses per UPI ID exactly.
 */
@Injectable()
export class LoginRateLimiter extends AddressRateLimit {
  constructor(config: AppConfig) {
    super(config.loginRateLimitPerMinute, 'login attempts');
  }
}
