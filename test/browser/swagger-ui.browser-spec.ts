import { swaggerSession } from '../support/swagger-browser';

describe('Swagger UI in a real browser', () => {
  const session = swaggerSession();

  it('renders every operation and logs in with "Try it out"', async () => {
    const user = await session.app.api.registerUser();
    const page = await session.browser.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') blocked.push(message.text());
    });

    await page.goto(`${session.app.api.baseUrl}/swagger-ui`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const operations = await page.locator('.opblock-summary-path').allInnerTexts();
    for (const path of [
      '/api/v1/auth/login',
      '/api/v1/users',
      '/api/v1/transactions',
      '/api/v1/transactions/{id}/insights',
    ]) {
      expect(operations.map((text) => text.replace(/\u200b/g, ''))).toContain(path);
    }

    const login = page.locator('.opblock', {
      has: page.locator('.opblock-summary-path', { hasText: '/api/v1/auth/login' }),
    });
    await login.locator('.opblock-summary').click();
    await login.getByRole('button', { name: 'Try it out' }).click();
    await login.locator('textarea.body-param__text').fill(JSON.stringify({ upiId: user.upiId }));
    await login.getByRole('button', { name: 'Execute' }).click();

    const liveResponse = login.locator('.live-responses-table .response');
    await liveResponse.first().waitFor({ timeout: 20_000 });
    expect((await liveResponse.locator('.response-col_status').first().innerText()).trim()).toBe('200');
    const body = await liveResponse.locator('.response-col_description pre').first().innerText();
    expect(JSON.parse(body)).toEqual(
      expect.objectContaining({ tokenType: 'Bearer', upiId: user.upiId, accessToken: expect.any(String) }),
    );
    expect(blocked.filter((text) => /Content Security Policy|Refused/.test(text))).toEqual([]);
  });
});
