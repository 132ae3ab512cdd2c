/**
 * npm run cluster -- up|status|failover|down
 *
 * A local high-availability PostgreSQL cluster (scripts/cluster/local-cluster.ts): etcd and three
 * Patroni nodes with PostgreSQL 18 and synchronous replication, under CLUSTER_DIR (.data/cluster).
 * `up` prints DATABASE_URL and DATABASE_OWNER_URL as shell assignments on stdout, the rest goes to
 * stderr: `eval "$(npm run --silent cluster -- up)"` sets both in the shell.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import {
  type ClusterOptions,
  clusterUrls,
  defaultClusterOptions,
  downCluster,
  patronictlList,
  readState,
  switchover,
  toolsInstalled,
  upCluster,
} from './local-cluster';

const USAGE = 'usage: npm run cluster -- up|status|failover|down';

async function up(options: ClusterOptions): Promise<number> {
  if (!toolsInstalled(options)) {
    execFileSync(resolve('scripts/cluster/install-tools'), { stdio: ['ignore', process.stderr, process.stderr] });
  }
  process.stderr.write(`starting etcd and three Patroni nodes under ${options.dir} ...\n`);
  const { alreadyUp } = await upCluster(options);
  process.stderr.write(alreadyUp ? 'the cluster is already up\n' : 'the cluster is up\n');
  process.stderr.write(patronictlList(options));
  printUrls(options);
  return 0;
}

function status(options: ClusterOptions): number {
  if (!readState(options)) {
    process.stderr.write(`no cluster under ${options.dir}: npm run cluster -- up\n`);
    return 1;
  }
  process.stdout.write(patronictlList(options));
  printUrls(options);
  return 0;
}

async function failover(options: ClusterOptions): Promise<number> {
  const state = readState(options);
  if (!state) {
    process.stderr.write(`no cluster under ${options.dir}: npm run cluster -- up\n`);
    return 1;
  }
  const { from, to } = await switchover(options, state);
  process.stdout.write(`the leader moved from ${from} to ${to}\n`);
  process.stdout.write(patronictlList(options));
  return 0;
}

async function down(options: ClusterOptions): Promise<number> {
  await downCluster(options);
  process.stdout.write(`the cluster is stopped and ${options.dir} removed\n`);
  return 0;
}

function printUrls(options: ClusterOptions): void {
  const { databaseUrl, ownerUrl } = clusterUrls(readState(options)!);
  process.stdout.write(`DATABASE_URL='${databaseUrl}'\nDATABASE_OWNER_URL='${ownerUrl}'\n`);
}

async function main(command: string | undefined): Promise<number> {
  const options = defaultClusterOptions();
  switch (command) {
    case 'up':
      return up(options);
    case 'status':
      return status(options);
    case 'failover':
      return failover(options);
    case 'down':
      return down(options);
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`cluster: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
