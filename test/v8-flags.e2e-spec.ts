import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../scripts/lib/service-process';

/** Objects that all survive young collections, so V8 has pretenuring decisions to take and trace. */
const SURVIVORS = 'const keep = []; for (let i = 0; i < 300000; i++) keep.push({ i, pair: [i, i + 1] });';

/** What V8 traces of its pretenuring decisions in a process that first loads `preload`, if any. */
function pretenuringTrace(preload?: string): string {
  const result = spawnSync(
    process.execPath,
    [
      '--max-semi-space-size=8',
      '--trace-pretenuring-statistics',
      ...(preload ? ['--require', preload] : []),
      '-e',
      SURVIVORS,
    ],
    { env: { ...process.env, NODE_OPTIONS: '' }, encoding: 'utf8' },
  );
  expect(result.status).toBe(0);
  return result.stdout;
}

describe('the V8 flags the service sets as it starts', () => {
  it('control: without them V8 takes pretenuring decisions as objects survive young collections', () => {
    expect(pretenuringTrace()).toContain('pretenuring:');
  });

  it('turn allocation-site pretenuring off', () => {
    expect(pretenuringTrace(join(REPO_ROOT, 'dist', 'src', 'boot', 'v8-flags.js'))).not.toContain('pretenuring:');
  });

  it('are loaded right after the Node version check, before the application', () => {
    const imports = readFileSync(join(REPO_ROOT, 'src', 'main.ts'), 'utf8').match(/^import '[^']+';$/gm);
    expect(imports).toEqual(["import './boot/node-guard';", "import './boot/v8-flags';", "import './server';"]);
  });
});
