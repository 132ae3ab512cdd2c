import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { findFreePort, REPO_ROOT } from '../scripts/lib/service-process';
import { makeTempDir, removeTempDir } from './support/temp-dir';

/**
 * Plain `npm start`, as the README says it, in its own process group (Ctrl-C reaches npm, the
 * shell and the service together), with a fresh DATA_DIR and a free port.
 */
describe('npm start', () => {
  const dataDir = makeTempDir('payments-npm-start', { forPostgres: true });
  afterAll(() => removeTempDir(dataDir));

  it("prints only the service's JSON lines on stdout, from start-up to Ctrl-C; npm's banner goes to stderr", async () => {
    const port = await findFreePort();
    const child = spawn('npm', ['start'], {
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
    const lines = stdout.split('\n').filter((line) => line !== '');
    const notJson = lines.filter((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed !== 'object' || parsed === null || !('msg' in parsed);
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    // npm did run it: its banner went to stderr (.npmrc, json=true).
    expect(stderr).toContain('> payment-service@0.1.0 start');
    expect(lines.filter((line) => /listening on http|SIGINT received/.test(line))).toHaveLength(2);
  }, 180_000);
});
