import fs from 'node:fs';
import { type ApiClient, randomPhone, uniqueUpiId } from '../support/api-client';
import { withClient, withScratchDatabase } from '../support/db';
import { startTestApp } from '../support/test-app';

/**
 * Everything the process writes to stdout/stderr while `work` runs (pino writes with
 * fs.write/fs.writeSync on fd 1; Nest's console paths use the streams).
 */
async function captureOutput(work: () => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const keep = (data: unknown) => chunks.push(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
  const original = { writeSync: fs.writeSync, write: fs.write, out: process.stdout.write, err: process.stderr.write };
  const isOutput = (fd: unknown) => fd === 1 || fd === 2;
  fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (!isOutput(fd)) return (original.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
    keep(data);
    return Buffer.byteLength(Buffer.isBuffer(data) ? data : String(data));
  }) as typeof fs.writeSync;
  fs.write = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (!isOutput(fd)) return (original.write as (...a: unknown[]) => void)(fd, data, ...rest);
    keep(data);
    const callback = rest.find((r) => typeof r === 'function') as ((...a: unknown[]) => void) | undefined;
    callback?.(null, Buffer.byteLength(Buffer.isBuffer(data) ? data : String(data)));
  }) as typeof fs.write;
  process.stdout.write = ((data: unknown) => (keep(data), true)) as typeof process.stdout.write;
  process.stderr.write = ((data: unknown) => (keep(data), true)) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    Object.assign(fs, { writeSync: original.writeSync, write: original.write });
    process.stdout.write = original.out;
    process.stderr.write = original.err;
  }
  return chunks.join('');
}

async function exercise(api: ApiClient, upiId: string, pin: string): Promise<void> {
  const post = (path: string, body: unknown) => api.post(path, body);
  expect(
    (await post('/api/v1/users', { name: 'Secret Keeper', upiId, phoneNumber: randomPhone(), balance: 10, pin }))
      .status,
  ).toBe(201);
  expect((await post('/api/v1/auth/login', { upiId, pin })).status).toBe(200);
  expect((await post('/api/v1/auth/login', { upiId, pin: pin.split('').reverse().join('') })).status).toBe(401);
  expect((await post('/api/v1/auth/login', { upiId })).status).toBe(401);
  // A duplicate registration fails after hashing: its error path must not carry the PIN either.
  expect(
    (await post('/api/v1/users', { name: 'Again', upiId, phoneNumber: randomPhone(), balance: 10, pin })).status,
  ).toBe(409);
}

describe('the PIN is never stored or logged in clear', () => {
  it('leaves no trace of the PIN in any table or in the logs, at the most verbose log level', async () => {
    // A fresh database holds only this test's rows, so a match cannot come from someone else's data.
    await withScratchDatabase(async (url) => {
      const pin = '730591';
      const upiId = uniqueUpiId('secret');
      // The app's whole life, start and stop included, so that none of its lines reach the test output.
      const logs = await captureOutput(async () => {
        const app = await startTestApp({ DATABASE_URL: url, LOG_LEVEL: 'trace', AUTH_PIN_REQUIRED: 'true' });
        try {
          await exercise(app.api, upiId, pin);
        } finally {
          await app.close();
        }
      });

      // The capture really saw the request log lines, so an absent PIN means something.
      expect(logs).toContain('/api/v1/auth/login');
      expect(logs).toContain('/api/v1/users');
      expect(logs).not.toContain(pin);

      await withClient(url, async (db) => {
        const stored = await db.query('SELECT pin_hash FROM users WHERE lower(upi_id) = lower($1)', [upiId]);
        expect(stored.rows[0].pin_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[\w-]{22}\$[\w-]{43}$/);
        const tables = await db.query<{ name: string }>(
          `SELECT quote_ident(table_name) AS name FROM information_schema.tables
           WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
        );
        expect(tables.rows.map((t) => t.name)).toEqual(expect.arrayContaining(['users', 'login_attempts']));
        for (const { name } of tables.rows) {
          const hits = await db.query(`SELECT count(*)::int AS n FROM ${name} r WHERE r::text LIKE $1`, [`%${pin}%`]);
          expect({ table: name, rows: hits.rows[0].n }).toEqual({ table: name, rows: 0 });
        }
      });
    });
  });

  it('salts each hash: two users with the same PIN store different hashes', async () => {
    const upiIds = [uniqueUpiId('salt'), uniqueUpiId('salt')];
    // nestjs-pino builds one pino-http per process, with the first app's settings (trace, above):
    // this app's request lines would reach the test output, so they are kept like the first test's.
    await captureOutput(async () => {
      const app = await startTestApp();
      try {
        for (const upiId of upiIds) {
          const body = { name: 'Salt', upiId, phoneNumber: randomPhone(), balance: 1, pin: '2580' };
          expect((await app.api.post('/api/v1/users', body)).status).toBe(201);
        }
      } finally {
        await app.close();
      }
    });
    const hashes = await withClient(process.env.TEST_DATABASE_URL!, (db) =>
      db.query('SELECT pin_hash FROM users WHERE upi_id = ANY($1)', [upiIds]),
    );
    expect(hashes.rows).toHaveLength(2);
    expect(hashes.rows[0].pin_hash).not.toBe(hashes.rows[1].pin_hash);
  });
});
