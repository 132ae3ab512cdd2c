import { Module } from '@nestjs/common';
import { IdempotencyPurgeJob } from './idempotency-purge.job';

/** Claiming and completing keys happens inside the transfer function (one transaction); this module purges them. */
@Module({ providers: [IdempotencyPurgeJob], exports: [IdempotencyPurgeJob] })
export class IdempotencyModule {}
