import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort, REPO_ROOT } from '../../scripts/lib/service-process';
import type { RegisteredUser } from '../support/api-client';
import { waitUntil } from '../support/wait';
import {
  completedTransfer,
  createEndpoint,
  deliveriesOf,
  DEVELOPMENT_SWITCHES,
  startWebhookHarness,
  type WebhookHarness,
} from '../support/webhook-receiver';

const EXAMPLE = 'scripts/examples/webhook-receiver.ts';

/** The receiver the API guide shows, run as it is shown. */
describe('API guide webhook receiver example', () => {
  let h: WebhookHarness;
  let receiver: ChildProcess | undefined;
  let alice: RegisteredUser;
  let bob: RegisteredUser;
  beforeAll(async () => {
    h = await startWebhookHarness(DEVELOPMENT_SWITCHES);
    [alice, bob] = await Promise.all([h.t.api.registerUser(), h.t.api.registerUser()]);
  });
  afterAll(async () => {
    receiver?.kill('SIGKILL');
    await h.close();
  });

  it('is shown verbatim in the "Webhooks" section of docs/api-guide.md', () => {
    const guide = readFileSync(join(REPO_ROOT, 'docs', 'api-guide.md'), 'utf8');
    const section = guide.slice(guide.indexOf('\n## Webhooks\n'));
    const block = /```ts\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ', 5)))?.[1];
    expect(block).toBe(readFileSync(join(REPO_ROOT, EXAMPLE), 'utf8'));
  });

  it('verifies a real delivery with the standardwebhooks package, and refuses a forged one', async () => {
    const port = await findFreePort();
    const endpoint = await createEndpoint(h.t.api, h.admin.token, {
      url: `http://127.0.0.1:${port}/`,
      events: ['TransferCompleted'],
    });
    let output = '';
    receiver = spawn(process.execPath, ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', EXAMPLE], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_OPTIONS: '', PORT: String(port), WEBHOOK_SECRET: endpoint.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil(
      () =>
        fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
          (r) => r.status === 400,
          () => false,
        ),
      'the example listening (and refusing an unsigned call)',
    );

    const reference = await completedTransfer(h.t.api, alice, bob.upiId, 7);
    await waitUntil(() => output.includes(reference), `the example to verify the event:\n${output}`);
    expect(output).toMatch(new RegExp(`^verified \\{.*"transactionReferenceId":"${reference}"`, 'm'));
    await waitUntil(
      async () => (await deliveriesOf(h.t.api, h.admin.token, endpoint.id))[0]?.status === 'DELIVERED',
      'DELIVERED',
    );
    expect((await deliveriesOf(h.t.api, h.admin.token, endpoint.id))[0].lastStatusCode).toBe(204);

    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: '{"amount":"1000000.0000"}',
      headers: {
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,' + Buffer.alloc(32).toString('base64'),
      },
    });
    expect(forged.status).toBe(400);
  });
});
