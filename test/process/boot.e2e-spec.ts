import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeVersionProblem } from '../../src/boot/node-guard';
import { findFreePort, REPO_ROOT } from '../../scripts/lib/service-process';
import { TEST_JWT_SECRET } from '../support/jwt';
import { testUrl } from '../support/db';

const MAIN = join(REPO_ROOT, 'dist', 'src', 'main.js');
const temporary: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};
afterAll(() => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Runs the built entry point as an operator would and collects what it prints until it exits. */
async function runService(env: Record<string, string>, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'warn', JWT_SECRET: TEST_JWT_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

/** One line that names the variable and the cause; no stack trace anywhere. */
function expectOneLineFailure(result: { code: number | null; output: string }, expected: RegExp) {
  expect(result.code).toBe(1);
  const failure = result.output.split('\n').filter((line) => line.includes('failed to start'));
  expect(failure).toEqual([expect.stringMatching(expected)]);
  expect(result.output).not.toMatch(/^\s+at /m);
}

describe('Node version guard', () => {
  it('accepts Node 24.11 and later, refuses anything older with what to install', () => {
    expect(nodeVersionProblem('24.11.0')).toBeUndefined();
    expect(nodeVersionProblem('25.0.0')).toBeUndefined();
    expect(nodeVersionProblem('24.10.9')).toMatch(/Node\.js 24\.11 or newer is required, this is Node\.js 24\.10\.9/);
    expect(nodeVersionProblem('20.19.5')).toMatch(/nvm install/);
  });

  it('makes the built entry exit at once, before loading Nest, on an old Node', async () => {
    const dir = tempDir('payments-node-guard-');
    const fake = join(dir, 'fake-node-20.cjs');
    // Pretends to be Node 20 and reports whether Nest was ever loaded.
    writeFileSync(
      fake,
      `Object.defineProperty(process.versions, 'node', { value: '20.19.5' });
       process.on('exit', () => {
         const nest = Object.keys(require.cache).some((f) => f.includes('@nestjs'));
         process.stderr.write(nest ? 'NEST WAS LOADED\\n' : 'nest not loaded\\n');
       });`,
    );
    const result = await runService({}, ['--require', fake]);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/Node\.js 24\.11 or newer is required, this is Node\.js 20\.19\.5/);
    expect(result.output).toContain('nest not loaded');
  });
  // npm ci and npm start on an older Node: test/process/node-guard.e2e-spec.ts.
});

describe('boot failures name the variable', () => {
  let blocker: Server | undefined;
  afterAll(() => blocker?.close());

  it('an unreachable DATABASE_URL', async () => {
    const port = await findFreePort();
    const result = await runService({
      DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${port}/payments`,
      DATA_DIR: tempDir('payments-boot-'),
    });
    expectOneLineFailure(
      result,
      new RegExp(`DATABASE_URL: cannot connect to the database server at 127\\.0\\.0\\.1:${port}`),
    );
  });

  it('a DATABASE_URL with a host that does not resolve', async () => {
    const result = await runService({
      DATABASE_URL: 'postgres://postgres:postgres@nowhere.invalid:5432/payments',
      DATA_DIR: tempDir('payments-boot-'),
    });
    expectOneLineFailure(result, /DATABASE_URL: cannot connect to the database server at nowhere\.invalid:5432/);
  });

  it('a DATABASE_URL with the wrong password, without printing it', async () => {
    const url = new URL(testUrl());
    url.password = 'wrong-secret';
    const result = await runService({ DATABASE_URL: url.toString(), DATA_DIR: tempDir('payments-boot-') });
    expectOneLineFailure(result, /DATABASE_URL: the server at .+ refused the credentials/);
    expect(result.output).not.toContain('wrong-secret');
  });

  it('a PORT already in use', async () => {
    const port = await findFreePort();
    blocker = createServer();
    blocker.listen(port, '127.0.0.1');
    await once(blocker, 'listening');
    const result = await runService({
      DATABASE_URL: testUrl(),
      DATA_DIR: tempDir('payments-boot-'),
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    expectOneLineFailure(result, new RegExp(`PORT: ${port} is already in use on HOST 127\\.0\\.0\\.1`));
  });

  it('a HOST that is not an address of this machine', async () => {
    const result = await runService({
      DATABASE_URL: testUrl(),
      DATA_DIR: tempDir('payments-boot-'),
      PORT: String(await findFreePort()),
      HOST: '192.0.2.1',
    });
    expectOneLineFailure(result, /HOST: 192\.0\.2\.1 is not an address of this machine/);
  });

  it('a BUSINESS_TIME_ZONE given as a UTC offset, which PostgreSQL would read with the opposite sign', async () => {
    const result = await runService({ DATA_DIR: tempDir('payments-boot-'), BUSINESS_TIME_ZONE: '+05:30' });
    expectOneLineFailure(
      result,
      /BUSINESS_TIME_ZONE must be an IANA time zone such as Asia\/Kolkata, not a UTC offset/,
    );
  });

  it('a DATA_DIR that is a file', async () => {
    const file = join(tempDir('payments-boot-'), 'not-a-directory');
    writeFileSync(file, 'x');
    const result = await runService({ DATA_DIR: file });
    expectOneLineFailure(
      result,
      new RegExp(`DATA_DIR: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a directory`),
    );
  });
});
