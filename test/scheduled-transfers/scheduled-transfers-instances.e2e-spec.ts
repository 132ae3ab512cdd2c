import type { Client } from 'pg';
import { ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, type RegisteredUser } from '../support/api-client';
import { balanceOf, connectTestDatabase } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const INSTRUCTIONS = 12;

describe('scheduled transfers across instances and crashes', () => {
  let db: Client;
  // Only this file's instructions: other test files may be running theirs meanwhile.
  const ours: string[] = [];
  const dataDirs: string[] = [];
  beforeAll(async () => {
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.query(
      `UPDATE scheduled_transfers SET status = 'CANCELLED', next_run_at = NULL
       WHERE status = 'ACTIVE' AND reference_id = ANY($1::uuid[])`,
      [ours],
    );
    await db.end();
    dataDirs.splice(0).forEach(removeTempDir);
  });

  const runsOf = async (referenceId: string) =>
    (
      await db.query<{ status: string; transaction_reference_id: string | null }>(
        `SELECT r.status, r.transaction_reference_id FROM scheduled_transfer_runs r
         JOIN scheduled_transfers s ON s.id = r.scheduled_transfer_id WHERE s.reference_id = $1`,
        [referenceId],
      )
    ).rows;
  const transfersBetween = async (sender: RegisteredUser, receiver: RegisteredUser) =>
    (
      await db.query<{ reference_id: string }>(
        `SELECT reference_id FROM transactions WHERE lower(sender_upi_id) = lower($1) AND lower(receiver_upi_id) = lower($2)`,
        [sender.upiId, receiver.upiId],
      )
    ).rows.map((row) => row.reference_id);

  it('two service instances on one database run each due occurrence exactly once', async () => {
    const apps: TestApp[] = [];
    try {
      apps.push(
        await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' }),
        await startTestApp({ RATE_LIMIT_PER_SECOND: '1000' }),
      );
      const api = apps[0].api;
      const receiver = await api.registerUser({ balance: 0 });
      const senders = await Promise.all(Array.from({ length: INSTRUCTIONS }, () => api.registerUser({ balance: 100 })));
      // Both instances see the same occurrences fall due at the same moment.
      const startAt = new Date(Date.now() + 3000).toISOString();
      const references = await Promise.all(
        senders.map(async (sender, i) => {
          const created = await apps[i % 2].api.post(
            '/api/v1/scheduled-transfers',
            { receiverUpiId: receiver.upiId, amount: 7, frequency: 'ONCE', startAt },
            { token: sender.token },
          );
          expect(created.status).toBe(201);
          ours.push(created.body.referenceId as string);
          return created.body.referenceId as string;
        }),
      );
      const allRan = async () => {
        for (const referenceId of references) if ((await runsOf(referenceId)).length === 0) return false;
        return true;
      };
      await waitUntil(allRan, 'every instruction to have run', 30_000);
      // A few more ticks of both instances: still exactly one run and one transfer each.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      for (const [i, referenceId] of references.entries()) {
        const runs = await runsOf(referenceId);
        expect(runs).toEqual([{ status: 'COMPLETED', transaction_reference_id: expect.any(String) }]);
        expect(await transfersBetween(senders[i], receiver)).toEqual([runs[0].transaction_reference_id]);
        expect(await balanceOf(db, senders[i].upiId)).toBe('93.0000');
      }
      expect(await balanceOf(db, receiver.upiId)).toBe(`${7 * INSTRUCTIONS}.0000`);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  }, 90_000);

  it('runs an occurrence once when the service is SIGKILLed while the run is in flight', async () => {
    const env = () => ({
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATA_DIR: dataDirs[dataDirs.push(makeTempDir('payments-schedules')) - 1],
      JWT_SECRET: TEST_JWT_SECRET,
    });
    let service = await ServiceProcess.start(env());
    const api = new ApiClient(service.baseUrl);
    const [sender, receiver] = await Promise.all([
      api.registerUser({ balance: 100 }),
      api.registerUser({ balance: 0 }),
    ]);
    const created = await api.post(
      '/api/v1/scheduled-transfers',
      {
        receiverUpiId: receiver.upiId,
        amount: 30,
        frequency: 'MONTHLY',
        startAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
      { token: sender.token },
    );
    expect(created.status).toBe(201);
    const { referenceId } = created.body;
    ours.push(referenceId);

    // Hold the run between its transfer's commit and its own record: the worst moment to die.
    const blocker = await connectTestDatabase();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE scheduled_transfer_runs IN EXCLUSIVE MODE');
      await db.query(`UPDATE scheduled_transfers SET start_at = now(), next_run_at = now() WHERE reference_id = $1`, [
        referenceId,
      ]);
      await waitUntil(async () => (await transfersBetween(sender, receiver)).length > 0, 'the run to transfer', 30_000);
      expect(await service.stop('SIGKILL')).toBeNull();
      // Killed after its transfer committed and before its run was recorded.
      expect(await transfersBetween(sender, receiver)).toHaveLength(1);
      expect(await runsOf(referenceId)).toEqual([]);
    } finally {
      await blocker.query('COMMIT');
      await blocker.end();
    }
    // Another test file's service on this database may pick the occurrence up first: either way, once.
    service = await ServiceProcess.start(env());
    try {
      await waitUntil(
        async () => (await runsOf(referenceId)).length > 0,
        'the run to be recorded after restart',
        30_000,
      );
      const transfers = await transfersBetween(sender, receiver);
      expect(transfers).toHaveLength(1);
      expect(await runsOf(referenceId)).toEqual([{ status: 'COMPLETED', transaction_reference_id: transfers[0] }]);
      expect(await balanceOf(db, sender.upiId)).toBe('70.0000');
      expect(await balanceOf(db, receiver.upiId)).toBe('30.0000');
    } finally {
      await service.stop('SIGTERM');
    }
  }, 90_000);
});
