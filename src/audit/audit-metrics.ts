import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { DatabaseOutages } from '../common/errors/database-outages';
import { AppConfig } from '../config/app-config';
import { AuditService } from './audit.service';

const FINDINGS = 'payments_ledger_audit_findings';
const LAST_RUN = 'payments_ledger_audit_last_run_timestamp_seconds';

export const auditMetricProviders = [
  makeGaugeProvider({
    name: FINDINGS,
    help: 'Broken entries, accounts and transactions, and orphans, found by the last periodic ledger audit (0: intact)',
  }),
  makeGaugeProvider({
    name: LAST_RUN,
    help: 'When this instance last completed the periodic ledger audit (0: not yet)',
  }),
];

// The first run waits for the start-up to settle; then every LEDGER_AUDIT_INTERVAL_MINUTES.
const FIRST_RUN_MS = 5 * 60_000;

/**
 * The ledger audit (GET /api/v1/admin/audit) on a schedule, as metrics, so that an alert fires
 * when money's integrity breaks without anyone asking. Every instance runs it; the audit is
 * read-only and takes no locks writers wait for. It reads the whole ledger in one snapshot, and
 * while that snapshot is open PostgreSQL keeps every row version it might see: on a large ledger
 * (50 M entries: more than 25 minutes) the balance updates stop being HOT and transfers slow down
 * (docs/operations.md, "The periodic ledger audit"). LEDGER_AUDIT_INTERVAL_MINUTES=0 turns it off.
 */
@Injectable()
export class AuditMetrics implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LedgerAudit');
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly audit: AuditService,
    @InjectMetric(FINDINGS) private readonly findings: Gauge,
    @InjectMetric(LAST_RUN) private readonly lastRun: Gauge,
    private readonly outages: DatabaseOutages,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const everyMs = this.config.ledgerAuditIntervalMinutes * 60_000;
    if (everyMs === 0) return;
    this.timers.push(
      setTimeout(
        () => {
          void this.runOnce();
          this.timers.push(setInterval(() => void this.runOnce(), everyMs).unref());
        },
        Math.min(FIRST_RUN_MS, everyMs),
      ).unref(),
    );
  }

  /** Whether this instance audits on a schedule (LEDGER_AUDIT_INTERVAL_MINUTES > 0). */
  get scheduled(): boolean {
    return this.timers.length > 0;
  }

  onApplicationShutdown(): void {
    this.timers.forEach((timer) => clearTimeout(timer));
  }

  /** One audit; a failure to run (database down) leaves the last result and its time as they were. */
  async runOnce(): Promise<void> {
    try {
      const report = await this.audit.run();
      const { brokenEntries, brokenAccounts, unbalancedTransactions, orphans } = report.counts;
      // A global sum other than 0 is a finding too, even when no single record shows it.
      const sumBroken = report.ok || brokenEntries + brokenAccounts + unbalancedTransactions + orphans > 0 ? 0 : 1;
      this.findings.set(brokenEntries + brokenAccounts + unbalancedTransactions + orphans + sumBroken);
      this.lastRun.set(Date.now() / 1000);
      if (!report.ok) this.logger.error(`Ledger audit found broken records: ${JSON.stringify(report.counts)}`);
    } catch (error) {
      if (!this.outages.absorbs('ledger-audit', error)) {
        this.logger.warn(`Periodic ledger audit did not run: ${(error as Error).message}`);
      }
    }
  }
}
