import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SHIPPED_NODE_OPTIONS } from '../../src/boot/heap-settings';
import { findRepoRoot } from '../../src/common/repo-root';

export const REPO_ROOT = findRepoRoot(__dirname);
const MAIN = join(REPO_ROOT, 'dist', 'src', 'main.js');

/**
 * The service's NODE_OPTIONS: the heap settings it ships with, so that the benchmark measures what
 * production runs, then SERVICE_NODE_OPTIONS (e.g. --cpu-prof), which come later and so win where
 * they repeat a flag. The caller's own NODE_OPTIONS are for itself.
 */
export function serviceNodeOptions(extra = process.env.SERVICE_NODE_OPTIONS): string {
  return [SHIPPED_NODE_OPTIONS, extra?.trim()].filter(Boolean).join(' ');
}

export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** The built service (dist/src/main.js) as a child process, as an operator would run it. */
export class ServiceProcess {
  private output = '';

  private constructor(
    readonly child: ChildProcess,
    readonly baseUrl: string,
    /** What the service was started with, for reports. */
    readonly nodeOptions: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  static async start(env: Record<string, string>, startTimeoutMs = 60_000): Promise<ServiceProcess> {
    const port = env.PORT ? Number(env.PORT) : await findFreePort();
    const nodeOptions = serviceNodeOptions();
    const child = spawn(process.execPath, [MAIN], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_OPTIONS: nodeOptions, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = new ServiceProcess(child, `http://127.0.0.1:${port}`, nodeOptions);
    await service.waitUntilServing(startTimeoutMs);
    return service;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Recent stdout and stderr, for failure messages. */
  get recentOutput(): string {
    return this.output;
  }

  private async waitUntilServing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) {
        throw new Error(`service exited with ${this.child.exitCode} while starting:\n${this.output}`);
      }
      try {
        // Any HTTP answer means the server is up; a protected route answers 401 without touching the database.
        await fetch(`${this.baseUrl}/api/v1/users`, { signal: AbortSignal.timeout(1000) });
        return;
      } catch {
        await sleep(100);
      }
    }
    this.child.kill('SIGKILL');
    throw new Error(`service did not serve within ${timeoutMs} ms:\n${this.output}`);
  }

  /** Sends a signal and waits for the process to end; returns its exit code (null when killed). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    const [code] = (await exited) as [number | null];
    return code;
  }

  /** Peak and current resident memory in MiB, from /proc (Linux). */
  async memory(): Promise<{ rssMiB: number; peakRssMiB: number } | undefined> {
    try {
      const { readFile } = await import('node:fs/promises');
      const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
      const read = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
      return { rssMiB: read('VmRSS'), peakRssMiB: read('VmHWM') };
    } catch {
      return undefined;
    }
  }
}
