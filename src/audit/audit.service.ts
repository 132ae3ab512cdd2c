import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { PrimaryLocator } from '../database/primary-locator';
import { type AuditReport, auditLedger } from './ledger-audit';

/**
 * The audit reads the whole ledger in one snapshot: minutes on a large one, far past the serving
 * pool's per-statement bound (DATABASE_QUERY_TIMEOUT_MS), so it has a bound of its own.
 */
export const AUDIT_TIMEOUT_MS = 30 * 60_000;

@Injectable()
export class AuditService {
  constructor(private readonly locator: PrimaryLocator) {}

  /** On a connection of its own to the primary, apart from the pool, so that no request waits behind it either. */
  async run(): Promise<AuditReport> {
    const client = new Client({
      connectionString: this.locator.current.url,
      connectionTimeoutMillis: 5000,
      statement_timeout: AUDIT_TIMEOUT_MS,
      query_timeout: AUDIT_TIMEOUT_MS + 1000,
    });
    // A server that drops the connection fails the query in flight; the event itself is not news.
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await auditLedger(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
