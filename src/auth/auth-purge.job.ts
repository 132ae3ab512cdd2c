import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { runPurge } from '../common/scheduled-purge';
import { DatabaseOutages } from '../common/errors/database-outages';
import { LoginAttemptsRepository } from './login-attempts.repository';
import { RevocationsRepository } from './revocations.repository';

/** Revocations outlive their tokens by nothing; stale failure counts start again after a day. */
@Injectable()
export class AuthPurgeJob {
  private readonly logger = new Logger(AuthPurgeJob.name);

  constructor(
    private readonly revocations: RevocationsRepository,
    private readonly attempts: LoginAttemptsRepository,
    private readonly outages: DatabaseOutages,
  ) {}

  @Cron(CronExpression.EVERY_10_MINUTES, { name: 'auth-purge' })
  run(): Promise<void> {
    return runPurge(
      this.logger,
      'Auth purge',
      'expired revocations and stale login counts',
      async () => (await this.revocations.purgeExpired()) + (await this.attempts.purgeStale()),
      this.outages,
    );
  }
}
