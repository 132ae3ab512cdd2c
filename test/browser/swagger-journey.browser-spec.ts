import type { Locator, Page } from 'playwright-core';
import { swaggerSession } from '../support/swagger-browser';

interface LiveAnswer {
  status: string;
  body: any;
  headers: string;
}

/** Presses Execute (after clearing the previous answer) and reads the answer Swagger UI shows. */
async function execute(operation: Locator): Promise<LiveAnswer> {
  const clear = operation.getByRole('button', { name: 'Clear' });
  if (await clear.isVisible()) await clear.click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const live = operation.locator('.live-responses-table .response').first();
  await live.waitFor({ timeout: 20_000 });
  const description = live.locator('.response-col_description');
  return {
    status: (await live.locator('.response-col_status').innerText()).trim(),
    body: JSON.parse(await description.locator('.response-col_description__inner pre, pre').first().innerText()),
    headers: (await description.innerText()).toLowerCase(),
  };
}

async function open(page: Page, id: string): Promise<Locator> {
  const operation = page.locator(`#${id}`);
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  return operation;
}

describe('Swagger UI journey: login, authorize, transfer, replay', () => {
  const session = swaggerSession();

  it('moves money once per fresh try and replays a typed Idempotency-Key', async () => {
    const [alice, bob] = await Promise.all([
      session.app.api.registerUser({ balance: 100 }),
      session.app.api.registerUser({ balance: 0 }),
    ]);
    const page = await session.browser.newPage();
    await page.goto(`${session.app.api.baseUrl}/swagger-ui`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });

    const login = await open(page, 'operations-Authentication-AuthController_login');
    await login.locator('textarea.body-param__text').fill(JSON.stringify({ upiId: alice.upiId }));
    const loggedIn = await execute(login);
    expect(loggedIn.status).toBe('200');
    const token: string = loggedIn.body.accessToken;
    expect(token).toEqual(expect.any(String));

    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.auth-container input').first().fill(token);
    await page.locator('.auth-btn-wrapper .authorize').click();
    await page.locator('.auth-btn-wrapper .btn-done').click();

    const transfer = await open(page, 'operations-Transactions-TransactionsController_create');
    const key = transfer.locator('tr[data-param-name="Idempotency-Key"] input');
    expect(await key.inputValue()).toBe('fresh-key-per-try');
    await transfer
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ senderUpiId: alice.upiId, receiverUpiId: bob.upiId, amount: 10, note: 'ui' }));

    // The placeholder key becomes a new UUID on every Execute: two tries, two transfers.
    const fresh = [await execute(transfer), await execute(transfer)];
    expect(fresh.map((answer) => answer.status)).toEqual(['201', '201']);
    expect(fresh[0].body.referenceId).not.toBe(fresh[1].body.referenceId);
    expect(fresh.map((answer) => answer.headers.includes('idempotent-replayed'))).toEqual([false, false]);

    // A key typed by hand is sent as is: the second try replays the first.
    await key.fill(`ui-${Date.now()}`);
    const typed = [await execute(transfer), await execute(transfer)];
    expect(typed.map((answer) => answer.status)).toEqual(['201', '201']);
    expect(typed[1].body).toEqual(typed[0].body);
    expect(typed[0].headers).not.toContain('idempotent-replayed');
    expect(typed[1].headers).toMatch(/idempotent-replayed: true/);
    expect(typed[1].headers).toMatch(/x-request-id: [0-9a-f-]{36}/);

    const account = await session.app.api.get(`/api/v1/users/upi/${alice.upiId}`, alice.token);
    expect(account.body.balance).toBe(70);
  });
});
