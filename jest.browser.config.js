/**
 * `npm run test:browser`: Swagger UI in headless Chromium (playwright-core drives the system's chromium).
 * Kept out of `npm test` because it needs a browser installed.
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
  testTimeout: 60000,
  maxWorkers: 1,
};
