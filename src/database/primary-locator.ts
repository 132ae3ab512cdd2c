import { Client, type ClientBase } from 'pg';
import { NoWritablePrimaryError } from '../common/errors/postgres-errors';
import { type DatabaseHost, type DatabaseTarget, hostLabel } from '../config/database-url';

/** How long one host may take to accept a probe's connection and answer it. */
const PROBE_TIMEOUT_MS = 2000;

// libpq's two checks in one: `primary` (not in recovery) and `read-write` (writes accepted).
const WRITABILITY_SQL =
  "SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') = 'on' AS read_only";

export interface HostProbe {
  host: DatabaseHost;
  writable: boolean;
  /** The server answered (it may still be read-only). */
  reached: boolean;
  /** Why the host was passed over, as the end of a sentence about it: "is read-only (...)". */
  reason?: string;
}

/**
 * Where the writable primary of DATABASE_URL is. New pool connections go to `current`; `find()`
 * tries the hosts in the URL's order, as libpq does, and moves `current` to the first writable
 * one. Connections left on another host are closed then, so none keeps writing to a demoted
 * server (their next use answers 503 once, and the pool replaces them).
 */
export class PrimaryLocator {
  private currentHost: DatabaseHost;
  private readonly assigned = new WeakMap<ClientBase, DatabaseHost>();
  private readonly connections = new Map<ClientBase, { host: DatabaseHost; client: Client }>();

  constructor(readonly target: DatabaseTarget) {
    this.currentHost = target.hosts[0];
  }

  get current(): DatabaseHost {
    return this.currentHost;
  }

  get hostList(): string {
    return this.target.hosts.map(hostLabel).join(', ');
  }

  /** The hosts in order up to the first writable one; `primary` is that one, if any. */
  async find(): Promise<{ primary?: DatabaseHost; probes: HostProbe[] }> {
    const probes: HostProbe[] = [];
    for (const host of this.target.hosts) {
      const probe = await probeHost(host);
      probes.push(probe);
      if (probe.writable) return { primary: host, probes };
    }
    return { probes };
  }

  /** Makes `host` the current primary; true when that moved it (the old host's connections are closed). */
  use(host: DatabaseHost): boolean {
    if (host === this.currentHost) return false;
    this.currentHost = host;
    for (const { host: on, client } of this.connections.values()) {
      if (on !== host) void client.end().catch(() => undefined);
    }
    return true;
  }

  /** A new pool connection is about to go to `host` (the current primary when it was made). */
  assign(client: Client, host: DatabaseHost): void {
    this.assigned.set(client, host);
  }

  /** The host a pool connection went to. */
  hostOf(client: ClientBase): DatabaseHost {
    return this.assigned.get(client) ?? this.currentHost;
  }

  /** A pool connection found writable: closed if the primary moves away from its host, forgotten when it ends. */
  track(client: Client): void {
    this.connections.set(client, { host: this.hostOf(client), client });
    client.once('end', () => this.connections.delete(client));
  }
}

/** Refuses a connection to a server that does not take writes (a standby, or read-only by setting). */
export async function requireWritable(client: ClientBase, host: DatabaseHost): Promise<void> {
  const reason = await readOnlyReason(client);
  if (reason) throw new NoWritablePrimaryError(`the database server at ${hostLabel(host)} ${reason}`);
}

async function readOnlyReason(client: ClientBase): Promise<string | undefined> {
  const { rows } = await client.query<{ in_recovery: boolean; read_only: boolean }>(WRITABILITY_SQL);
  if (rows[0].in_recovery) return 'is a standby (in recovery)';
  if (rows[0].read_only) return 'is read-only (default_transaction_read_only is on)';
  return undefined;
}

async function probeHost(host: DatabaseHost): Promise<HostProbe> {
  const client = new Client({
    connectionString: host.url,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  // A connection that drops after the answer must not crash the process: the probe is over.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const reason = await readOnlyReason(client);
    return { host, writable: reason === undefined, reached: true, reason };
  } catch (error) {
    return { host, writable: false, reached: false, reason: `could not be used (${firstLine(error)})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function firstLine(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return firstLine(error.errors[0]);
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] || 'unknown error';
}

/** `h1:5432 is a standby (in recovery); h2:5432 cannot be reached (...)` for a boot line or a warning. */
export function describeProbes(probes: HostProbe[]): string {
  return probes.map((probe) => `${hostLabel(probe.host)} ${probe.reason ?? 'is writable'}`).join('; ');
}
