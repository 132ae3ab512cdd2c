import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Client } from 'pg';
import { ROLE_USER } from '../../src/access/authenticated-user';
import { createApp } from '../../src/app';
import { ApiError } from '../../src/common/errors/api-error';
import { ErrorCode } from '../../src/common/errors/error-code';
import { Money } from '../../src/common/money/money';
import { loadConfig } from '../../src/config/app-config';
import { TransferRequest } from '../../src/transactions/transfer.dto';
import { TransferService } from '../../src/transactions/transfer.service';
import { connectTestDatabase } from '../support/db';
import { TEST_JWT_SECRET } from '../support/jwt';
import { type MediumUser, newUser } from './support/factories';

/** TransferService wired as in production, called directly: no HTTP, no guards, no interceptor. */
describe('TransferService', () => {
  let app: NestFastifyApplication;
  let service: TransferService;
  let db: Client;
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-medium-'));

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'fatal',
      DB_POOL_SIZE: '4',
    });
    app = await createApp(config);
    await app.init();
    service = app.get(TransferService);
    db = await connectTestDatabase();
  });
  afterAll(async () => {
    await db.end();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = (sender: MediumUser, receiverUpiId: string, amount: string, idempotencyKey: string) =>
    service.transfer({
      caller: { upiId: sender.upiId, referenceId: 'unused-here', roles: [ROLE_USER] },
      request: Object.assign(new TransferRequest(), {
        senderUpiId: sender.upiId,
        receiverUpiId,
        amount: new Money(amount),
      }),
      idempotencyKey,
      context: { requestId: `medium-${idempotencyKey}`, instance: '/api/v1/transactions' },
    });
  const balance = async (id: string) =>
    (await db.query<{ b: string }>('SELECT balance::text AS b FROM users WHERE id = $1', [id])).rows[0].b;

  it('renders a completed transfer, and the same answer again for its key', async () => {
    const [alice, bob] = [await newUser(db, '50'), await newUser(db)];
    const first = await send(alice, bob.upiId, '20', 'svc-1');
    const again = await send(alice, bob.upiId, '20.0000', 'svc-1');
    expect(first).toEqual(expect.objectContaining({ status: 201, replayed: false }));
    expect(again).toEqual({ ...first, replayed: true });
    expect(JSON.parse(first.body)).toEqual(expect.objectContaining({ amount: 20, senderUpiId: alice.upiId }));
    expect(await balance(alice.id)).toBe('30.0000');
  });

  it('refuses a credit that would overflow the receiver: 422 on amount, nothing written, the key still free', async () => {
    const [alice, rich] = [await newUser(db, '10'), await newUser(db, '999999999999999.9999')];
    const failure = await send(alice, rich.upiId, '1', 'svc-overflow').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toEqual(
      expect.objectContaining({ code: ErrorCode.ValidationFailed, extras: { errors: { amount: expect.any(String) } } }),
    );
    expect([await balance(alice.id), await balance(rich.id)]).toEqual(['10.0000', '999999999999999.9999']);
    const keys = await db.query('SELECT 1 FROM idempotency_keys WHERE idempotency_key = $1', ['svc-overflow']);
    expect(keys.rows).toEqual([]);
  });
});
