import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { RevocationsRepository } from './revocations.repository';

/** Revocations outlive their tokens by nothing; stale failure counts start again after a day. */
@Injectable()
export class AuthPurgeJob {
  private readonly logger = new Logger(AuthPurgeJob.name);

  constructor(
    private readonly revocations: RevocationsRepository,
    private readonly attempts: LoginAttemptsRepository,
  ) {}

  @Cron(CronExpression.EVERY_10_MINUTES, { name: 'auth-purge' })
  async run(): Promise<void> {
    try {
      const purged = (await this.revocations.purgeExpired()) + (await this.attempts.purgeStale());
      if (purged > 0) this.logger.log(`Purged ${purged} expired revocations and stale login counts`);
    } catch (error) {
      this.logger.error(`Auth purge failed: ${(error as Error).message}`);
    }
  }
}
