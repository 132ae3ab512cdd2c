import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { AppConfig } from '../config/app-config';
import { PG_POOL } from '../database/pg-pool';

/** What limits_settings.sql reads: the profile's limits, set on every connection of the service's pool. */
export function limitsSettings(config: AppConfig): Record<string, unknown> {
  const settings: Record<string, unknown> = { timeZone: config.businessTimeZone };
  if (config.transferDailyAmountMax !== undefined) settings.dailyAmountMax = config.transferDailyAmountMax;
  if (config.transferDailyCountMax !== undefined) settings.dailyCountMax = config.transferDailyCountMax;
  if (config.newUserAmountMax !== undefined && config.newUserPeriodHours > 0) {
    settings.newUserAmountMax = config.newUserAmountMax;
    settings.newUserHours = config.newUserPeriodHours;
  }
  return settings;
}

/**
 * A session setting rather than a table: each instance (and each test's own connection) enforces
 * its own configuration, and the money functions read it without a query. Set once per connection,
 * queued before the first query the pool hands the connection out for. Registered while the
 * application is being assembled, before anything has used the pool.
 */
@Injectable()
export class LimitsSession {
  constructor(@Inject(PG_POOL) pool: Pool, config: AppConfig) {
    if (pool.totalCount > 0) throw new Error('The money pool was used before the limits were set on its sessions');
    const settings = JSON.stringify(limitsSettings(config));
    pool.on('connect', (client) => {
      // A failure here is the connection's: its next query fails the same way and is answered as such.
      client.query(`SELECT set_config('payments.limits', $1, false)`, [settings]).catch(() => undefined);
    });
  }
}
