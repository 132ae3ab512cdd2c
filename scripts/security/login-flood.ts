/**
 * npm run build && node dist/scripts/security/login-flood.js [--database-url postgres://...]
 *   [--attackers 16] [--samples 20] | [--lockout [--attack-seconds 96]]
 *
 * What a login flood does to a real user's login (issue 18, item 5). Starts the built service
 * (dist/src/main.js) with its defaults (per-IP login limit off, as in development: the worst
 * case), registers a user with a PIN, and measures that user's login (which runs one scrypt)
 * alone, then while `attackers` concurrent clients send logins for made-up UPI IDs with wrong
 * PINs as fast as they are answered. Prints JSON: the medians and 95th percentiles, the ratio,
 * and the attackers' request rate. The database is --database-url, else DATABASE_URL, else an
 * embedded one in a temporary DATA_DIR.
 *
 * --lockout (issue 38): whether a stranger can lock the owner out. Starts the service with
 * LOGIN_LOCKOUT_SECONDS=1 (every lock 900x shorter than the default, so 96 s is a day), PINs
 * required and 127.0.0.1 as a trusted proxy; an attacker sends wrong PINs for the owner's UPI ID,
 * each from a new X-Forwarded-For address, for --attack-seconds; then the owner, from an address
 * new to them too, tries the right PIN every 250 ms. Prints JSON: the PIN checks the attacker got
 * (401s), its lockouts, and how long after it stopped the owner got in (null: not in 10 min).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ServiceProcess } from '../lib/service-process';

const PIN = '482916';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      attackers: { type: 'string', default: '16' },
      samples: { type: 'string', default: '20' },
      lockout: { type: 'boolean', default: false },
      'attack-seconds': { type: 'string', default: '96' },
    },
  });
  const attackers = Number(values.attackers);
  const samples = Number(values.samples);
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  const dataDir = url ? undefined : mkdtempSync(join(tmpdir(), 'login-flood-'));
  // Run as root, embedded PostgreSQL runs as another OS user, which must reach its subdirectory.
  if (dataDir) chmodSync(dataDir, 0o755);
  const database: Record<string, string> = url ? { DATABASE_URL: url } : { DATA_DIR: dataDir! };
  const service = await ServiceProcess.start(values.lockout ? { ...database, ...LOCKOUT_SETTINGS } : database);
  try {
    if (values.lockout) {
      console.log(JSON.stringify(await lockOutOwner(service.baseUrl, Number(values['attack-seconds'])), null, 2));
      return;
    }
    const upiId = `flood.${process.pid}.${Date.now()}@okbank`;
    const registered = await post(service.baseUrl, '/api/v1/users', {
      name: 'Real User',
      upiId,
      phoneNumber: '9876543210',
      balance: 0,
      pin: PIN,
    });
    if (registered.status !== 201) throw new Error(`registration failed: ${registered.status}`);
    const login = () => post(service.baseUrl, '/api/v1/auth/login', { upiId, pin: PIN });
    await login(); // the address becomes known; warms the path

    const alone = await timeLogins(login, samples);
    let running = true;
    let attempts = 0;
    const flood = Array.from({ length: attackers }, async (_, attacker) => {
      for (let i = 0; running; i++) {
        await post(service.baseUrl, '/api/v1/auth/login', { upiId: `ghost.${attacker}.${i}@okbank`, pin: '0000' });
        attempts += 1;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const floodStart = performance.now();
    const attemptsBefore = attempts;
    const underFlood = await timeLogins(login, samples);
    const floodRate = ((attempts - attemptsBefore) * 1000) / (performance.now() - floodStart);
    running = false;
    await Promise.all(flood);

    console.log(
      JSON.stringify(
        {
          attackers,
          samples,
          aloneMs: alone,
          underFloodMs: underFlood,
          medianRatio: Number((underFlood.median / alone.median).toFixed(2)),
          attackerRequestsPerSecond: Math.round(floodRate),
        },
        null,
        2,
      ),
    );
  } finally {
    await service.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

const LOCKOUT_SETTINGS = { LOGIN_LOCKOUT_SECONDS: '1', AUTH_PIN_REQUIRED: 'true', TRUST_PROXY: '127.0.0.1' };
const OWNER_PATIENCE_MS = 600_000;

/** The --lockout scenario: wrong PINs from rotating addresses, then the owner from a new one. */
async function lockOutOwner(baseUrl: string, attackSeconds: number) {
  const upiId = `owner.${process.pid}.${Date.now()}@okbank`;
  const registered = await post(baseUrl, '/api/v1/users', {
    name: 'Owner',
    upiId,
    phoneNumber: '9876543210',
    balance: 0,
    pin: PIN,
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status}`);
  let address = 0;
  const nextAddress = () => {
    address += 1;
    return `198.18.${Math.floor(address / 250) % 256}.${(address % 250) + 1}`;
  };
  const loginFrom = (from: string, pin: string) =>
    post(baseUrl, '/api/v1/auth/login', { upiId, pin }, { 'x-forwarded-for': from });

  let guesses = 0;
  let lockouts = 0;
  let last = 0;
  const attackEnds = performance.now() + attackSeconds * 1000;
  while (performance.now() < attackEnds) {
    const { status } = await loginFrom(nextAddress(), '000000');
    if (status === 401) guesses += 1;
    if (status === 429 && last === 401) lockouts += 1;
    last = status;
    await sleep(50);
  }
  const stopped = performance.now();
  let ownerStatus = 0;
  while (ownerStatus !== 200 && performance.now() - stopped < OWNER_PATIENCE_MS) {
    ownerStatus = (await loginFrom(`192.0.2.${(address % 250) + 1}`, PIN)).status;
    if (ownerStatus !== 200) await sleep(250);
  }
  const ownerWaitSeconds = ownerStatus === 200 ? Number(((performance.now() - stopped) / 1000).toFixed(1)) : null;
  return { attackSeconds, attackerRequests: address, guesses, lockouts, ownerWaitSeconds };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status };
}

async function timeLogins(login: () => Promise<{ status: number }>, samples: number) {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const { status } = await login();
    if (status !== 200) throw new Error(`the real user's login answered ${status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1));
  return { median: at(0.5), p95: at(0.95) };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
