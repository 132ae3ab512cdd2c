import type { Client } from 'pg';
import { CAPTURE_HOLD, PLACE_HOLD, RETURN_HOLD } from '../../src/holds/hold-parameters';
import { DISPUTE_ACT, OPEN_DISPUTE } from '../../src/disputes/dispute-parameters';
import type { MovementFunction } from '../../src/movements/movement-call';
import { REVERSE_TRANSFER } from '../../src/transactions/reversal-parameters';
import { TRANSFER_FUNDS } from '../../src/transactions/transfer-parameters';
import { DEPOSIT_FUNDS } from '../../src/treasury/deposit-parameters';
import { connectTestDatabase } from '../support/db';

/** Each movement's typed parameters (TypeScript) against its function's signature (PostgreSQL). */
describe('movement parameters', () => {
  let db: Client;
  beforeAll(async () => (db = await connectTestDatabase()));
  afterAll(() => db.end());

  /** The function's arguments, name and type, in order; one overload only. */
  async function signature(fn: string): Promise<[string, string][]> {
    const result = await db.query<{ name: string; type: string; overloads: string }>(
      `SELECT a.name, format_type(a.type, NULL) AS type, count(*) OVER (PARTITION BY a.n) AS overloads
       FROM pg_proc p, unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) WITH ORDINALITY AS a(name, type, n)
       WHERE p.proname = $1 ORDER BY a.n`,
      [fn],
    );
    expect(result.rows.every((row) => row.overloads === '1')).toBe(true);
    return result.rows.map((row) => [row.name, row.type]);
  }

  const expected = (fn: MovementFunction<unknown>): [string, string][] =>
    Object.entries(fn.argumentTypes).map(([field, type]) => [
      `p_${field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`,
      type as string,
    ]);

  it.each([
    ['transfer_funds', TRANSFER_FUNDS],
    ['reverse_transfer', REVERSE_TRANSFER],
    ['deposit_funds', DEPOSIT_FUNDS],
    ['place_hold', PLACE_HOLD],
    ['capture_hold', CAPTURE_HOLD],
    // Not keyed: a release or an expiry (src/holds/sql/hold_return.sql).
    ['hold_return', RETURN_HOLD],
    ['open_dispute', OPEN_DISPUTE],
    ['dispute_act', DISPUTE_ACT],
    ['open_dispute', OPEN_DISPUTE],
    ['dispute_act', DISPUTE_ACT],
  ] as [string, MovementFunction<unknown>][])('%s: every argument named and typed, in order', async (name, fn) => {
    expect(fn.name).toBe(name);
    expect(await signature(name)).toEqual(expected(fn));
  });

  it('every movement function starts with the key (owner, key, hash), as the skeleton claims it', () => {
    for (const fn of [
      TRANSFER_FUNDS,
      REVERSE_TRANSFER,
      DEPOSIT_FUNDS,
      PLACE_HOLD,
      CAPTURE_HOLD,
      OPEN_DISPUTE,
    ] as MovementFunction<unknown>[]) {
      expect(Object.keys(fn.argumentTypes).slice(0, 3)).toEqual(['owner', 'idempotencyKey', 'requestHash']);
    }
  });
});
