import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/service-process';
import { newIdempotencyKey } from '../support/api-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { typedClient } from '../support/typed-client';

const CLIENT = join(REPO_ROOT, 'clients', 'typescript');

/** clients/typescript as a package: built JavaScript with declarations, used from a plain Node ESM script. */
describe('the client package, built and used from plain Node', () => {
  let t: TestApp;
  beforeAll(async () => {
    // What `npm run build` in clients/typescript does; no TypeScript runner is involved after this.
    execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', CLIENT], {
      stdio: 'pipe',
    });
    t = await startTestApp();
  }, 120_000);
  afterAll(() => t?.close());

  it('ships JavaScript and type declarations where package.json points', () => {
    const manifest = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    for (const file of [manifest.main, manifest.types, manifest.exports['.'].types, manifest.exports['.'].default])
      expect({ file, exists: existsSync(join(CLIENT, file)) }).toEqual({ file, exists: true });
    expect(existsSync(join(CLIENT, 'README.md'))).toBe(true);
  });

  it('`node example.mjs` moves 1234567890123.4567 in and reads every amount back exactly', async () => {
    // Asynchronously: the service under test runs in this very process.
    const run = await promisify(execFile)(process.execPath, ['example.mjs'], {
      cwd: CLIENT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', PAYMENT_SERVICE_URL: t.api.baseUrl },
      timeout: 60_000,
    });
    // Read through a float, the opening balance would have come back as ...4568.
    expect(String(Number('1234567890123.4567'))).toBe('1234567890123.4568');
    expect(run.stderr).toBe('');
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { openingBalance: '1234567890123.4567' },
      { transferred: '999999.9999', readBack: '999999.9999' },
      { balanceAfter: '1234566890123.4568' },
    ]);
  });

  it('takes amounts as strings or numbers and answers with the decimal text', async () => {
    const [alice, bob] = await Promise.all([
      t.api.registerUser({ balance: '1234567890123.4567' }),
      t.api.registerUser({ balance: 0 }),
    ]);
    const client = typedClient(t.api.baseUrl, alice.token);
    for (const amount of ['0.01', 12.5] as const) {
      const sent = await client.POST('/api/v1/transactions', {
        params: { header: { 'Idempotency-Key': newIdempotencyKey() } },
        body: { senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount },
      });
      expect(sent.response.status).toBe(201);
      expect(sent.data!.amount).toBe(typeof amount === 'string' ? '0.0100' : '12.5000');
    }
    const profile = await client.GET('/api/v1/users/{id}', { params: { path: { id: alice.referenceId } } });
    expect(profile.data!.balance).toBe('1234567890110.9467');
  });
});
