import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { LedgerEntriesRepository } from '../../src/ledger/ledger-entries.repository';
import { createScratchDatabase } from '../support/db';

/**
 * A statement's first read is planned once per connection (generic plan), not on every call: a
 * custom plan per call costs more than the read, and more with every monthly partition kept.
 */
describe('the statement read plan', () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let pool: Pool;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = new Pool({ connectionString: scratch.url, max: 1 }); // one connection: its prepared statements
  });
  afterAll(async () => {
    await pool.end();
    await scratch.drop();
  });

  it('uses the generic plan from the first call on', async () => {
    const ledger = new LedgerEntriesRepository(pool);
    // PostgreSQL's default tries five custom plans before it weighs the generic one.
    for (let call = 0; call < 7; call++) {
      await ledger.findStatementOwner(randomUUID(), '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z');
    }
    const { rows } = await pool.query(
      `SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name = 'statement-owner-first-batch'`,
    );
    expect(rows).toEqual([{ generic_plans: 7, custom_plans: 0 }]);
  });
});
