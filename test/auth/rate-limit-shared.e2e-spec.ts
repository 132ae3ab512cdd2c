import type { Client } from 'pg';
import type { ApiResponse, RegisteredUser } from '../support/api-client';
import { balanceOf, connectTestDatabase } from '../support/db';
import { expectProblem } from '../support/problem';
import { startTestApp, type TestApp } from '../support/test-app';

const LIMIT = 5;
const BURST = 40;

/** Two instances of the service on the one test database, as two pods behind a load balancer. */
async function twoInstances(store: 'memory' | 'postgres'): Promise<[TestApp, TestApp]> {
  const env = { RATE_LIMIT_PER_SECOND: String(LIMIT), RATE_LIMIT_STORE: store };
  return Promise.all([startTestApp(env), startTestApp(env)]);
}

/** BURST transfers at once, alternating between the instances (the sender's token is valid on both). */
function burstAcross(instances: TestApp[], sender: RegisteredUser, receiver: RegisteredUser): Promise<ApiResponse[]> {
  return Promise.all(
    Array.from({ length: BURST }, (_, i) => instances[i % instances.length].api.transfer(sender, receiver.upiId, 1)),
  );
}

/** Opens connections and warms the code on both instances with users of their own, so the burst is one burst. */
async function warmUp(instances: TestApp[]): Promise<void> {
  for (const t of instances) {
    const [a, b] = await Promise.all([t.api.registerUser(), t.api.registerUser()]);
    const warm = await Promise.all(Array.from({ length: 3 }, () => t.api.transfer(a, b.upiId, 1)));
    expect(warm.map((r) => r.status)).toEqual([201, 201, 201]);
  }
}

describe('RATE_LIMIT_STORE=postgres: one per-user limit across instances', () => {
  let instances: [TestApp, TestApp];
  let db: Client;
  beforeAll(async () => {
    instances = await twoInstances('postgres');
    db = await connectTestDatabase();
    await warmUp(instances);
  });
  afterAll(async () => {
    await db.end();
    await Promise.all(instances.map((t) => t.close()));
  });

  it(`lets exactly RATE_LIMIT_PER_SECOND of ${BURST} simultaneous transfers through, whichever instance gets them`, async () => {
    const [alice, bob] = await Promise.all([
      instances[0].api.registerUser({ balance: 1000 }),
      instances[1].api.registerUser({ balance: 0 }),
    ]);
    const responses = await burstAcross(instances, alice, bob);
    const created = responses.filter((r) => r.status === 201);
    const limited = responses.filter((r) => r.status === 429);
    expect(created).toHaveLength(LIMIT);
    expect(limited).toHaveLength(BURST - LIMIT);
    for (const response of limited) {
      expectProblem(response, 429, 'rate-limit-exceeded');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(await balanceOf(db, alice.upiId)).toBe(`${1000 - LIMIT}.0000`);
    expect(await balanceOf(db, bob.upiId)).toBe(`${LIMIT}.0000`);
  });

  it('counts in the table the migration created, keyed by the lower-cased sender', async () => {
    const [alice, bob] = await Promise.all([instances[0].api.registerUser(), instances[1].api.registerUser()]);
    expect((await instances[1].api.transfer(alice, bob.upiId, 1)).status).toBe(201);
    const rows = await db.query('SELECT points FROM transfer_rate_limits WHERE key = $1', [
      `transfer:${alice.upiId.toLowerCase()}`,
    ]);
    expect(rows.rows).toEqual([{ points: 1 }]);
  });
});

describe('RATE_LIMIT_STORE=memory (the default): each instance counts on its own', () => {
  let instances: [TestApp, TestApp];
  beforeAll(async () => {
    instances = await twoInstances('memory');
    await warmUp(instances);
  });
  afterAll(async () => {
    await Promise.all(instances.map((t) => t.close()));
  });

  it('lets RATE_LIMIT_PER_SECOND through on each instance, so twice the limit in all', async () => {
    const [alice, bob] = await Promise.all([instances[0].api.registerUser(), instances[1].api.registerUser()]);
    const responses = await burstAcross(instances, alice, bob);
    expect(responses.filter((r) => r.status === 201)).toHaveLength(2 * LIMIT);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(BURST - 2 * LIMIT);
  });
});
