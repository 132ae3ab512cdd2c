import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { SHIPPED_NODE_OPTIONS } from '../../src/boot/heap-settings';
import { REPO_ROOT, ServiceProcess, serviceNodeOptions } from '../../scripts/lib/service-process';
import { TEST_JWT_SECRET } from '../support/jwt';
import { makeTempDir, removeTempDir } from '../support/temp-dir';

const MiB = 1024 * 1024;
/** What a Node process needs besides its V8 heap (binary, code, stacks, native buffers): ~95 MiB measured under load. */
const NON_HEAP_ALLOWANCE = 128 * MiB;

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

interface Container {
  env?: { name: string; value?: string }[];
  resources: { limits: { memory: string } };
}

function deploymentContainer(): Container {
  const deployment = parseAllDocuments(read('ops/kubernetes/deployment.yaml'))
    .map((document) => document.toJS() as { kind: string; spec: { template: { spec: { containers: Container[] } } } })
    .find((resource) => resource.kind === 'Deployment')!;
  return deployment.spec.template.spec.containers[0];
}

/** Kubernetes memory quantities as this repository writes them (Mi, Gi). */
function bytesOf(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1) * MiB;
}

/** The heap limit V8 sets up from these NODE_OPTIONS (Node refuses to start on a bad flag). */
function heapSizeLimit(nodeOptions: string): number {
  const result = spawnSync(process.execPath, ['-p', 'require("node:v8").getHeapStatistics().heap_size_limit'], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return Number(result.stdout);
}

describe('the V8 heap settings the service ships with', () => {
  it('are the same in npm start, the image and the Kubernetes Deployment', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    // The operator's own NODE_OPTIONS come after, so they win.
    expect(start).toContain(`NODE_OPTIONS="${SHIPPED_NODE_OPTIONS} \${NODE_OPTIONS:-}" node dist/src/main.js`);
    expect(read('docker/Dockerfile')).toContain(`ENV NODE_OPTIONS="${SHIPPED_NODE_OPTIONS}"`);
    expect(deploymentContainer().env).toContainEqual({ name: 'NODE_OPTIONS', value: SHIPPED_NODE_OPTIONS });
  });

  it('bound the heap well inside the Deployment memory limit, where the defaults follow the host', () => {
    const podLimit = bytesOf(deploymentContainer().resources.limits.memory);
    const shipped = heapSizeLimit(SHIPPED_NODE_OPTIONS);
    expect(shipped).toBeLessThanOrEqual(podLimit - NON_HEAP_ALLOWANCE);
    // Room above the ~55 MiB live heap measured under the benchmark.
    expect(shipped).toBeGreaterThanOrEqual(256 * MiB);
  });

  it('are what the benchmark and the tests start the service with, SERVICE_NODE_OPTIONS after them', async () => {
    expect(serviceNodeOptions(undefined)).toBe(SHIPPED_NODE_OPTIONS);
    expect(serviceNodeOptions(' --cpu-prof ')).toBe(`${SHIPPED_NODE_OPTIONS} --cpu-prof`);

    const dataDir = makeTempDir('payments-heap-settings');
    const service = await ServiceProcess.start({
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
    });
    try {
      const environment = readFileSync(`/proc/${service.pid}/environ`, 'utf8').split('\0');
      expect(environment).toContain(`NODE_OPTIONS=${serviceNodeOptions()}`);
      expect(service.nodeOptions).toBe(serviceNodeOptions());
    } finally {
      await service.stop();
      removeTempDir(dataDir);
    }
  });
});
