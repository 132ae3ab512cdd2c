import { ConfigError, loadConfig } from '../config/app-config';

const base = { DATA_DIR: '/tmp/payments-webhook-config', JWT_SECRET: 'x'.repeat(32) };

describe('webhook configuration', () => {
  it('defaults to https only, public addresses only, the contract schedule and 10 s', () => {
    const config = loadConfig(base);
    expect(config.webhookAllowHttp).toBe(false);
    expect(config.webhookAllowPrivateNetworks).toBe(false);
    expect(config.webhookRetryScheduleMs).toEqual([5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36e6, 36e6]);
    expect(config.webhookTimeoutMs).toBe(10_000);
    expect(config.webhookEndpointsMax).toBe(50);
  });

  it('reads the endpoint cap and refuses one below 1', () => {
    expect(loadConfig({ ...base, WEBHOOK_ENDPOINTS_MAX: '3' }).webhookEndpointsMax).toBe(3);
    expect(() => loadConfig({ ...base, WEBHOOK_ENDPOINTS_MAX: '0' })).toThrow(/WEBHOOK_ENDPOINTS_MAX/);
  });

  it('reads every unit of the schedule, and the switches', () => {
    const config = loadConfig({
      ...base,
      WEBHOOK_RETRY_SCHEDULE: '250ms, 2s,1m,1h',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '1500',
    });
    expect(config.webhookRetryScheduleMs).toEqual([250, 2000, 60_000, 3_600_000]);
    expect([config.webhookAllowHttp, config.webhookAllowPrivateNetworks, config.webhookTimeoutMs]).toEqual([
      true,
      true,
      1500,
    ]);
  });

  it.each([['5 minutes'], ['5s,,5m'], ['-5s'], ['5d']])('refuses the schedule %s at boot, naming it', (schedule) => {
    expect(() => loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: schedule })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: schedule })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });

  it('refuses a timeout out of range and a switch that is not a boolean', () => {
    expect(() => loadConfig({ ...base, WEBHOOK_TIMEOUT_MS: '0' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOW_HTTP: 'yes' })).toThrow(/WEBHOOK_ALLOW_HTTP/);
  });
});
