import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { DISK_FULL_WINDOW, EMBEDDED_DATABASE } from '../database/database.module';
import { DatabaseAvailability } from '../database/database-availability';
import type { DiskFullWindow } from '../database/disk-full-window';
import type { EmbeddedDatabase } from '../database/embedded-postgres';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { CircuitBreakers, UPI_CIRCUIT } from '../resilience/circuit-breakers';
import { TransferRateLimiter } from '../transactions/transfer-rate-limiter';

export type HealthStatus = 'UP' | 'DOWN';

export interface HealthReport {
  status: HealthStatus;
  components: Record<string, { status: HealthStatus; details?: Record<string, unknown> }>;
}

/**
 * Circuits whose opening takes the service out of rotation: without UPI verification no
 * registration or transfer can succeed. An open aiCircuitBreaker is reported but keeps the
 * service ready, because the rule-based fallback still answers.
 */
const ESSENTIAL_CIRCUITS = [UPI_CIRCUIT];

const waitMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const WRITABLE_SQL = "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable";

@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly dataSource: DataSource,
    private readonly circuits: CircuitBreakers,
    private readonly rateLimiter: TransferRateLimiter,
    private readonly config: AppConfig,
    private readonly relay: OutboxRelay,
    @Inject(EMBEDDED_DATABASE) private readonly embedded: EmbeddedDatabase | null,
    @Inject(DISK_FULL_WINDOW) private readonly diskFull: DiskFullWindow,
    private readonly availability: DatabaseAvailability,
  ) {}

  /**
   * Liveness: DOWN only while its embedded PostgreSQL has stayed dead past the restart window, so
   * that an orchestrator restarts the process; restarts go on meanwhile, and it is UP once back.
   */
  liveness(): HealthStatus {
    return this.embedded?.failed ? 'DOWN' : 'UP';
  }

  /** The database, the circuit breakers and the rate limiter, in Spring Boot's actuator shape. */
  async report(): Promise<HealthReport> {
    let result: { details: Record<string, { status: string } & Record<string, unknown>> };
    try {
      result = await this.health.check([
        () => this.database(),
        () => this.circuitBreakers(),
        () => this.rateLimiterHealth(),
      ]);
    } catch (error) {
      // Terminus throws when an indicator is down; the details are in the response.
      result = (error as { getResponse(): typeof result }).getResponse();
    }
    const components: HealthReport['components'] = {};
    for (const [name, { status, ...details }] of Object.entries(result.details)) {
      components[name] = { status: status === 'up' ? 'UP' : 'DOWN', details };
    }
    const status = Object.values(components).every((c) => c.status === 'UP') ? 'UP' : 'DOWN';
    // Added after the status: a broker outage is shown to admins but never takes readiness down,
    // because the outbox keeps every event until the broker is back.
    components.kafka = this.relay.state.health(this.config.kafkaBrokers);
    return { status, components };
  }

  /**
   * DOWN while there is no writable primary (database-availability.ts), else a round trip to
   * PostgreSQL through the pool, bounded so a hung connection reads as DOWN, that also asks whether
   * the server still takes writes (a demoted one does not); and DOWN while writes were refused for
   * lack of disk space in the last seconds (disk-full-window.ts).
   */
  private async database() {
    const session = this.indicators.check('db');
    // While there is no primary, readiness looks itself rather than wait for the next round.
    if (this.availability.outage) await Promise.race([this.availability.recheck(), waitMs(1000)]);
    const outage = this.availability.outage;
    if (outage) return session.down({ error: `no writable primary: ${outage.reason}` });
    const full = this.diskFull.recent();
    if (full) return session.down({ error: `disk full ${full.ageMs} ms ago: ${full.message}` });
    try {
      const [answer] = await Promise.race([
        this.dataSource.query<{ writable: boolean }[]>(WRITABLE_SQL),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out after 1000 ms')), 1000).unref()),
      ]);
      if (answer.writable) return session.up();
      this.availability.suspect();
      return session.down({ error: 'the database server takes no writes (a standby, or read-only)' });
    } catch (error) {
      this.availability.absorbs('readiness', error);
      return session.down({ error: (error as Error).message });
    }
  }

  private circuitBreakers() {
    const states = this.circuits.states();
    const session = this.indicators.check('circuitBreakers');
    const refusing = this.circuits.refusing();
    const open = ESSENTIAL_CIRCUITS.filter((name) => refusing.includes(name));
    return open.length > 0 ? session.down({ ...states, open }) : session.up(states);
  }

  private rateLimiterHealth() {
    return this.indicators.check('rateLimiter').up({
      limitPerSecondPerUser: this.config.rateLimitPerSecond,
      rejectedSinceStart: this.rateLimiter.rejected,
    });
  }
}
