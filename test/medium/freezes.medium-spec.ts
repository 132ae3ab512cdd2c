import { Client } from 'pg';
import { connectTestDatabase } from '../support/db';
import { depositFunds, newUser, reverseTransfer, transferBatch, transferFunds } from './support/factories';
import { waitForBackendBlockedBy } from './support/locks';

/** Freezes in every money function, read from the account's locked row (src/limits/sql/limits_begin.sql). */
describe('account freezes in the money transaction', () => {
  let db: Client;
  let freezer: Client;
  let mover: Client;
  beforeAll(async () => {
    [db, freezer, mover] = await Promise.all([connectTestDatabase(), connectTestDatabase(), connectTestDatabase()]);
  });
  afterAll(() => Promise.all([db.end(), freezer.end(), mover.end()]));

  const freeze = (id: string) =>
    db.query(`UPDATE users SET frozen_at = now(), frozen_reason = 'medium' WHERE id = $1`, [id]);
  const balance = async (id: string) =>
    (await db.query<{ b: string }>('SELECT balance::text AS b FROM users WHERE id = $1', [id])).rows[0].b;

  it('a frozen sender neither transfers (batch or alone) nor pays a reversal; nothing moves', async () => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    const original = await transferFunds(db, alice, bob.upiId, '10');
    await freeze(alice.id);
    const [batched] = await transferBatch(db, [{ sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' }]);
    expect(batched.result).toMatchObject({ code: 'account-frozen', data: { side: 'sender' } });
    expect((await transferFunds(db, alice, bob.upiId, '1')).result).toMatchObject({
      code: 'account-frozen',
      data: { side: 'sender' },
    });
    // bob reverses to alice: alice, frozen, is the reversal's receiver.
    const reversal = await reverseTransfer(db, bob, original.result.data.referenceId, '5');
    expect(reversal.result).toMatchObject({ code: 'account-frozen', data: { side: 'receiver' } });
    expect([await balance(alice.id), await balance(bob.id)]).toEqual(['90.0000', '10.0000']);
  });

  it('a frozen receiver receives no transfer and no deposit; the others in the batch go on', async () => {
    const [alice, bob, carol] = [await newUser(db, '100'), await newUser(db), await newUser(db)];
    await freeze(bob.id);
    const rows = await transferBatch(db, [
      { sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' },
      { sender: alice, receiverUpiId: carol.upiId, amount: '1.0000' },
    ]);
    expect(rows.map((row) => row.result.code)).toEqual(['account-frozen', 'completed']);
    expect(rows[0].result.data).toEqual({ side: 'receiver' });
    expect((await transferFunds(db, alice, bob.upiId, '1')).result.data).toEqual({ side: 'receiver' });
    expect((await depositFunds(db, 'admin@medium', bob, '5')).result).toMatchObject({
      code: 'account-frozen',
      data: { side: 'receiver' },
    });
    expect(await balance(bob.id)).toBe('0.0000');
    await db.query(`UPDATE users SET frozen_at = NULL WHERE id = $1`, [bob.id]);
    expect((await transferFunds(db, alice, bob.upiId, '1')).result.code).toBe('completed');
  });

  it.each([
    ['transfer_funds_batch', true],
    ['transfer_funds', false],
  ])('a freeze reaches a transfer already queued behind the account lock (%s)', async (_name, batched) => {
    const [alice, bob] = [await newUser(db, '100'), await newUser(db)];
    await freezer.query('BEGIN');
    // As the service freezes (users.repository.ts): the account held as movements hold it, then changed.
    await freezer.query('SELECT (account_locked($1)).id', [alice.id]);
    await freezer.query(`UPDATE users SET frozen_at = now(), frozen_reason = 'queued' WHERE id = $1`, [alice.id]);
    const { rows } = await freezer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const queued = batched
      ? transferBatch(mover, [{ sender: alice, receiverUpiId: bob.upiId, amount: '1.0000' }]).then((r) => r[0])
      : transferFunds(mover, alice, bob.upiId, '1');
    await waitForBackendBlockedBy(db, rows[0].pid, 10_000);
    await freezer.query('COMMIT');
    expect((await queued).result).toMatchObject({ code: 'account-frozen', data: { side: 'sender' } });
    expect(await balance(alice.id)).toBe('100.0000');
  });
});
