// Owns no table: the tamper-evidence audit of ledger_entries, transactions and users (read only),
// over HTTP (admin), from the CLI (scripts/audit/audit.ts) and hourly as metrics.
import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';
import { AuditMetrics, auditMetricProviders } from './audit-metrics';

/** The tamper-evidence check of the ledger, over HTTP (the CLI is scripts/audit/audit.ts) and hourly as metrics. */
@Module({ controllers: [AuditController], providers: [AuditService, AuditMetrics, ...auditMetricProviders] })
export class AuditModule {}
