import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config/app-config';

const SECRET = 'a-test-secret-that-is-32-bytes-long!!';
const dataDir = mkdtempSync(join(tmpdir(), 'payments-zone-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const load = (zone?: string) =>
  loadConfig({ DATA_DIR: dataDir, JWT_SECRET: SECRET, ...(zone === undefined ? {} : { BUSINESS_TIME_ZONE: zone }) });

describe('BUSINESS_TIME_ZONE', () => {
  it('defaults to India and takes any IANA zone, one with DST included', () => {
    expect(load().businessTimeZone).toBe('Asia/Kolkata');
    expect(load('Europe/Berlin').businessTimeZone).toBe('Europe/Berlin');
    expect(load('America/New_York').businessTimeZone).toBe('America/New_York');
  });

  it('refuses a name that is not an IANA zone, at boot', () => {
    expect(() => load('Mars/Olympus_Mons')).toThrow(ConfigError);
    expect(() => load('Asia/Atlantis')).toThrow(
      /BUSINESS_TIME_ZONE must be an IANA time zone such as Asia\/Kolkata, got "Asia\/Atlantis"/,
    );
  });
});
