import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/service-process';

/** Objects that all survive young collections, so V8 has pretenuring decisions to take and trace. */
const SURVIVORS = 'const keep = []; for (let i = 0; i < 300000; i++) keep.push({ i, pair: [i, i + 1] });';

/** Objects that outlive young collections and then die: the old space fills with garbage. */
const OLD_SPACE_CHURN = `
const live = Array.from({ length: 200000 }, (_, k) => ({ k, s: 'x' + k }));
const ring = new Array(300);
for (let n = 0; n < 4000; n++) ring[n % ring.length] = Array.from({ length: 2000 }, (_, k) => ({ k, n }));
console.log(live.length);
`;

const V8_FLAGS_MODULE = join(REPO_ROOT, 'dist', 'src', 'perf', 'v8-flags.js');

/** The flags the seam sets, read from its source (importing it would set them in this test process). */
const V8_FLAGS = [
  ...readFileSync(join(REPO_ROOT, 'src', 'perf', 'v8-flags.ts'), 'utf8').matchAll(/'(--[a-z-]+(?:=\d+)?)'/g),
].map((match) => match[1]);

/** The standard output of `script` in a child Node with `flags`, after it loads `preload`, if any. */
function runChild(flags: string[], script: string, preload?: string): string {
  const result = spawnSync(process.execPath, [...flags, ...(preload ? ['--require', preload] : []), '-e', script], {
    env: { ...process.env, NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  expect(result.status).toBe(0);
  return result.stdout;
}

/** What V8 traces of its pretenuring decisions in a process that first loads `preload`, if any. */
function pretenuringTrace(preload?: string): string {
  return runChild(['--max-semi-space-size=8', '--trace-pretenuring-statistics'], SURVIVORS, preload);
}

/**
 * The growing factors V8 used after the full collections of the churn, under the shipped
 * old-space ceiling, as its verbose GC trace prints them ("[HeapController] factor 1.6 ...").
 */
function growingFactors(options: { flags?: string[]; preload?: string }): number[] {
  const flags = ['--max-semi-space-size=8', '--max-old-space-size=256', '--trace-gc-verbose', ...(options.flags ?? [])];
  const trace = runChild(flags, OLD_SPACE_CHURN, options.preload);
  return [...trace.matchAll(/\[HeapController\] factor ([\d.]+)/g)].map((match) => Number(match[1]));
}

describe('the V8 flags the service sets as it starts', () => {
  it('are flags the installed V8 knows (set at run time, an unknown one would be ignored)', () => {
    // On the command line V8 refuses an unknown flag ("bad option"), so a renamed or dropped flag fails here.
    expect(V8_FLAGS).toEqual(['--no-allocation-site-pretenuring', '--heap-growing-percent=60']);
    for (const flag of V8_FLAGS) {
      const result = spawnSync(process.execPath, [flag, '-e', '0'], { env: { ...process.env, NODE_OPTIONS: '' } });
      expect({ flag, status: result.status }).toEqual({ flag, status: 0 });
    }
    const unknown = spawnSync(process.execPath, ['--no-such-v8-flag-at-all', '-e', '0'], {
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(unknown.status).not.toBe(0);
  });

  it('control: without them V8 takes pretenuring decisions as objects survive young collections', () => {
    expect(pretenuringTrace()).toContain('pretenuring:');
  });

  it('turn allocation-site pretenuring off', () => {
    expect(pretenuringTrace(V8_FLAGS_MODULE)).not.toContain('pretenuring:');
  });

  it('let the old space grow to 1.6 times its live size between full collections, under the same ceiling', () => {
    // V8's own choice under a 256 MiB ceiling is its minimum factor, 1.3 (lower when collecting
    // is slow); the control has pretenuring off too, so only the growing factor differs.
    const defaults = growingFactors({ flags: ['--no-allocation-site-pretenuring'] });
    const shipped = growingFactors({ preload: V8_FLAGS_MODULE });
    expect(defaults.length).toBeGreaterThan(0);
    expect(Math.max(...defaults)).toBeLessThanOrEqual(1.3);
    expect(shipped.length).toBeGreaterThan(0);
    expect(new Set(shipped)).toEqual(new Set([1.6]));
  });

  it('are loaded right after the Node version check, before the application', () => {
    const imports = readFileSync(join(REPO_ROOT, 'src', 'main.ts'), 'utf8').match(/^import '[^']+';$/gm);
    expect(imports).toEqual(["import './boot/node-guard';", "import './perf/v8-flags';", "import './server';"]);
  });
});
