import type { Client } from 'pg';
import { TRANSFER_ARGUMENT_TYPES } from '../../src/transactions/transfer-parameters';
import { connectTestDatabase } from '../support/db';

/** The typed transfer parameters (TypeScript) against the functions' signatures (PostgreSQL). */
describe('transfer parameters', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  async function signature(fn: string): Promise<[string, string][]> {
    const result = await db.query<{ name: string; type: string }>(
      `SELECT a.name, format_type(a.type, NULL) AS type
       FROM pg_proc p, unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) WITH ORDINALITY AS a(name, type, n)
       WHERE p.proname = $1 ORDER BY a.n`,
      [fn],
    );
    return result.rows.map((row) => [row.name, row.type]);
  }

  const expected = (suffix: string): [string, string][] =>
    Object.entries(TRANSFER_ARGUMENT_TYPES).map(([field, type]) => [
      `p_${field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`,
      `${type}${suffix}`,
    ]);

  it('name and type every argument of transfer_funds, in order', async () => {
    expect(await signature('transfer_funds')).toEqual(expected(''));
  });

  it('name and type every argument of transfer_funds_batch (one array each), in order', async () => {
    expect(await signature('transfer_funds_batch')).toEqual(expected('[]'));
  });
});
