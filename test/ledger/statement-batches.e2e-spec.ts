import type { RegisteredUser } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** Runs `count` jobs, `parallel` at a time. */
async function inParallel(count: number, parallel: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await job(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * A period of up to one batch (500 entries) is read in one statement and sent as one body; a
 * longer one streams through a cursor. Both must write the same bytes for the same entries.
 */
describe('statements of one batch and of many', () => {
  let t: TestApp;
  let alice: RegisteredUser;
  let entries: { createdAt: string }[];
  let whole: { text: string; headers: Headers };

  const statement = (query = '', accept = 'application/json') =>
    t.api.request('GET', `/api/v1/users/${alice.referenceId}/statement${query}`, {
      token: alice.token,
      headers: { accept },
    });

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: '100000' });
    const bob = await t.api.registerUser({ balance: 1000 });
    alice = await t.api.registerUser({ balance: 1000 });
    // 251 payments each way: alice has 503 entries with her opening balance.
    await inParallel(502, 8, async (i) => {
      const [from, to] = i % 2 === 0 ? [alice, bob] : [bob, alice];
      expect((await t.api.transfer(from, to.upiId, '1.25', { note: `n${i}` })).status).toBe(201);
    });
    whole = await statement();
    entries = JSON.parse(whole.text).entries;
  }, 120_000);
  afterAll(() => t.close());

  it('streams a period of more than one batch, complete and in order', () => {
    expect(entries).toHaveLength(503);
    expect(whole.headers.get('transfer-encoding')).toBe('chunked');
    const times = entries.map((entry) => entry.createdAt);
    expect([...times].sort()).toEqual(times);
  });

  it('sends a period of one batch as one body, the same bytes as the streamed statement', async () => {
    const from = entries[1].createdAt;
    // Entries 1 to 500, less any that share 501's millisecond (the cut is at microseconds).
    const to = entries[501].createdAt;
    const query = `?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const part = await statement(query);
    expect(part.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(part.headers.get('content-length')).toBe(String(Buffer.byteLength(part.text)));
    const partEntries = /"entries":\[(.*)\]\}$/.exec(part.text)![1];
    const count = (JSON.parse(`[${partEntries}]`) as unknown[]).length;
    expect(count).toBeGreaterThan(450);
    expect(count).toBeLessThanOrEqual(500);
    expect(whole.text).toContain(partEntries);

    const csvWhole = await statement('', 'text/csv');
    const csvPart = await statement(query, 'text/csv');
    expect(csvPart.headers.get('content-type')).toBe(csvWhole.headers.get('content-type'));
    expect(csvPart.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-[\d-]+\.csv"$/);
    const [header, ...lines] = csvPart.text.split('\r\n');
    expect(lines).toHaveLength(count + 1); // and the empty string after the last CRLF
    expect(csvWhole.text.startsWith(`${header}\r\n`)).toBe(true);
    expect(csvWhole.text).toContain(lines.join('\r\n'));
    expect(csvPart.headers.get('statement-opening-balance')).toMatch(/^\d+\.\d{4}$/);
  });
});
