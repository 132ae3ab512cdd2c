import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { findFreePort, REPO_ROOT } from '../../scripts/lib/service-process';
import { makeTempDir, removeTempDir } from '../support/temp-dir';

const BANNER = '> payment-service@0.1.0 start';

/**
 * `npm start` with `extraArgs`, as the README says it, in its own process group (Ctrl-C reaches npm,
 * the shell and the service together), with a fresh DATA_DIR and a free port: started, asked once,
 * interrupted. Returns what it printed.
 */
async function npmStart(extraArgs: string[], dataDir: string): Promise<{ stdout: string; stderr: string }> {
  const port = await findFreePort();
  const child = spawn('npm', ['start', ...extraArgs], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      npm_config_update_notifier: 'false',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close': npm, the shell and the service have all let go of stdout, so the service has exited too.
  const closed = once(child, 'close');
  const interrupt = () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
  };
  try {
    const deadline = Date.now() + 150_000;
    while (!/Payment service listening on/.test(stdout)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`npm start did not get to listening:\n${stdout}\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // One request, so that its access log line is among what is checked.
    expect((await fetch(`http://127.0.0.1:${port}/actuator/health`)).status).toBe(200);
    interrupt();
    await closed;
  } finally {
    interrupt();
  }
  return { stdout, stderr };
}

/** The lines that are not one of the service's JSON log lines. */
function notServiceLines(lines: string[]): string[] {
  return lines.filter((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return typeof parsed !== 'object' || parsed === null || !('msg' in parsed);
    } catch {
      return true;
    }
  });
}

const nonEmptyLines = (text: string) => text.split('\n').filter((line) => line !== '');
const startAndStop = (lines: string[]) => lines.filter((line) => /listening on http|SIGINT received/.test(line));

describe('npm start', () => {
  const dataDir = makeTempDir('payments-npm-start', { forPostgres: true });
  afterAll(() => removeTempDir(dataDir));

  it("--silent prints only the service's JSON lines on stdout, from start-up to Ctrl-C, and no banner anywhere", async () => {
    const { stdout, stderr } = await npmStart(['--silent'], dataDir);
    const lines = nonEmptyLines(stdout);
    expect(notServiceLines(lines)).toEqual([]);
    expect(startAndStop(lines)).toHaveLength(2);
    expect(stdout + stderr).not.toContain(BANNER);
  }, 180_000);

  it("plain prints npm's plain-text banner on stdout first, then only the service's JSON lines", async () => {
    const { stdout } = await npmStart([], dataDir);
    const lines = nonEmptyLines(stdout);
    const firstJson = lines.findIndex((line) => line.startsWith('{'));
    // npm's banner (.npmrc sets no json mode): the script's name, then its command line.
    expect(lines.slice(0, firstJson)).toEqual([
      BANNER,
      expect.stringMatching(/^> node scripts\/boot\/node-guard\.cjs && /),
    ]);
    expect(notServiceLines(lines.slice(firstJson))).toEqual([]);
    expect(startAndStop(lines)).toHaveLength(2);
  }, 180_000);
});
