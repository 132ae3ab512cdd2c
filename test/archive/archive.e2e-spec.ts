import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { REPO_ROOT, ServiceProcess } from '../../scripts/lib/service-process';
import { ApiClient, type RegisteredUser } from '../support/api-client';
import { expectProblem } from '../support/problem';
import { makeTempDir, removeTempDir } from '../support/temp-dir';

const run = promisify(execFile);

// A past month written through the real service: the service and its embedded PostgreSQL run
// under libfaketime in mid-December 2017; everything after runs at the real date on the same
// DATA_DIR, as an operator would: npm run archive, the statement, npm run audit, --restore.

const FAKED_INSTANT = Date.parse('2017-12-15T10:00:00Z');
const DAY_MS = 86_400_000;
const LIBFAKETIME = ['x86_64-linux-gnu', 'aarch64-linux-gnu']
  .map((arch) => `/usr/lib/${arch}/faketime/libfaketime.so.1`)
  .find((path) => existsSync(path));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('verifiable archives of past months (npm run archive, audit --archive, --restore)', () => {
  const root = makeTempDir('payments-archive', { forPostgres: true });
  const dataDir = join(root, 'data');
  const archiveDir = join(root, 'archive');
  const tamperedDir = join(root, 'tampered');
  const embedded = { DATABASE_URL: '', DATABASE_OWNER_URL: '', JWT_SECRET: '', DATA_DIR: dataDir };
  let service: ServiceProcess | undefined;
  let api: ApiClient;
  let alice: RegisteredUser;
  let bob: RegisteredUser;
  const pastTransfers: string[] = [];

  /** The built CLI (what npm run archive / audit run after their build) on the service's embedded database. */
  async function cli(name: 'archive' | 'audit', args: string[]): Promise<CliResult> {
    const script = join(REPO_ROOT, 'dist', 'scripts', name, `${name}.js`);
    try {
      const { stdout, stderr } = await run(process.execPath, [script, ...args], {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_OPTIONS: '', ...embedded },
        timeout: 120_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw error;
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  const december = (user: RegisteredUser, token = user.token) =>
    api.get(`/api/v1/users/${user.referenceId}/statement?from=2017-12-01&to=2018-01-01`, token);

  beforeAll(async () => {
    if (!LIBFAKETIME) throw new Error('libfaketime is missing: apt-get install faketime (.ci/run installs it)');
    const days = Math.floor((Date.now() - FAKED_INSTANT) / DAY_MS);
    service = await ServiceProcess.start(
      { ...embedded, LD_PRELOAD: LIBFAKETIME, FAKETIME: `-${days}d`, FAKETIME_DONT_FAKE_MONOTONIC: '1' },
      90_000,
    );
    api = new ApiClient(service.baseUrl);
    alice = await api.registerUser({ balance: 1000 });
    bob = await api.registerUser({ balance: 50 });
    for (const amount of ['10.25', '20', '30.5']) {
      const sent = await api.transfer(alice, bob.upiId, amount);
      expect(sent.status).toBe(201);
      expect(sent.body.createdAt).toMatch(/^2017-12-/);
      pastTransfers.push(sent.body.referenceId);
    }
    await service.stop();
    service = await ServiceProcess.start(embedded, 90_000);
    api = new ApiClient(service.baseUrl);
    alice = { ...alice, token: await api.login(alice.upiId) };
    bob = { ...bob, token: await api.login(bob.upiId) };
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
    removeTempDir(root);
  });

  it('archives December 2017: the month leaves the live tables and its statement is 422 history-archived', async () => {
    const statement = await december(alice);
    expect(statement.status).toBe(200);
    expect(statement.body.entries).toHaveLength(4);

    const archived = await cli('archive', ['--before', '2018-01', '--to', archiveDir]);
    expect({ code: archived.code, stderr: archived.stderr }).toEqual({ code: 0, stderr: '' });
    const months = JSON.parse(archived.stdout).months as { month: string; outcome: string; ledgerEntries: number }[];
    expect(months.find((month) => month.month === '2017-12')).toEqual(
      expect.objectContaining({ outcome: 'archived', transactions: 3, ledgerEntries: 10 }),
    );
    const manifest = JSON.parse(readFileSync(join(archiveDir, '2017-12', 'manifest.json'), 'utf8'));
    expect(manifest.files).toEqual([
      expect.objectContaining({ table: 'transactions', rows: 3, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      expect.objectContaining({ table: 'ledger_entries', rows: 10, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
    // The files hold each hash as the 64 hex characters archives always held, whatever the column's type.
    const hashes = (file: string, column: string) =>
      gunzipSync(readFileSync(join(archiveDir, '2017-12', file)))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Record<string, unknown>)[column]);
    for (const [file, column, rows] of [
      ['transactions.ndjson.gz', 'content_hash', 3],
      ['ledger_entries.ndjson.gz', 'hash', 10],
    ] as const) {
      expect(hashes(file, column)).toEqual(Array(rows).fill(expect.stringMatching(/^[0-9a-f]{64}$/)));
    }

    const refused = await december(alice);
    expectProblem(refused, 422, 'history-archived');
    expect(refused.body.firstLiveMonth).toBe('2018-01');
    expect((await api.get(`/api/v1/transactions/${pastTransfers[0]}`, alice.token)).status).toBe(404);
    const live = await api.get(
      `/api/v1/users/${alice.referenceId}/statement?from=2018-02-01&to=2018-03-01`,
      alice.token,
    );
    expect(live.status).toBe(200);
    expect(live.body.openingBalance).toBe(939.25);

    const again = await cli('archive', ['--before', '2018-01', '--to', archiveDir]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).months).toContainEqual(
      expect.objectContaining({ month: '2017-12', outcome: 'already-archived' }),
    );
  }, 120_000);

  it('refuses a month younger than RETENTION_YEARS without --force, and the current month even with it', async () => {
    const current = new Date().toISOString().slice(0, 7);
    const young = await cli('archive', ['--before', current, '--to', archiveDir]);
    expect(young.code).toBe(1);
    expect(young.stderr).toMatch(/younger than RETENTION_YEARS \(8 years\)/);
    const open = await cli('archive', ['--before', '2999-01', '--to', archiveDir, '--force']);
    expect(open.code).toBe(1);
    expect(open.stderr).toMatch(/not closed/);
  }, 60_000);

  it('audits every chain across the archive and the live tables, after live movements past the cut', async () => {
    const carol = await api.registerUser({ balance: 5 });
    expect((await api.transfer(alice, carol.upiId, '1.75')).status).toBe(201);
    expect((await api.transfer(bob, alice.upiId, '0.5')).status).toBe(201);

    const audit = await cli('audit', ['--archive', archiveDir]);
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(audit.stdout);
    expect(report.ok).toBe(true);
    expect(report.archive.months).toContainEqual(
      expect.objectContaining({ month: '2017-12', ok: true, ledgerEntries: 10, problems: [] }),
    );
    const plain = await cli('audit', []);
    expect({ code: plain.code, ok: JSON.parse(plain.stdout).ok, archive: JSON.parse(plain.stdout).archive }).toEqual({
      code: 0,
      ok: true,
      archive: undefined,
    });
  }, 60_000);

  it('finds a tampered archive file: the audit fails and a restore from it refuses', async () => {
    cpSync(archiveDir, tamperedDir, { recursive: true });
    const file = join(tamperedDir, '2017-12', 'ledger_entries.ndjson.gz');
    const text = gunzipSync(readFileSync(file)).toString('utf8');
    expect(text).toContain('"amount":20.0000');
    writeFileSync(file, gzipSync(text.replace('"amount":20.0000', '"amount":2000.0000')));

    const audit = await cli('audit', ['--archive', tamperedDir]);
    expect(audit.code).toBe(1);
    const report = JSON.parse(audit.stdout);
    expect(report.archive.ok).toBe(false);
    expect(report.archive.months).toContainEqual(
      expect.objectContaining({ month: '2017-12', ok: false, problems: [expect.stringMatching(/SHA-256/)] }),
    );

    const restore = await cli('archive', ['--restore', tamperedDir, '--month', '2017-12']);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toMatch(/2017-12 does not verify, nothing restored/);
    expectProblem(await december(alice), 422, 'history-archived');
  }, 60_000);

  it('--restore brings the month back with all its entries, and the audit passes again', async () => {
    const restored = await cli('archive', ['--restore', archiveDir, '--month', '2017-12']);
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(restored.stdout).months).toEqual([
      { month: '2017-12', outcome: 'restored', transactions: 3, ledgerEntries: 10 },
    ]);

    const statement = await december(alice);
    expect(statement.status).toBe(200);
    expect(statement.body.entries).toHaveLength(4);
    expect(statement.body.closingBalance).toBe(939.25);
    expect((await api.get(`/api/v1/transactions/${pastTransfers[0]}`, alice.token)).status).toBe(200);

    const audit = await cli('audit', ['--archive', archiveDir]);
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(audit.stdout).archive.months.map((month: { month: string }) => month.month)).not.toContain(
      '2017-12',
    );
  }, 60_000);
});
