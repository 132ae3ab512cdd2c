/**
 * npm run build && node dist/scripts/security/login-flood.js [--database-url postgres://...]
 *   [--attackers 16] [--samples 20]
 *
 * What a login flood does to a real user's login (issue 18, item 5). Starts the built service
 * (dist/src/main.js) with its defaults (per-IP login limit off, as in development: the worst
 * case), registers a user with a PIN, and measures that user's login (which runs one scrypt)
 * alone, then while `attackers` concurrent clients send logins for made-up UPI IDs with wrong
 * PINs as fast as they are answered. Prints JSON: the medians and 95th percentiles, the ratio,
 * and the attackers' request rate. The database is --database-url, else DATABASE_URL, else an
 * embedded one in a temporary DATA_DIR.
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
    },
  });
  const attackers = Number(values.attackers);
  const samples = Number(values.samples);
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  const dataDir = url ? undefined : mkdtempSync(join(tmpdir(), 'login-flood-'));
  // Run as root, embedded PostgreSQL runs as another OS user, which must reach its subdirectory.
  if (dataDir) chmodSync(dataDir, 0o755);
  const service = await ServiceProcess.start(url ? { DATABASE_URL: url } : { DATA_DIR: dataDir! });
  try {
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

async function post(baseUrl: string, path: string, body: unknown): Promise<{ status: number }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
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
