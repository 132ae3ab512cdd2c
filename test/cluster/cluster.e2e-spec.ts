import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { attachCluster, clusterToolsDir, psql, type TestCluster } from '../support/cluster';
import { makeTempDir, removeTempDir } from '../support/temp-dir';
import { waitUntil } from '../support/wait';

const run = promisify(execFile);

/** The built CLI, what `npm run cluster` runs after its build (the global setup builds dist/). */
async function cluster(dir: string, command: string): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [join(REPO_ROOT, 'dist', 'scripts', 'cluster', 'cluster.js'), command], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: '', CLUSTER_DIR: dir, CLUSTER_TOOLS_DIR: clusterToolsDir() },
    timeout: 150_000,
  });
}

function printedUrl(stdout: string, name: string): string {
  const url = new RegExp(`^${name}='([^']+)'$`, 'm').exec(stdout)?.[1];
  if (!url) throw new Error(`no ${name} in ${stdout}`);
  return url;
}

function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One cluster through its whole life, in order: each test starts from where the last left it.
 * Slow by nature (three PostgreSQL nodes, a switchover, a lost node): about a minute and a half.
 */
describe('npm run cluster: Patroni, etcd and three PostgreSQL 18 nodes with synchronous replication', () => {
  let dir: string;
  let ha: TestCluster;
  let ownerUrl: string;

  beforeAll(() => {
    dir = makeTempDir('cluster-cli', { forPostgres: true });
  });

  afterAll(async () => {
    if (existsSync(join(dir, 'cluster.json'))) await attachCluster({ dir, toolsDir: clusterToolsDir() }).stop();
    removeTempDir(dir);
  }, 60_000);

  it('up prints multi-host URLs; the owner lands on the writable primary, the service role owns nothing', async () => {
    const { stdout, stderr } = await cluster(dir, 'up');
    ha = attachCluster({ dir, toolsDir: clusterToolsDir() });
    ownerUrl = printedUrl(stdout, 'DATABASE_OWNER_URL');
    const hosts = ha.state.nodes.map((node) => `127.0.0.1:${node.postgresPort}`).join(',');
    expect(ownerUrl).toBe(ha.ownerUrl);
    expect(ownerUrl).toMatch(
      new RegExp(`^postgres://payments_owner:\\w+@${hosts}/payments\\?target_session_attrs=read-write$`),
    );
    expect(printedUrl(stdout, 'DATABASE_URL')).toMatch(
      new RegExp(`^postgres://payments_app:\\w+@${hosts}/payments\\?`),
    );
    expect(stderr).toContain('the cluster is up');

    const leader = await ha.leader();
    const [landed] = await psql(ownerUrl, 'SELECT current_user, inet_server_port(), pg_is_in_recovery()');
    expect(landed).toBe(`payments_owner|${leader.port}|f`);
    await psql(ownerUrl, 'CREATE TABLE failover_probe (id int PRIMARY KEY, note text)');
    await expect(psql(ha.databaseUrl, 'CREATE TABLE not_mine (id int)')).rejects.toThrow(
      /permission denied for schema public/,
    );
    expect(await psql(ha.databaseUrl, "INSERT INTO failover_probe VALUES (0, 'service role') RETURNING id")).toEqual([
      '0',
    ]);

    expect((await cluster(dir, 'up')).stderr).toContain('the cluster is already up');
  }, 240_000);

  it('a commit on the primary waits for a synchronous standby and shows on the replicas', async () => {
    const replicas = (await ha.members()).filter((member) => member.role !== 'leader');
    expect(replicas.map((member) => member.role).sort()).toEqual(['replica', 'sync_standby']);
    const syncStandby = replicas.find((member) => member.role === 'sync_standby')!;
    expect(await psql(ownerUrl, 'SHOW synchronous_standby_names')).toEqual([syncStandby.name]);
    await psql(ownerUrl, "INSERT INTO failover_probe VALUES (1, 'before the switchover')");
    for (const replica of replicas) {
      await waitUntil(
        async () =>
          (await psql(ha.nodeOwnerUrl(replica.name), 'SELECT note FROM failover_probe WHERE id = 1'))[0] ===
          'before the switchover',
        `row 1 on ${replica.name}`,
      );
    }
    const status = await cluster(dir, 'status');
    expect(status.stdout).toMatch(/Leader\s+\|\s+running/);
    expect(status.stdout).toMatch(/Sync Standby\s+\|\s+streaming/);
  }, 60_000);

  it('failover hands the primary to a replica, which is writable and has the row', async () => {
    const before = await ha.leader();
    const { stdout } = await cluster(dir, 'failover');
    const after = await ha.leader();
    expect(after.name).not.toBe(before.name);
    expect(stdout).toContain(`the leader moved from ${before.name} to ${after.name}`);

    const [landed] = await psql(ownerUrl, 'SELECT inet_server_port(), pg_is_in_recovery()');
    expect(landed).toBe(`${after.port}|f`);
    expect(await psql(ownerUrl, 'SELECT id FROM failover_probe ORDER BY id')).toEqual(['0', '1']);
    await psql(ownerUrl, "INSERT INTO failover_probe VALUES (2, 'after the switchover')");
  }, 120_000);

  it('losing the leader (SIGKILL to its Patroni and postgres) promotes a replica within 30 s, with every acknowledged row', async () => {
    const killedAt = Date.now();
    const killed = await ha.killLeader();
    const promoted = await ha.waitForNewLeader(killed, 60_000);
    expect(promoted.name).not.toBe(killed);
    expect(Date.now() - killedAt).toBeLessThan(30_000 + 5_000);

    const [landed] = await psql(ownerUrl, 'SELECT inet_server_port(), pg_is_in_recovery()');
    expect(landed).toBe(`${promoted.port}|f`);
    expect(await psql(ownerUrl, 'SELECT id FROM failover_probe ORDER BY id')).toEqual(['0', '1', '2']);
    // Strict synchronous mode: this commit waits until the remaining replica follows the new leader.
    await psql(ownerUrl, "INSERT INTO failover_probe VALUES (3, 'after losing the leader')", 60_000);
    expect(await psql(ownerUrl, 'SELECT count(*) FROM failover_probe')).toEqual(['4']);
  }, 150_000);

  it('down stops every process and removes the state', async () => {
    const pids = [ha.state.etcd.pid, ...ha.state.nodes.map((node) => node.patroniPid)];
    expect(pids.filter(isRunning)).toHaveLength(3); // etcd and the two surviving Patroni nodes
    const { stdout } = await cluster(dir, 'down');
    expect(stdout).toContain('the cluster is stopped');
    expect(pids.filter(isRunning)).toEqual([]);
    expect(existsSync(join(dir, 'cluster.json'))).toBe(false);
    await expect(psql(ownerUrl, 'SELECT 1', 10_000)).rejects.toThrow();
  }, 60_000);
});
