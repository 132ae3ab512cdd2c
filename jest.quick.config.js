/**
 * `npm run test:quick`: unit tests (src/**\/*.spec.ts) and medium tests (test/medium: the SQL and
 * services against the real PostgreSQL, no HTTP server, no child processes, no Kafka), in well
 * under 30 s. `npm test` runs these and everything else.
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/medium/**/*.medium-spec.ts'],
  globalSetup: '<rootDir>/test/support/quick-setup.ts',
};
