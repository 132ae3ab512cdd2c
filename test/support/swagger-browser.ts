import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { startTestApp, type TestApp } from './test-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

export interface SwaggerSession {
  app: TestApp;
  browser: Browser;
}

/** A fresh service and headless Chromium for a describe block: filled in beforeAll, closed in afterAll. */
export function swaggerSession(): SwaggerSession {
  const session = {} as SwaggerSession;
  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('Chromium not found: apt-get install chromium, or set CHROMIUM_PATH');
    session.app = await startTestApp();
    session.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
  });
  afterAll(async () => {
    await session.browser?.close();
    await session.app?.close();
  });
  return session;
}
