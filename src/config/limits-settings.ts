import type { AppConfig } from './app-config';

/**
 * What limits_settings.sql reads: the profile's limits, as the session setting payments.limits of
 * every connection of the money pool. A session setting rather than a table: each instance (and
 * each test's own connection) enforces its own configuration, and the money functions read it
 * without a query.
 */
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
 * The same as a libpq startup option (`-c payments.limits=...`), so every connection has it from
 * its first statement: no query of its own racing the pool's first one. Spaces and backslashes
 * are escaped as the `options` parameter requires.
 */
export function limitsStartupOption(config: AppConfig): string {
  const value = JSON.stringify(limitsSettings(config)).replace(/[\\\s]/g, (c) => `\\${c}`);
  return `-c payments.limits=${value}`;
}
