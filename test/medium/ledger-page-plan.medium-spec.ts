import { Pool, type QueryConfig } from 'pg';
import { LedgerEntriesRepository } from '../../src/ledger/ledger-entries.repository';
import { createScratchDatabase } from '../support/db';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Every scan of a ledger_entries partition in a plan: which partition, how, and whether it ran. */
function ledgerScans(node: PlanNode): { partition: string; node: string; index?: string; ran: boolean }[] {
  const own = node['Relation Name']?.startsWith('ledger_entries')
    ? [
        {
          partition: node['Relation Name'],
          node: node['Node Type'],
          index: node['Index Name'],
          ran: node['Actual Loops'] > 0,
        },
      ]
    : [];
  return [...own, ...(node.Plans ?? []).flatMap(ledgerScans)];
}

const INDEX_SCANS = ['Index Scan', 'Index Only Scan'];

/**
 * A cursor page of the ledger, which has no primary key: the cursor's entry is one probe of
 * ix_ledger_entries_user_created in the cursor's month, and the page is read from that month down,
 * the later months pruned, however many months the table holds.
 */
describe('the ledger cursor page plan', () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let pool: Pool;
  let sent: QueryConfig[];
  let ledger: LedgerEntriesRepository;
  let referenceId: string;
  let userId: string;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = new Pool({ connectionString: scratch.url, max: 1 });
    // An idle connection the server ends (the scratch database dropped at the end) is not a failure.
    pool.on('error', () => undefined);
    // Two users with an entry every ten minutes from 2025-09 to 2026-01, five months.
    await pool.query(`SELECT ensure_partitions('ledger_entries', '2025-09-01', '2026-02-01')`);
    const { rows } = await pool.query<{ id: string; reference_id: string }>(
      `INSERT INTO users (reference_id, name, upi_id, phone_number, balance)
       SELECT gen_random_uuid(), 'Plan ' || i, 'plan' || i || '@okbank', '9000000000', 0 FROM generate_series(1, 2) i
       RETURNING id::text, reference_id::text`,
    );
    [{ id: userId, reference_id: referenceId }] = rows;
    await pool.query(
      `INSERT INTO ledger_entries (user_id, transaction_reference_id, entry_type, amount, balance_before, balance_after, created_at, hash)
       SELECT u, gen_random_uuid(), 'CREDIT', 1, g - 1, g, timestamptz '2025-09-01' + g * interval '10 minutes',
              decode(repeat('0', 64), 'hex')
       FROM unnest($1::bigint[]) u CROSS JOIN generate_series(1, 21000) g ORDER BY 7, 1`,
      [rows.map((row) => row.id)],
    );
    await pool.query('VACUUM ANALYZE ledger_entries');
    sent = [];
    const spy = {
      query: (config: QueryConfig) => {
        sent.push(config);
        return pool.query(config);
      },
    };
    ledger = new LedgerEntriesRepository(spy as unknown as Pool);
  }, 120_000);
  afterAll(async () => {
    await pool.end();
    await scratch.drop();
  });

  /** The plan of the last query the repository sent, run as a prepared statement: custom (values known) or generic. */
  async function planOfLast(mode: 'custom' | 'generic'): Promise<PlanNode> {
    const { text, values = [] } = sent[sent.length - 1];
    const literals = values.map((value) => `'${String(value).replaceAll("'", "''")}'`);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL plan_cache_mode = force_${mode}_plan`);
      await client.query(`PREPARE planned AS ${text}`);
      const explained = await client.query(
        `EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) EXECUTE planned(${literals.join(', ')})`,
      );
      await client.query('DEALLOCATE planned');
      return (explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  it('has no primary key: the user and time index is the only one', async () => {
    const { rows } = await pool.query(
      `SELECT c.contype::text AS type, i.relname AS index FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
       LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid WHERE x.indrelid = 'ledger_entries'::regclass`,
    );
    expect(rows).toEqual([{ type: null, index: 'ix_ledger_entries_user_created' }]);
  });

  it.each(['custom', 'generic'] as const)(
    'reads the %s plan of a page from the cursor’s month down, through the user and time index only',
    async (mode) => {
      // Deep in November: the first page's last entry is in January, this one far below it.
      const anchor = await pool.query<{ id: string; micros: string }>(
        `SELECT id::text, (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros FROM ledger_entries
         WHERE user_id = $1 AND created_at < '2025-11-15' ORDER BY created_at DESC, id DESC LIMIT 1`,
        [userId],
      );
      const { id, micros } = anchor.rows[0];
      const page = await ledger.findPageAfter(referenceId, { id, createdAtMicros: micros }, 11);
      expect(page?.rows?.map((row) => row.createdAt.toISOString())).toEqual(
        Array.from({ length: 11 }, (_, i) =>
          new Date(Date.parse('2025-11-14T23:50:00Z') - (i + 1) * 600_000).toISOString(),
        ),
      );

      const scans = ledgerScans(await planOfLast(mode));
      expect(
        scans.filter((scan) => !INDEX_SCANS.includes(scan.node) || !scan.index?.endsWith('_user_id_created_at_id_idx')),
      ).toEqual([]);
      // The anchor's probe and the page: November's partition only.
      expect(scans.filter((scan) => scan.ran).map((scan) => scan.partition)).toEqual([
        'ledger_entries_p202511',
        'ledger_entries_p202511',
      ]);
      // Later months are not even in the plan (pruned), whatever the partitions job made ahead.
      expect(scans.map((scan) => scan.partition).filter((partition) => partition > 'ledger_entries_p202511')).toEqual(
        [],
      );
    },
  );

  it('pages through the month boundary into the month before', async () => {
    const anchor = await pool.query<{ id: string; micros: string }>(
      `SELECT id::text, (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros FROM ledger_entries
       WHERE user_id = $1 AND created_at = '2025-11-01 00:30:00+00'`,
      [userId],
    );
    const { id, micros } = anchor.rows[0];
    const page = await ledger.findPageAfter(referenceId, { id, createdAtMicros: micros }, 5);
    expect(page?.rows?.map((row) => row.createdAt.toISOString())).toEqual([
      '2025-11-01T00:20:00.000Z',
      '2025-11-01T00:10:00.000Z',
      '2025-11-01T00:00:00.000Z',
      '2025-10-31T23:50:00.000Z',
      '2025-10-31T23:40:00.000Z',
    ]);
    const ran = ledgerScans(await planOfLast('generic')).filter((scan) => scan.ran);
    expect(ran.map((scan) => scan.partition)).toEqual([
      'ledger_entries_p202511',
      'ledger_entries_p202511',
      'ledger_entries_p202510',
    ]);
  });
});
