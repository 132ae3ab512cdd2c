import { Injectable } from '@nestjs/common';
import { AddressRateLimit } from '../common/http/address-rate-limit';
import { AppConfig } from '../config/app-config';

/**
 * REGISTRATION_RATE_LIMIT_PER_MINUTE registrations per client address (0: off, the development
 * default, so test harnesses registering many users keep working; 10 in production). Each one
 * may run a PIN hash, so an unlimited stream of them is a denial of service.
 */
@Injectable()
export class RegistrationRateLimiter extends AddressRateLimit {
  constructor(config: AppConfig) {
    super(config.registrationRateLimitPerMinute, 'registrations');
  }
}
