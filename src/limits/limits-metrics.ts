import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';
import { UsersRepository } from '../users/users.repository';

export const LIMIT_REFUSALS = 'payments_limit_refusals_total';
export const FROZEN_ACCOUNTS = 'payments_frozen_accounts';
/** The frozen count is shared by every instance; a few seconds late is fine for a dashboard. */
const FROZEN_SAMPLE_MS = 10_000;
const REFUSAL_LABELS = ['daily-amount', 'daily-count', 'new-user-amount', 'account-frozen'];

export const limitsMetricProviders = [
  makeCounterProvider({
    name: LIMIT_REFUSALS,
    help: 'Movements refused by a limit (daily-amount, daily-count, new-user-amount) or a freeze (account-frozen)',
    labelNames: ['limit'],
  }),
  makeGaugeProvider({ name: FROZEN_ACCOUNTS, help: 'Accounts frozen by an admin' }),
];

/** Refusals counted once, when first decided (never on a replay); frozen accounts sampled from PostgreSQL. */
@Injectable()
export class LimitsMetrics implements OnModuleInit, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @InjectMetric(LIMIT_REFUSALS) private readonly refusals: Counter<string>,
    @InjectMetric(FROZEN_ACCOUNTS) private readonly frozen: Gauge,
    private readonly users: UsersRepository,
  ) {
    // Every series exists from the start, so dashboards and rules see zeros rather than nothing.
    for (const limit of REFUSAL_LABELS) this.refusals.inc({ limit }, 0);
  }

  refused(limit: string): void {
    this.refusals.inc({ limit });
  }

  onModuleInit(): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), FROZEN_SAMPLE_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Also after a freeze or unfreeze, so this instance's gauge moves at once. */
  async sample(): Promise<void> {
    try {
      this.frozen.set(await this.users.countFrozen());
    } catch {
      // The database is away: the gauge keeps its last value and the next sample heals it.
    }
  }
}
