import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../database/pg-pool';
import { type AuditReport, auditLedger } from './ledger-audit';

@Injectable()
export class AuditService {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async run(): Promise<AuditReport> {
    const client = await this.pool.connect();
    try {
      return await auditLedger(client);
    } finally {
      client.release();
    }
  }
}
