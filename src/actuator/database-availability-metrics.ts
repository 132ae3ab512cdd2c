import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';
import { DatabaseAvailability } from '../database/database-availability';

const PRIMARY_AVAILABLE = 'payments_db_primary_available';
const UNAVAILABLE_FAILURES = 'payments_db_unavailable_failures_total';

export const databaseAvailabilityMetricProviders = [
  makeGaugeProvider({
    name: PRIMARY_AVAILABLE,
    help: 'Whether a writable PostgreSQL primary is there: 1 yes, 0 no (requests answer 503)',
  }),
  makeCounterProvider({
    name: UNAVAILABLE_FAILURES,
    help: 'Operations that failed for want of a database, by component (requests, pool, outbox-relay, ...)',
    labelNames: ['component'],
  }),
];

/** The availability tracker's story between its two log lines of an outage: how many operations failed, and where. */
@Injectable()
export class DatabaseAvailabilityMetrics implements OnModuleInit {
  constructor(
    private readonly availability: DatabaseAvailability,
    @InjectMetric(PRIMARY_AVAILABLE) private readonly primaryAvailable: Gauge,
    @InjectMetric(UNAVAILABLE_FAILURES) private readonly failures: Counter,
  ) {}

  onModuleInit(): void {
    this.primaryAvailable.set(this.availability.outage ? 0 : 1);
    this.availability.listen({
      failed: (component) => this.failures.inc({ component }),
      changed: (available) => this.primaryAvailable.set(available ? 1 : 0),
    });
  }
}
