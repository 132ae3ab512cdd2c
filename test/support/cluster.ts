import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  type ClusterOptions,
  type ClusterState,
  clusterMembers,
  clusterUrls,
  downCluster,
  killNode,
  leaderOf,
  type Member,
  type NodeName,
  nodeOwnerUrl,
  psqlBin,
  readState,
  upCluster,
  waitForNewLeader,
} from '../../scripts/cluster/local-cluster';
import { makeTempDir, removeTempDir } from './temp-dir';

const run = promisify(execFile);

/**
 * The local Patroni cluster (npm run cluster) from a test. Needs scripts/cluster/install-tools
 * (.ci/run runs it). Usage:
 *
 *   const cluster = await startCluster();              // ~40 s: etcd, three nodes, roles, payments
 *   env DATABASE_URL=cluster.databaseUrl, DATABASE_OWNER_URL=cluster.ownerUrl
 *   const killed = await cluster.killLeader();         // SIGKILL its Patroni and postmaster
 *   await cluster.waitForNewLeader(killed);            // Patroni promotes a replica within ~30 s
 *   await cluster.stop();                              // in afterAll
 */
export interface TestCluster {
  options: ClusterOptions;
  state: ClusterState;
  /** Multi-host, target_session_attrs=read-write: as the service role, and as the owner. */
  databaseUrl: string;
  ownerUrl: string;
  members(): Promise<Member[]>;
  leader(): Promise<Member>;
  /** One node's URL as the owner, whatever its role (to read a replica). */
  nodeOwnerUrl(name: string): string;
  /** Loses the current leader as if its machine died; returns its name. */
  killLeader(): Promise<string>;
  waitForNewLeader(formerLeader: string, timeoutMs?: number): Promise<Member>;
  stop(): Promise<void>;
}

/** Starts a cluster of its own in a temp directory. */
export async function startCluster(): Promise<TestCluster> {
  const dir = makeTempDir('cluster', { forPostgres: true });
  const options = { dir, toolsDir: clusterToolsDir() };
  try {
    await upCluster(options);
  } catch (error) {
    await downCluster(options);
    removeTempDir(dir);
    throw error;
  }
  return attachCluster(options);
}

/** The cluster whose state is in `options.dir` (one `npm run cluster -- up` started, for example). */
export function attachCluster(options: ClusterOptions): TestCluster {
  const state = readState(options);
  if (!state) throw new Error(`no cluster in ${options.dir}`);
  const { databaseUrl, ownerUrl } = clusterUrls(state);
  const leader = async () => {
    const current = leaderOf(await clusterMembers(state));
    if (!current) throw new Error('the cluster has no running leader');
    return current;
  };
  return {
    options,
    state,
    databaseUrl,
    ownerUrl,
    members: () => clusterMembers(state),
    leader,
    nodeOwnerUrl: (name) => nodeOwnerUrl(state, name as NodeName),
    killLeader: async () => {
      const { name } = await leader();
      killNode(options, state, name as NodeName);
      return name;
    },
    waitForNewLeader: (formerLeader, timeoutMs = 60_000) => waitForNewLeader(state, formerLeader, timeoutMs),
    stop: async () => {
      await downCluster(options);
      removeTempDir(options.dir);
    },
  };
}

export function clusterToolsDir(): string {
  return resolve(__dirname, '..', '..', '.tools', 'cluster');
}

/**
 * Runs SQL with the cluster's own psql (libpq), which understands multi-host URLs and
 * target_session_attrs; returns the unaligned rows, `|` between columns.
 */
export async function psql(url: string, sql: string, timeoutMs = 30_000): Promise<string[]> {
  const { stdout } = await run(
    psqlBin(clusterToolsDir()),
    ['-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql, url],
    {
      env: { ...process.env, PGCONNECT_TIMEOUT: '5' },
      timeout: timeoutMs,
    },
  );
  return stdout.split('\n').filter((line) => line !== '');
}
