import { parseArgs } from 'node:util';

export interface BenchOptions {
  durationS: number;
  warmupS: number;
  concurrency: number;
  users: number;
  hot: number;
  hotShare: number;
  /** Open loop at this many transfers per second when set; closed loop otherwise. */
  rate?: number;
  boundDurationS: number;
  driverTpcbDurationS: number;
  tpcbScale: number;
  seedLarge: boolean;
  seedUsers: number;
  seedEntries: number;
  reads: boolean;
  readDurationS: number;
  databaseUrl?: string;
  kafka: boolean;
  /** One webhook endpoint subscribed to every event, with a receiver that counts them. */
  webhook: boolean;
  upiProvider: boolean;
  outDir: string;
  json: boolean;
}

export const HELP = `Usage: npm run bench -- [options]

Starts PostgreSQL (embedded, fsync on, unless --database-url) and the built service, measures the
database's own bound (pgbench's TPC-B, the C client, on the same server), then drives transfers
over HTTP and reports throughput, latency, batch sizes, CPU, WAL, commits and statements per
transfer, memory, and the ledger invariants. Writes results.json and report.html (charts) to --out.

Load
  --duration S        measured seconds of transfers (default 30)
  --warmup S          closed-loop warm-up seconds before measuring (default 5); with --rate,
                      as many seconds again at that rate before the measurement
  --concurrency N     clients in closed loop, connections in open loop (default 32)
  --users N           users registered over HTTP (default 1000); senders take turns, so each
                      sends throughput/N per second, which must stay under the service's
                      per-user limit (RATE_LIMIT_PER_SECOND, default 10)
  --hot N             hot receivers (default 5)
  --hot-share F       share of transfers sent to a hot receiver, 0..1 (default 0.2)
  --rate N            open loop: offer N transfers/s at fixed times; latency counts from the
                      intended send time, so queueing is not hidden (default: closed loop)

Bound
  --bound-duration S  seconds of pgbench's TPC-B: scale 10, 16 clients, 2 threads, -M prepared,
                      against the service's PostgreSQL, in a database of its own (default 10; 0
                      skips it). Needs pgbench (Debian: apt-get install postgresql-client), or
                      PGBENCH=/path/to/pgbench. With --rate, the same TPC-B is then throttled to
                      that rate for as long: the database's own latency at the offered rate
  --driver-tpcb S     also run the same TPC-B through Node's pg driver for S seconds: the driver's
                      overhead, not the bound (default 0, skipped)
  --tpcb-scale N      scale of --driver-tpcb: N branches, 10N tellers, 100,000N accounts (default 10)

Data growth
  --seed-large        run once on the empty database, then add --seed-users users and
                      --seed-entries ledger entries in SQL and run again; compares the two
  --seed-users N      (default 100000)
  --seed-entries N    (default 5000000)
  --reads             also measure history reads (ledger page, transaction list, statement) after the
                      transfers, at --concurrency (implied by --seed-large)
  --read-duration S   measured seconds of reads (default: --duration)

Environment
  --database-url URL  use an existing PostgreSQL instead of the embedded one
  --kafka             start a real Kafka broker and publish the outbox to it
  --webhook           subscribe one webhook endpoint to every event; count deliveries at its receiver
  --upi-provider      start an accept-all UPI verification provider
  --out DIR           where results go, one folder per run (default bench-results)
  --json              print the results as one JSON line (progress goes to stderr)
  --help              this text

Variables such as DB_POOL_SIZE, RATE_LIMIT_PER_SECOND or KAFKA_BROKERS pass through to the service.
Exit status: 0 all good, 1 failed requests or broken invariants, 2 bad usage.`;

export type ParsedCommandLine =
  { kind: 'help' } | { kind: 'error'; message: string } | { kind: 'run'; options: BenchOptions };

export class UsageError extends Error {}

/** Reads the command line; never throws: bad input comes back as a message for the caller to print. */
export function parseCommandLine(argv: string[]): ParsedCommandLine {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        duration: { type: 'string', default: '30' },
        warmup: { type: 'string', default: '5' },
        concurrency: { type: 'string', default: '32' },
        users: { type: 'string', default: '1000' },
        hot: { type: 'string', default: '5' },
        'hot-share': { type: 'string', default: '0.2' },
        rate: { type: 'string' },
        'bound-duration': { type: 'string', default: '10' },
        'driver-tpcb': { type: 'string', default: '0' },
        'tpcb-scale': { type: 'string', default: '10' },
        'seed-large': { type: 'boolean', default: false },
        'seed-users': { type: 'string', default: '100000' },
        'seed-entries': { type: 'string', default: '5000000' },
        reads: { type: 'boolean', default: false },
        'read-duration': { type: 'string' },
        'database-url': { type: 'string' },
        kafka: { type: 'boolean', default: false },
        webhook: { type: 'boolean', default: false },
        'upi-provider': { type: 'boolean', default: false },
        out: { type: 'string', default: 'bench-results' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) return { kind: 'help' };
    const durationS = number(values.duration, '--duration', 1, 86_400);
    const users = integer(values.users, '--users', 2, 1_000_000);
    const options: BenchOptions = {
      durationS,
      warmupS: number(values.warmup, '--warmup', 0, 3_600),
      concurrency: integer(values.concurrency, '--concurrency', 1, 10_000),
      users,
      hot: integer(values.hot, '--hot', 1, users),
      hotShare: number(values['hot-share'], '--hot-share', 0, 1),
      rate: values.rate === undefined ? undefined : number(values.rate, '--rate', 1, 1_000_000),
      boundDurationS: number(values['bound-duration'], '--bound-duration', 0, 86_400),
      driverTpcbDurationS: number(values['driver-tpcb'], '--driver-tpcb', 0, 86_400),
      tpcbScale: integer(values['tpcb-scale'], '--tpcb-scale', 1, 1_000),
      seedLarge: values['seed-large'],
      seedUsers: integer(values['seed-users'], '--seed-users', 2, 100_000_000),
      seedEntries: integer(values['seed-entries'], '--seed-entries', 0, 10_000_000_000),
      reads: values.reads || values['seed-large'],
      readDurationS:
        values['read-duration'] === undefined
          ? durationS
          : number(values['read-duration'], '--read-duration', 1, 86_400),
      databaseUrl: values['database-url'],
      kafka: values.kafka,
      webhook: values.webhook,
      upiProvider: values['upi-provider'],
      outDir: values.out,
      json: values.json,
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

function number(raw: string, flag: string, min: number, max: number): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function integer(raw: string, flag: string, min: number, max: number): number {
  const value = number(raw, flag, min, max);
  if (!Number.isInteger(value)) throw new UsageError(`${flag} must be a whole number, got "${raw}"`);
  return value;
}
