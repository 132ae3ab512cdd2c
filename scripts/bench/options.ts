import { parseArgs } from 'node:util';

/** Which loops measure the transfers: closed (capacity), open (latency at a rate), or both. */
export type Loops = 'both' | 'closed' | 'open';

export interface BenchOptions {
  durationS: number;
  warmupS: number;
  concurrency: number;
  users: number;
  hot: number;
  hotShare: number;
  loop: Loops;
  /** The open loop's offered transfers per second. */
  rate: number;
  boundDurationS: number;
  seedLarge: boolean;
  seedUsers: number;
  seedEntries: number;
  reads: boolean;
  databaseUrl?: string;
  kafka: boolean;
  /** One webhook endpoint subscribed to every event, with a receiver that counts them. */
  webhook: boolean;
  /** After the transfers, a closed-loop phase placing holds and capturing them (scripts/lib/holds-mix.ts). */
  holds: boolean;
  outDir: string;
}

export const HELP = `Usage: npm run bench -- [options]

Starts PostgreSQL (embedded, fsync on, unless --database-url) and the built service, measures the database's bound
(pgbench's TPC-B on the same server), then drives transfers over HTTP: a closed loop for capacity, an open loop at
--rate for latency. Judges the run against the spec's targets and the ratio to the bound, checks the ledger
invariants, writes results.json and report.html.

  --loop L            both (default), closed or open
  --duration S        measured seconds of each loop (default 30)
  --concurrency N     closed-loop clients; open-loop connections (default 32)
  --rate N            open loop: transfers/s offered at fixed send times (default 500, the spec's rate per node)
  --warmup S          closed-loop seconds before measuring, and as many at --rate before the open loop (default 5)
  --users N           users, senders in turn, each under the per-user RATE_LIMIT_PER_SECOND (default 1000)
  --hot N             hot receivers (default 5)
  --hot-share F       share of transfers to a hot receiver, 0..1 (default 0.2)
  --bound-duration S  seconds of pgbench's TPC-B (default 10; 0 skips it; PGBENCH=/path/to/pgbench)
  --seed-large        run on the empty database, add --seed-users users and --seed-entries ledger entries in SQL
                      (defaults 100000 and 50000000, over 400 days of monthly partitions), run again
  --reads             also measure history reads (implied by --seed-large)
  --database-url URL  an existing PostgreSQL instead of the embedded one (several hosts: the service gets them all)
  --kafka             start a real Kafka broker and publish the outbox to it
  --webhook           subscribe one webhook endpoint to every event; count deliveries; sample the service's oldest
                      pending delivery each second of the load (judged at --rate: under 10 s)
  --holds             after the transfers, a closed-loop phase of the same length: place a hold, then capture it
  --out DIR           where results go, one folder per run (default bench-results)

Variables such as DB_POOL_SIZE or RATE_LIMIT_PER_SECOND pass through to the service. Exit status: 0 when every
check passes; 1 when one fails (a spec target, the ratio to the bound, a failed request, the ledger invariants, the
outbox, the webhooks); 2 on bad usage.`;

export type ParsedCommandLine =
  { kind: 'help' } | { kind: 'error'; message: string } | { kind: 'run'; options: BenchOptions };

export class UsageError extends Error {}

const LOOPS: Loops[] = ['both', 'closed', 'open'];

/** Reads the command line; never throws: bad input comes back as a message for the caller to print. */
export function parseCommandLine(argv: string[]): ParsedCommandLine {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        loop: { type: 'string', default: 'both' },
        duration: { type: 'string', default: '30' },
        warmup: { type: 'string', default: '5' },
        concurrency: { type: 'string', default: '32' },
        users: { type: 'string', default: '1000' },
        hot: { type: 'string', default: '5' },
        'hot-share': { type: 'string', default: '0.2' },
        rate: { type: 'string', default: '500' },
        'bound-duration': { type: 'string', default: '10' },
        'seed-large': { type: 'boolean', default: false },
        'seed-users': { type: 'string', default: '100000' },
        'seed-entries': { type: 'string', default: '50000000' },
        reads: { type: 'boolean', default: false },
        'database-url': { type: 'string' },
        kafka: { type: 'boolean', default: false },
        webhook: { type: 'boolean', default: false },
        holds: { type: 'boolean', default: false },
        out: { type: 'string', default: 'bench-results' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) return { kind: 'help' };
    if (!LOOPS.includes(values.loop as Loops)) {
      throw new UsageError(`--loop must be one of ${LOOPS.join(', ')}, got "${values.loop}"`);
    }
    const durationS = number(values.duration, '--duration', 1, 86_400);
    const users = integer(values.users, '--users', 2, 1_000_000);
    const options: BenchOptions = {
      durationS,
      warmupS: number(values.warmup, '--warmup', 0, 3_600),
      concurrency: integer(values.concurrency, '--concurrency', 1, 10_000),
      users,
      hot: integer(values.hot, '--hot', 1, users),
      hotShare: number(values['hot-share'], '--hot-share', 0, 1),
      loop: values.loop as Loops,
      rate: number(values.rate, '--rate', 1, 1_000_000),
      boundDurationS: number(values['bound-duration'], '--bound-duration', 0, 86_400),
      seedLarge: values['seed-large'],
      seedUsers: integer(values['seed-users'], '--seed-users', 2, 100_000_000),
      seedEntries: integer(values['seed-entries'], '--seed-entries', 0, 10_000_000_000),
      reads: values.reads || values['seed-large'],
      databaseUrl: values['database-url'],
      kafka: values.kafka,
      webhook: values.webhook,
      holds: values.holds,
      outDir: values.out,
    };
    return { kind: 'run', options };
  } catch (error) {
    if (error instanceof UsageError) return { kind: 'error', message: error.message };
    // node:util parseArgs errors carry codes such as ERR_PARSE_ARGS_UNKNOWN_OPTION; their message is clear.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return { kind: 'error', message: (error as Error).message.split('. To specify')[0] };
    }
    throw error;
  }
}

function number(raw: string, flag: string, min: number, max: number, whole = false): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  if (whole && !Number.isInteger(value)) throw new UsageError(`${flag} must be a whole number, got "${raw}"`);
  return value;
}

const integer = (raw: string, flag: string, min: number, max: number) => number(raw, flag, min, max, true);
