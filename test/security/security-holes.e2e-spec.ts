import { randomBytes } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { Client } from 'pg';
import { maskUpiIds } from '../../src/common/logging';
import { newIdempotencyKey, type RegisteredUser, uniqueUpiId } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const RLO = '\u202e';

/** Issue 18, items 7 to 11: rate limits on every movement, hostile text, prototype names, deep bodies, leaks. */
describe('security holes closed', () => {
  let t: TestApp;
  let db: Client;
  let admin: RegisteredUser;
  const adminUpiId = uniqueUpiId('holes-admin');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_UPI_IDS: adminUpiId, RATE_LIMIT_PER_SECOND: '2' });
    db = await connectTestDatabase();
    admin = await t.api.registerUser({ upiId: adminUpiId, balance: 0 });
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const countTransactions = async (upiId: string) =>
    (
      await db.query(
        `SELECT count(*)::int AS n FROM transactions WHERE lower(sender_upi_id) = lower($1) OR lower(receiver_upi_id) = lower($1)`,
        [upiId],
      )
    ).rows[0].n as number;
  const balance = async (upiId: string) =>
    (await db.query('SELECT balance::text AS b FROM users WHERE upi_id = $1', [upiId])).rows[0].b as string;

  it('7. reversals go through the per-user rate limit (429 rate-limit-exceeded, nothing moved)', async () => {
    const payer = await t.api.registerUser({ balance: 100 });
    const payee = await t.api.registerUser({ balance: 0 });
    const transfer = await t.api.transfer(payer, payee.upiId, 50);
    expect(transfer.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const reverse = () =>
      t.api.post(
        `/api/v1/transactions/${transfer.body.referenceId}/reversals`,
        { amount: 1 },
        { token: payee.token, headers: { 'idempotency-key': newIdempotencyKey() } },
      );
    const answers = await Promise.all([reverse(), reverse(), reverse(), reverse()]);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expectProblem(limited[0], 429, 'rate-limit-exceeded');
    const done = answers.filter((answer) => answer.status === 201).length;
    expect(await balance(payee.upiId)).toBe((50 - done).toFixed(4));
  });

  it('7. deposits go through the per-admin rate limit', async () => {
    const user = await t.api.registerUser({ balance: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const deposit = () =>
      t.api.post(
        '/api/v1/admin/deposits',
        { upiId: user.upiId, amount: 1 },
        { token: admin.token, headers: { 'idempotency-key': newIdempotencyKey() } },
      );
    const answers = await Promise.all([deposit(), deposit(), deposit(), deposit()]);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expectProblem(limited[0], 429, 'rate-limit-exceeded');
    const done = answers.filter((answer) => answer.status === 201).length;
    expect(await balance(user.upiId)).toBe(done.toFixed(4));
  });

  it('8. the statement CSV neutralises every text cell and quotes every ";", read back by a CSV parser', async () => {
    const hostileUpi = `-cmd${randomBytes(4).toString('hex')}@okbank`;
    const sender = await t.api.registerUser({ upiId: hostileUpi, balance: 100 });
    const owner = await t.api.registerUser({ balance: 0 });
    const notes = ['=1+1', '+SUM(A1)', '-2+3', '@cmd', 'x;=1+1', 'say "hi", then; go'];
    for (const note of notes) {
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await t.api.transfer(sender, owner.upiId, 1, { note })).status).toBe(201);
    }
    const csv = await t.api.request('GET', `/api/v1/users/${owner.referenceId}/statement`, {
      token: owner.token,
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('cache-control')).toBe('no-store');
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    const credits = rows.filter((row) => row.entryType === 'CREDIT' && row.type === 'TRANSFER');
    const neutralised = notes.map((note) => (/^[=+\-@]/.test(note) ? `'${note}` : note));
    expect(credits.map((row) => row.note).sort()).toEqual(neutralised.sort());
    expect(new Set(credits.map((row) => row.counterpartyUpiId))).toEqual(new Set([`'${hostileUpi}`]));
    // Split the way a ";" locale splits: no cell of the raw text starts a formula there either.
    for (const line of csv.text.split('\r\n').slice(1)) {
      for (const cell of line.match(/("([^"]|"")*"|[^,;]*)/g) ?? []) expect(cell).not.toMatch(/^[=+\-@]/);
    }
  });

  it('9. bidirectional controls and invisible-only text are refused in notes and names, nothing written', async () => {
    const sender = await t.api.registerUser({ balance: 100 });
    const receiver = await t.api.registerUser({ balance: 0 });
    for (const note of [`refund ${RLO}gpj.exe`, '\u200b\u200b', '   ']) {
      await new Promise((resolve) => setTimeout(resolve, 600));
      const response = await t.api.transfer(sender, receiver.upiId, 1, { note });
      expectProblem(response, 422, 'validation-failed');
      expect(Object.keys(response.body.errors)).toEqual(['note']);
    }
    expect(await countTransactions(sender.upiId)).toBe(0);
    expect(await balance(sender.upiId)).toBe('100.0000');
    for (const name of ['Alice\u200e', '\u200fBob', 'Eve\u061c']) {
      const upiId = uniqueUpiId('bidi');
      const response = await t.api.post('/api/v1/users', { name, upiId, phoneNumber: '9876543210', balance: 0 });
      expectProblem(response, 422, 'validation-failed');
      expect((await db.query('SELECT 1 FROM users WHERE upi_id = $1', [upiId])).rows).toEqual([]);
    }
  });

  it('10. /actuator/metrics/{name} is 404 for every name that is not a metric, prototype names included', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'no_such_metric']) {
      expectProblem(await t.api.get(`/actuator/metrics/${name}`), 404, 'not-found');
    }
    // Tags are matched against a series' own labels only, never against prototype members.
    const metric = '/actuator/metrics/http_server_requests_seconds';
    expect((await t.api.get(metric)).status).toBe(200);
    for (const tag of [
      '__proto__:x',
      `constructor:${String(Object)}`,
      `toString:${String(Object.prototype.toString)}`,
    ]) {
      expectProblem(await t.api.get(`${metric}?tag=${encodeURIComponent(tag)}`), 404, 'not-found');
    }
  });

  it('10. a body nested deeper than 64 levels is 400 problem+json, anonymously too', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const response = await t.api.request('POST', '/api/v1/users', {
      rawBody: `{"name":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'invalid-request');
    expect(response.body.detail).toMatch(/deeper than 64/);
  });

  it('11. log masking covers every valid UPI ID, those starting with "_", "." or "-" included', () => {
    expect(maskUpiIds('user _secret.id@okbank paid')).toBe('user _***@okbank paid');
    expect(maskUpiIds('/upi/.dot%40ybl and -dash@axis')).toBe('/upi/.***%40ybl and -***@axis');
  });

  it('11. /actuator links come from configuration, not from X-Forwarded-Host or Host', async () => {
    const response = await t.api.request('GET', '/actuator', {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).not.toContain('evil.example');
    expect(response.body._links.self.href).toBe(`${t.api.baseUrl}/actuator`);
  });

  it('11. authenticated responses carry Cache-Control: no-store', async () => {
    const user = await t.api.registerUser({ balance: 0 });
    for (const path of [`/api/v1/users/${user.referenceId}`, `/api/v1/users/${user.referenceId}/statement`]) {
      const response = await t.api.get(path, user.token);
      expect({ path, status: response.status, cache: response.headers.get('cache-control') }).toEqual({
        path,
        status: 200,
        cache: 'no-store',
      });
    }
  });

  it('11. Swagger UI does not persist bearer tokens', async () => {
    const init = await t.api.get('/swagger-ui/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toMatch(/"persistAuthorization":\s*false/);
  });
});
