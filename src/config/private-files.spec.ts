import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateDirectoryProblem, readOrCreateSecret, secretFileProblem } from './private-files';

describe('private files in DATA_DIR', () => {
  const root = mkdtempSync(join(tmpdir(), 'payments-private-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const asRoot = process.getuid?.() === 0;

  it('leaves a missing DATA_DIR alone, and the secret creates it private', () => {
    const dir = join(root, 'fresh');
    expect(privateDirectoryProblem(dir)).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    readOrCreateSecret(join(dir, 'secret'));
    expect(statSync(dir).mode & 0o077).toBe(process.getuid?.() === 0 ? 0o011 : 0);
  });

  it.each([0o777, 0o775, 0o757])('refuses a DATA_DIR with mode %o, saying how to fix it', (mode) => {
    const dir = mkdtempSync(join(root, 'open-'));
    chmodSync(dir, mode);
    expect(privateDirectoryProblem(dir)).toBe(
      `${dir} is writable by other users (mode ${mode.toString(8)}), who could replace its secrets; run: chmod go-w ${dir}`,
    );
  });

  it('creates a secret 0600 and reads it back', () => {
    const file = join(root, 'secret-new');
    const created = readOrCreateSecret(file);
    expect(created).toEqual({ secret: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/), created: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readOrCreateSecret(file)).toEqual({ secret: (created as { secret: string }).secret, created: false });
  });

  it('refuses a secret that others can write, and one that is a link', () => {
    const file = join(root, 'secret-open');
    writeFileSync(file, 'x\n');
    chmodSync(file, 0o620);
    expect(readOrCreateSecret(file)).toEqual({ problem: expect.stringContaining(`run: chmod 600 ${file}`) });
    const link = join(root, 'secret-link');
    symlinkSync(file, link);
    expect(secretFileProblem(link)).toMatch(/is not a regular file/);
  });

  (asRoot ? it : it.skip)('refuses a secret that belongs to another user (root only: it needs chown)', () => {
    const file = join(root, 'secret-foreign');
    writeFileSync(file, 'x\n', { mode: 0o600 });
    chownSync(file, 65534, 65534);
    expect(secretFileProblem(file)).toMatch(/belongs to another user \(uid 65534\), who could have replaced it/);
  });
});
