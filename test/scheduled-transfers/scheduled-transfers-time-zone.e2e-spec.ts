import { DateTime } from 'luxon';
import type { Client } from 'pg';
import { connectTestDatabase } from '../support/db';
import { startTestApp, type TestApp } from '../support/test-app';

const BERLIN = 'Europe/Berlin';

/** The service under a business time zone with daylight saving time, set through the variable. */
describe('scheduled transfers in a time zone with DST (BUSINESS_TIME_ZONE=Europe/Berlin)', () => {
  let db: Client;
  let app: TestApp;
  beforeAll(async () => {
    db = await connectTestDatabase();
    app = await startTestApp({ BUSINESS_TIME_ZONE: BERLIN });
  });
  afterAll(async () => {
    await app.close();
    await db.end();
  });

  it('reads a startAt without offset as Berlin time and keeps 09:00 local across the DST change', async () => {
    const { api } = app;
    const [sender, receiver] = await Promise.all([
      api.registerUser({ balance: 100 }),
      api.registerUser({ balance: 0 }),
    ]);
    const localStart = DateTime.now()
      .setZone(BERLIN)
      .plus({ days: 2 })
      .set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
    const created = await api.post(
      '/api/v1/scheduled-transfers',
      {
        receiverUpiId: receiver.upiId,
        amount: 1,
        frequency: 'DAILY',
        startAt: localStart.toFormat("yyyy-MM-dd'T'HH:mm:ss"),
      },
      { token: sender.token },
    );
    expect(created.status).toBe(201);
    expect(created.body.startAt).toBe(localStart.toUTC().toISO());
    const { referenceId } = created.body;

    // A series that started on 1 July at 09:00 summer time (07:00 UTC), resumed now: its next
    // occurrence is at 09:00 Berlin time whichever offset applies then (08:00 UTC in winter).
    await api.post(`/api/v1/scheduled-transfers/${referenceId}/pause`, undefined, { token: sender.token });
    await db.query(`UPDATE scheduled_transfers SET start_at = $2 WHERE reference_id = $1`, [
      referenceId,
      '2026-07-01T07:00:00Z',
    ]);
    const resumed = await api.post(`/api/v1/scheduled-transfers/${referenceId}/resume`, undefined, {
      token: sender.token,
    });
    expect(resumed.status).toBe(200);
    const next = DateTime.fromISO(resumed.body.nextRunAt as string, { zone: BERLIN });
    expect(next.toFormat('HH:mm:ss')).toBe('09:00:00');
    expect(next.toMillis()).toBeGreaterThan(Date.now());
    expect(next.toMillis() - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    // The same wall time at another UTC offset than the start's, when the two fall in different seasons.
    expect(next.offset).toBe(next.isInDST ? 120 : 60);

    await api.post(`/api/v1/scheduled-transfers/${referenceId}/cancel`, undefined, { token: sender.token });
  });
});
