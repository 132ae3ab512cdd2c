import type { Client } from 'pg';
import { type ApiClient, type ApiResponse, randomPhone, uniqueUpiId } from '../support/api-client';
import { connectTestDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const PIN = '482916';
const WRONG_PIN = '111111';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function register(api: ApiClient, fields: Record<string, unknown> = {}): Promise<ApiResponse> {
  return api.post('/api/v1/users', {
    name: 'Pin User',
    upiId: uniqueUpiId('pin'),
    phoneNumber: randomPhone(),
    balance: 100,
    ...fields,
  });
}

async function registerWithPin(api: ApiClient, pin = PIN): Promise<string> {
  const response = await register(api, { pin });
  expect(response.status).toBe(201);
  return response.body.upiId;
}

const login = (api: ApiClient, upiId: string, pin?: string) =>
  api.post('/api/v1/auth/login', pin === undefined ? { upiId } : { upiId, pin });

/** What a client can compare between two refusals: everything but the per-request fields. */
function comparable(response: ApiResponse) {
  const { requestId: _requestId, timestamp: _timestamp, ...rest } = response.body;
  return { status: response.status, contentType: response.headers.get('content-type'), body: rest };
}

describe('PIN login with AUTH_PIN_REQUIRED=true', () => {
  let t: TestApp;
  let db: Client;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_PIN_REQUIRED: 'true', LOGIN_MAX_FAILED_ATTEMPTS: '3', LOGIN_LOCKOUT_SECONDS: '600' });
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  it('refuses a registration without a PIN with 422 on pin, and creates nothing', async () => {
    const upiId = uniqueUpiId('nopin');
    const response = await register(t.api, { upiId });
    expectProblem(response, 422, 'validation-failed');
    expect(response.body.errors).toEqual({ pin: expect.stringMatching(/required/) });
    expect((await db.query('SELECT 1 FROM users WHERE lower(upi_id) = lower($1)', [upiId])).rowCount).toBe(0);
  });

  it.each([['12345'], ['1234567'], ['12a4'], [' 1234'], ['１２３４'], [1234], [null]])(
    'refuses the PIN %p with 422 on pin',
    async (pin) => {
      const response = await register(t.api, { pin });
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({ pin: expect.any(String) });
    },
  );

  it('accepts 4- and 6-digit PINs and never returns them', async () => {
    for (const pin of ['0000', '123456']) {
      const response = await register(t.api, { pin });
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual([
        'balance',
        'createdAt',
        'name',
        'phoneNumber',
        'referenceId',
        'updatedAt',
        'upiId',
      ]);
      expect((await login(t.api, response.body.upiId, pin)).status).toBe(200);
    }
  });

  it('answers a missing PIN, a wrong PIN and an unknown UPI ID with one and the same 401', async () => {
    const upiId = await registerWithPin(t.api);
    const unknown = await login(t.api, uniqueUpiId('ghost'), PIN);
    const unknownNoPin = await login(t.api, uniqueUpiId('ghost'));
    const missing = await login(t.api, upiId);
    const wrong = await login(t.api, upiId, WRONG_PIN);
    expectProblem(unknown, 401, 'unauthorized');
    expect(unknown.body.detail).toBe('Unknown UPI ID');
    for (const response of [unknownNoPin, missing, wrong]) {
      expectProblem(response, 401, 'unauthorized');
      expect(comparable(response)).toEqual(comparable(unknown));
    }
    const right = await login(t.api, upiId, PIN);
    expect(right.status).toBe(200);
    expect(right.body).toEqual(expect.objectContaining({ upiId, accessToken: expect.any(String) }));
  });

  it('refuses a user who has no PIN (registered before the PIN was required)', async () => {
    const spec = await startTestApp();
    try {
      const legacy = await register(spec.api);
      expect(legacy.status).toBe(201);
      expect((await login(spec.api, legacy.body.upiId)).status).toBe(200);
      expectProblem(await login(t.api, legacy.body.upiId), 401, 'unauthorized');
      expectProblem(await login(t.api, legacy.body.upiId, PIN), 401, 'unauthorized');
    } finally {
      await spec.close();
    }
  });

  it('locks after N wrong PINs, even against the right PIN, on every instance', async () => {
    const upiId = await registerWithPin(t.api);
    for (let i = 0; i < 3; i += 1) expectProblem(await login(t.api, upiId, WRONG_PIN), 401, 'unauthorized');

    const locked = await login(t.api, upiId, PIN);
    expectProblem(locked, 429, 'login-locked');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expectProblem(await login(t.api, upiId, WRONG_PIN), 429, 'login-locked');

    // Counted in PostgreSQL: another instance on the same database sees the lock.
    const other = await startTestApp({ AUTH_PIN_REQUIRED: 'true' });
    try {
      expectProblem(await login(other.api, upiId, PIN), 429, 'login-locked');
    } finally {
      await other.close();
    }
  });

  it('unlocks once LOGIN_LOCKOUT_SECONDS have passed', async () => {
    const short = await startTestApp({
      AUTH_PIN_REQUIRED: 'true',
      LOGIN_MAX_FAILED_ATTEMPTS: '2',
      LOGIN_LOCKOUT_SECONDS: '3',
    });
    try {
      const upiId = await registerWithPin(short.api);
      for (let i = 0; i < 2; i += 1) expectProblem(await login(short.api, upiId, WRONG_PIN), 401, 'unauthorized');
      // The lock itself is checked in the database: how soon the next request arrives depends on the machine's load.
      const lock = await db.query(
        `SELECT extract(epoch FROM locked_until - updated_at)::int AS seconds FROM login_attempts WHERE upi_id = lower($1)`,
        [upiId],
      );
      expect(lock.rows).toEqual([{ seconds: 3 }]);

      const statuses: number[] = [];
      while (statuses.at(-1) !== 200 && statuses.length < 60) {
        statuses.push((await login(short.api, upiId, PIN)).status);
        if (statuses.at(-1) !== 200) await sleep(500);
      }
      // Refused (429) for as long as the lock lasted, then let in with the right PIN.
      expect(statuses.at(-1)).toBe(200);
      expect(statuses.slice(0, -1).every((status) => status === 429)).toBe(true);
    } finally {
      await short.close();
    }
  });

  it('locks an unknown UPI ID exactly like a registered one', async () => {
    const ghost = uniqueUpiId('ghost');
    for (let i = 0; i < 3; i += 1) expectProblem(await login(t.api, ghost, WRONG_PIN), 401, 'unauthorized');
    expectProblem(await login(t.api, ghost, PIN), 429, 'login-locked');
  });

  it('resets the count on a success', async () => {
    const upiId = await registerWithPin(t.api);
    for (let i = 0; i < 2; i += 1) expectProblem(await login(t.api, upiId, WRONG_PIN), 401);
    expect((await login(t.api, upiId, PIN)).status).toBe(200);
    expect((await db.query('SELECT 1 FROM login_attempts WHERE upi_id = lower($1)', [upiId])).rowCount).toBe(0);
    for (let i = 0; i < 2; i += 1) expectProblem(await login(t.api, upiId, WRONG_PIN), 401);
    expect((await login(t.api, upiId, PIN)).status).toBe(200);
  });

  it('counts failures atomically: parallel wrong PINs cannot exceed the limit unnoticed', async () => {
    const upiId = await registerWithPin(t.api);
    const answers = await Promise.all(Array.from({ length: 6 }, () => login(t.api, upiId, WRONG_PIN)));
    expect(answers.map((a) => a.status).filter((s) => s === 401).length).toBeLessThanOrEqual(3);
    expectProblem(await login(t.api, upiId, PIN), 429, 'login-locked');
  });

  it('exports the login failure and lockout counters', async () => {
    const ghost = uniqueUpiId('ghost');
    for (let i = 0; i < 4; i += 1) await login(t.api, ghost, WRONG_PIN);
    const metrics = (await t.api.get('/actuator/prometheus')).text;
    expect(metrics).toMatch(/payments_login_failures_total\{reason="unknown_or_wrong_pin"\} [1-9]/);
    expect(metrics).toMatch(/payments_login_failures_total\{reason="locked"\} [1-9]/);
    expect(metrics).toMatch(/payments_login_lockouts_total [1-9]/);
  });
});

describe('PIN login in the default (spec) mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOGIN_MAX_FAILED_ATTEMPTS: '3' });
  });
  afterAll(() => t.close());

  it('lets a user without a PIN log in with the UPI ID alone', async () => {
    const response = await register(t.api);
    expect((await login(t.api, response.body.upiId)).status).toBe(200);
  });

  it('makes a user who set a PIN give it', async () => {
    const upiId = await registerWithPin(t.api, '9090');
    const unknown = await login(t.api, uniqueUpiId('ghost'));
    const missing = await login(t.api, upiId);
    expectProblem(missing, 401, 'unauthorized');
    expect(comparable(missing)).toEqual(comparable(unknown));
    expectProblem(await login(t.api, upiId, '9091'), 401, 'unauthorized');
    expect((await login(t.api, upiId, '9090')).status).toBe(200);
  });

  it('answers 422 on pin for a malformed PIN at login', async () => {
    const response = await login(t.api, uniqueUpiId('ghost'), '12');
    expectProblem(response, 422, 'validation-failed');
    expect(response.body.errors).toEqual({ pin: expect.any(String) });
  });
});

describe('per-IP login rate limit', () => {
  it('is off by default: many logins from one address all pass', async () => {
    const t = await startTestApp();
    try {
      const upiId = (await register(t.api)).body.upiId;
      const answers = await Promise.all(Array.from({ length: 25 }, () => login(t.api, upiId)));
      expect(answers.map((a) => a.status)).toEqual(Array(25).fill(200));
    } finally {
      await t.close();
    }
  });

  it('answers 429 rate-limit-exceeded with Retry-After past LOGIN_RATE_LIMIT_PER_MINUTE', async () => {
    const t = await startTestApp({ LOGIN_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const upiId = (await register(t.api)).body.upiId;
      for (let i = 0; i < 3; i += 1) expect((await login(t.api, upiId)).status).toBe(200);
      const limited = await login(t.api, upiId);
      expectProblem(limited, 429, 'rate-limit-exceeded');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expectProblem(await login(t.api, uniqueUpiId('ghost')), 429, 'rate-limit-exceeded');
      const metrics = (await t.api.get('/actuator/prometheus')).text;
      expect(metrics).toMatch(/payments_login_failures_total\{reason="rate_limited"\} [1-9]/);
    } finally {
      await t.close();
    }
  });
});

describe('OPENING_BALANCE_MAX', () => {
  let t: TestApp;
  let db: Client;
  beforeAll(async () => {
    t = await startTestApp({ OPENING_BALANCE_MAX: '5000' });
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  it('accepts an opening balance up to the maximum', async () => {
    expect((await register(t.api, { balance: '5000.0000' })).status).toBe(201);
  });

  it.each([['5000.0001'], [5001], ['999999999999999.9999']])(
    'refuses %p with 422 on balance and creates nothing',
    async (balance) => {
      const upiId = uniqueUpiId('rich');
      const response = await register(t.api, { upiId, balance });
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual({ balance: expect.stringMatching(/5000/) });
      expect((await db.query('SELECT 1 FROM users WHERE lower(upi_id) = lower($1)', [upiId])).rowCount).toBe(0);
    },
  );

  it('applies the rounded value (HALF_EVEN to 4 places) against the maximum', async () => {
    expect((await register(t.api, { balance: '5000.00005' })).status).toBe(201);
  });

  it('keeps the spec default: any balance the column holds is accepted', async () => {
    const spec = await startTestApp();
    try {
      expect((await register(spec.api, { balance: '999999999999999.9999' })).status).toBe(201);
    } finally {
      await spec.close();
    }
  });

  it('refuses an invalid OPENING_BALANCE_MAX at boot', async () => {
    await expect(startTestApp({ OPENING_BALANCE_MAX: '-1' })).rejects.toThrow(/OPENING_BALANCE_MAX/);
    await expect(startTestApp({ OPENING_BALANCE_MAX: '1e6' })).rejects.toThrow(/OPENING_BALANCE_MAX/);
  });
});
