import type { Pool } from 'pg';
import type { AppConfig } from '../config/app-config';

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
 * its own configuration, and the money functions read it without a query. Set once per connection.
 */
export function limitsForEverySession(pool: Pool, config: AppConfig): void {
  const settings = JSON.stringify(limitsSettings(config));
  pool.on('connect', (client) => {
    client.query(`SELECT set_config('payments.limits', $1, false)`, [settings]).catch(() => undefined);
  });
}
