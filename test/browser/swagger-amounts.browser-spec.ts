import type { Page } from 'playwright-core';
import { swaggerSession } from '../support/swagger-browser';

/** Authorizes the page with a bearer token, as a reader of the docs would. */
async function authorize(page: Page, token: string): Promise<void> {
  await page.locator('.auth-wrapper .authorize').click();
  await page.locator('.auth-container input').first().fill(token);
  await page.locator('.auth-btn-wrapper .authorize').click();
  await page.locator('.auth-btn-wrapper .btn-done').click();
}

describe('Swagger UI shows amounts as the service sent them', () => {
  const session = swaggerSession();

  it('a big balance and a 4-decimal amount read back exactly in the response body', async () => {
    // 18 significant digits: a double keeps about 16, so JSON.parse would round the balance.
    const alice = await session.app.api.registerUser({ balance: '12345678896236.0679' });
    const bob = await session.app.api.registerUser({ balance: 0 });
    expect((await session.app.api.transfer(alice, bob.upiId, '1.5')).status).toBe(201);
    const sent = await session.app.api.get(`/api/v1/users/${alice.referenceId}/ledger`, alice.token);
    expect(sent.text).toContain('"balanceAfter":12345678896234.5679');

    const page = await session.browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${session.app.api.baseUrl}/swagger-ui`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    await authorize(page, alice.token);
    const ledger = page.locator('#operations-Users-UsersController_ledger');
    await ledger.locator('.opblock-summary').click();
    await ledger.getByRole('button', { name: 'Try it out' }).click();
    await ledger.locator('tr[data-param-name="id"] input').fill(alice.referenceId);
    await ledger.getByRole('button', { name: 'Execute' }).click();

    const live = ledger.locator('.live-responses-table .response').first();
    await live.waitFor({ timeout: 20_000 });
    expect((await live.locator('.response-col_status').innerText()).trim()).toBe('200');
    const shown = await live.locator('.response-col_description pre').first().innerText();
    expect(shown).toContain('"balanceAfter": 12345678896234.5679');
    expect(shown).toContain('"amount": 1.5000');
    expect(shown).toContain('"balanceBefore": 12345678896236.0679');
    // Only the layout differs from what was sent: the same JSON, indented as Swagger UI does.
    expect(shown.replace(/\s/g, '')).toBe(sent.text.replace(/\s/g, ''));
    expect(shown).toContain('\n  "content": [\n    {\n');
    expect(pageErrors).toEqual([]);
  });
});
