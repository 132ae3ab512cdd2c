import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { REPO_ROOT, ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, type RegisteredUser } from '../support/api-client';
import { makeTempDir, removeTempDir } from '../support/temp-dir';

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI (what `npm run backup` / `npm run restore` run after their build), on the embedded database. */
async function cli(
  name: 'backup' | 'restore' | 'audit',
  args: string[],
  env: Record<string, string>,
): Promise<CliResult> {
  const script = join(REPO_ROOT, 'dist', 'scripts', name === 'audit' ? 'audit' : 'backup', `${name}.js`);
  const fullEnv = { ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', DATABASE_OWNER_URL: '', ...env };
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], {
      cwd: REPO_ROOT,
      env: fullEnv,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The one line a failing command ends with. */
const failureLine = (result: CliResult) => result.stderr.trim().split('\n').at(-1);

describe('backups and point-in-time recovery (embedded database, Barman)', () => {
  const root = makeTempDir('payments-backup', { forPostgres: true });
  const dir = (name: string) => join(root, name);
  const serviceEnv = (dataDir: string, backupDir = '') => ({
    DATABASE_URL: '',
    DATABASE_OWNER_URL: '',
    JWT_SECRET: '',
    DATA_DIR: dir(dataDir),
    BACKUP_DIR: backupDir && dir(backupDir),
  });
  const running: ServiceProcess[] = [];
  const start = async (env: Record<string, string>) =>
    running[running.push(await ServiceProcess.start(env, 90_000)) - 1];
  afterAll(async () => {
    for (const service of running) await service.stop();
    removeTempDir(root);
  });

  it('refuses to run without BACKUP_DIR, or with no backup in it', async () => {
    const withoutBackupDir = await cli('backup', [], { DATA_DIR: dir('nothing'), BACKUP_DIR: '' });
    expect({ code: withoutBackupDir.code, line: failureLine(withoutBackupDir) }).toEqual({
      code: 1,
      line: 'backup failed: BACKUP_DIR is not set: set it to where backups and archived WAL are kept',
    });
    mkdirSync(dir('empty-backups'));
    const empty = await cli('restore', ['--to', 'latest', '--data-dir', dir('from-empty')], {
      DATA_DIR: dir('nothing'),
      BACKUP_DIR: dir('empty-backups'),
    });
    expect({ code: empty.code, line: failureLine(empty) }).toEqual({
      code: 1,
      line: `restore failed: no backup in ${dir('empty-backups')}: take one with npm run backup`,
    });
    const usage = await cli('restore', ['--to', '2026-01-01 10:00', '--data-dir', dir('x')], { BACKUP_DIR: dir('b') });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run restore -- --to <ISO-8601 time');
  });

  it('restores exactly the transfers committed before the time, and all of them with latest; the audit passes', async () => {
    const source = await start(serviceEnv('data', 'backups'));
    const api = new ApiClient(source.baseUrl);
    const [alice, bob] = await Promise.all([api.registerUser({ balance: 1000 }), api.registerUser({ balance: 1000 })]);
    const transfers = async (count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const response = await api.transfer(alice, bob.upiId, `${i + 1}.25`);
        expect(response.status).toBe(201);
        ids.push(response.body.referenceId);
      }
      return ids;
    };
    const beforeFirstBackup = new Date();
    const beforeBackup = await transfers(2);

    const env = { DATA_DIR: dir('data'), BACKUP_DIR: dir('backups') };
    const backup = await cli('backup', [], env);
    expect(backup).toEqual(expect.objectContaining({ code: 0, stderr: '' }));
    expect(backup.stdout).toMatch(/^Base backup \d{8}T\d{6} finished at \S+Z in \d+ ms/m);

    const afterBackup = await transfers(2);
    await sleep(50);
    const target = new Date();
    await sleep(50);
    const afterTarget = await transfers(2);

    const tooEarly = await cli('restore', ['--to', beforeFirstBackup.toISOString(), '--data-dir', dir('early')], env);
    expect({ code: tooEarly.code, line: failureLine(tooEarly) }).toEqual({
      code: 1,
      line: expect.stringMatching(
        `^restore failed: ${beforeFirstBackup.toISOString()} is before the first backup \\(finished \\S+Z\\): nothing to restore it from$`,
      ),
    });
    mkdirSync(dir('occupied'));
    writeFileSync(join(dir('occupied'), 'keep-me'), 'x');
    const occupied = await cli('restore', ['--to', 'latest', '--data-dir', dir('occupied')], env);
    expect({ code: occupied.code, line: failureLine(occupied) }).toEqual({
      code: 1,
      line: `restore failed: ${dir('occupied')} is not empty: restore into a new or empty DATA_DIR`,
    });

    const atTarget = await cli('restore', ['--to', target.toISOString(), '--data-dir', dir('at-target')], env);
    expect(atTarget).toEqual(expect.objectContaining({ code: 0, stderr: '' }));
    expect(atTarget.stdout).toContain(`Restored ${dir('at-target')} to ${target.toISOString()}: 4 transactions`);
    const latest = await cli('restore', ['--to', 'latest', '--data-dir', dir('latest')], env);
    expect(latest).toEqual(expect.objectContaining({ code: 0, stderr: '' }));
    await source.stop();

    expect(await restoredTransfers('at-target', alice)).toEqual([...beforeBackup, ...afterBackup].sort());
    expect(await restoredTransfers('latest', alice)).toEqual([...beforeBackup, ...afterBackup, ...afterTarget].sort());
  }, 300_000);

  /** Starts the service on a restored DATA_DIR, lists the sender's transfers, stops it, and audits the ledger. */
  async function restoredTransfers(dataDir: string, sender: RegisteredUser): Promise<string[]> {
    const service = await start(serviceEnv(dataDir));
    const listing = await new ApiClient(service.baseUrl).get(
      `/api/v1/transactions/user/${sender.upiId}?size=100`,
      sender.token,
    );
    await service.stop();
    expect(listing.status).toBe(200);
    const audit = await cli('audit', [], { DATA_DIR: dir(dataDir) });
    expect({ code: audit.code, ok: JSON.parse(audit.stdout).ok }).toEqual({ code: 0, ok: true });
    return (listing.body.content as { referenceId: string }[]).map((transfer) => transfer.referenceId).sort();
  }
});
