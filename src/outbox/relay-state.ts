/** The kafka component of /actuator/health, as an admin sees it. */
export interface RelayHealth {
  status: 'UP' | 'DOWN';
  details: {
    /** Empty in light mode: events are handled in process and nothing is published. */
    brokers: string[];
    /** Readiness never counts this component: the outbox absorbs a broker outage. */
    affectsReadiness: false;
    pendingEvents: number;
    oldestPendingAgeSeconds: number;
    consecutiveFailures: number;
    failingSince: string | null;
    lastError: string | null;
    nextAttemptAt: string | null;
    lastPublishedAt: string | null;
  };
}

/**
 * What the relay last saw of its publisher, kept in memory per instance: the relay writes it on
 * every attempt and every gauge refresh, so reading it costs the health check nothing.
 */
export class RelayState {
  private pending = 0;
  private oldestAgeSeconds = 0;
  private failures = 0;
  private failingSince: Date | null = null;
  private lastError: string | null = null;
  private nextAttemptAt: Date | null = null;
  private lastPublishedAt: Date | null = null;

  get consecutiveFailures(): number {
    return this.failures;
  }

  published(): void {
    this.lastPublishedAt = new Date();
  }

  /** A relay run that ended without error: published what it found, or found nothing to do. */
  succeeded(): void {
    this.failures = 0;
    this.failingSince = null;
    this.lastError = null;
    this.nextAttemptAt = null;
  }

  failed(error: Error, retryAt: number): void {
    this.failures += 1;
    this.failingSince ??= new Date();
    this.lastError = error.message;
    this.nextAttemptAt = new Date(retryAt);
  }

  measured(pending: number, oldestAgeSeconds: number): void {
    this.pending = pending;
    this.oldestAgeSeconds = oldestAgeSeconds;
  }

  health(brokers: string[]): RelayHealth {
    return {
      status: this.failures > 0 ? 'DOWN' : 'UP',
      details: {
        brokers,
        affectsReadiness: false,
        pendingEvents: this.pending,
        oldestPendingAgeSeconds: Math.round(this.oldestAgeSeconds * 1000) / 1000,
        consecutiveFailures: this.failures,
        failingSince: this.failingSince?.toISOString() ?? null,
        lastError: this.lastError,
        nextAttemptAt: this.nextAttemptAt?.toISOString() ?? null,
        lastPublishedAt: this.lastPublishedAt?.toISOString() ?? null,
      },
    };
  }
}
