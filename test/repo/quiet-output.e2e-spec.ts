import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');

interface JestJson {
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

/** test/support/quiet-output.ts and quiet-environment.ts, as jest.config.js uses them, on a noisy test file. */
describe('the quiet-output guard of every test file', () => {
  it('fails the test that writes to the console and the one that raises a process warning, not the quiet one', () => {
    const config = {
      rootDir: REPO,
      testEnvironment: '<rootDir>/test/support/quiet-environment.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/quiet-output.ts'],
      transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
      testMatch: ['<rootDir>/test/fixtures/noisy-test/noisy.fixture.ts'],
    };
    const run = spawnSync(
      process.execPath,
      [require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--json', '--ci'],
      { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(run.status).toBe(1);
    const [file] = (JSON.parse(run.stdout) as JestJson).testResults;
    const outcome = Object.fromEntries(file.assertionResults.map((test) => [test.title, test.status]));
    expect(outcome).toEqual({
      'writes to the console': 'failed',
      'raises a process warning': 'failed',
      'stays quiet': 'passed',
    });
    const failures = file.assertionResults.flatMap((test) => test.failureMessages).join('\n');
    expect(failures).toContain('console.log: a stray log line');
    expect(failures).toContain('DeprecationWarning: something a dependency deprecated');
  }, 60_000);
});
