// Owns no table of its own: the partitions of transactions, ledger_entries, outbox_events,
// idempotency_keys and webhook_deliveries, made ahead of time and dropped when expired.
import { Module } from '@nestjs/common';
import { PartitionsJob } from './partitions.job';
import { PartitionsRepository } from './partitions.repository';
import { RetentionJob } from './retention.job';

@Module({
  providers: [PartitionsRepository, PartitionsJob, RetentionJob],
  exports: [PartitionsJob, RetentionJob],
})
export class PartitionsModule {}
