import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** The tamper-evidence check of the ledger, over HTTP (the CLI is scripts/audit/audit.ts). */
@Module({ controllers: [AuditController], providers: [AuditService] })
export class AuditModule {}
