import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const check = (folder?: string) =>
  spawnSync(process.execPath, ['scripts/checks/import-cycles.mjs', ...(folder ? [folder] : [])], {
    cwd: REPO,
    encoding: 'utf8',
  });

describe('the import-cycle check of npm run check', () => {
  it('fails on two folders that know each other only through type imports', () => {
    const result = check('test/fixtures/type-only-cycle');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('accounts -> payments -> accounts');
    expect(result.stderr).toContain('test/fixtures/type-only-cycle/accounts/account.ts');
  });

  it('passes on src/, whose folders import one way, type imports included', () => {
    const result = check();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^No import cycles between the \d+ folders of src\/\.$/m);
  });
});
