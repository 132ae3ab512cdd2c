import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';
import { AuditMetrics, auditMetricProviders } from './audit-metrics';

/** The tamper-evidence check of the ledger, over HTTP (the CLI is scripts/audit/audit.ts) and hourly as metrics. */
@Module({ controllers: [AuditController], providers: [AuditService, AuditMetrics, ...auditMetricProviders] })
export class AuditModule {}
