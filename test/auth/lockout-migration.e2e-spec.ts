import { randomUUID } from 'node:crypto';
import { LockoutsNoWeapon1764013600000 } from '../../migrations/1764013600000-lockouts-no-weapon';
import { migrateUpTo, migrationTimestamp, testUrl, withClient } from '../support/db';

const LOCKOUT_MIGRATION = migrationTimestamp(LockoutsNoWeapon1764013600000);

describe('the issue 38 lockout migration on existing counts', () => {
  const name = `scratch_lockouts_${process.pid}_${Date.now()}`;
  const url = testUrl().replace(/\/[^/?]+(\?.*)?$/, `/${name}`);
  beforeAll(async () => {
    await withClient(testUrl(), (c) => c.query(`CREATE DATABASE ${name}`));
    await migrateUpTo(url, (timestamp) => timestamp < LOCKOUT_MIGRATION);
  });
  afterAll(() => withClient(testUrl(), (c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`)));

  it('gives counts to the owner only from registration on, and ends the permanent locks of the shared source', async () => {
    await withClient(url, async (db) => {
      await db.query(
        `INSERT INTO users (reference_id, name, upi_id, phone_number, balance, created_at)
         VALUES ($1, 'Owner', 'Late.Owner@okbank', '9876543210', 0, now() - interval '1 day')`,
        [randomUUID()],
      );
      // Locked for good before issue 38: the shared source from before registration and after it, and an address the owner used.
      await db.query(
        `INSERT INTO login_attempts (upi_id, source, failed_count, locked_until, lock_count, updated_at) VALUES
           ('late.owner@okbank', '*', 5, 'infinity', 5, now() - interval '2 days'),
           ('late.owner@okbank', '198.51.100.9', 5, 'infinity', 5, now() - interval '1 hour'),
           ('ghost@okbank', '*', 5, 'infinity', 5, now() - interval '1 hour')`,
      );
      await migrateUpTo(url, (timestamp) => timestamp <= LOCKOUT_MIGRATION);

      const rows = await db.query(
        `SELECT a.upi_id, a.source, a.user_id = u.id AS owners, a.user_id IS NULL AS nobodys,
                a.locked_until = 'infinity' AS permanent,
                round(extract(epoch FROM a.locked_until - now()) / 3600) AS hours_left
         FROM login_attempts a LEFT JOIN users u ON lower(u.upi_id) = a.upi_id
         ORDER BY a.upi_id, a.source`,
      );
      expect(rows.rows).toEqual([
        { upi_id: 'ghost@okbank', source: '*', owners: null, nobodys: true, permanent: false, hours_left: '16' },
        { upi_id: 'late.owner@okbank', source: '*', owners: null, nobodys: true, permanent: false, hours_left: '16' },
        {
          upi_id: 'late.owner@okbank',
          source: '198.51.100.9',
          owners: true,
          nobodys: false,
          permanent: true,
          hours_left: 'Infinity',
        },
      ]);
    });
  });
});
