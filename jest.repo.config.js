/**
 * `npm run test:repo`: the repository checks, which read the tree and start nothing (no database,
 * no service, no build): documents against the code, folder layout, import cycles, where SQL lives,
 * the quiet-output guard. A few seconds; `.ci/run` runs them first. `npm test` runs them too.
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/test/repo/**/*.e2e-spec.ts',
    '<rootDir>/src/config/configuration-docs.spec.ts',
    '<rootDir>/src/database/sql-placement.spec.ts',
    '<rootDir>/src/database/sql-functions.spec.ts',
  ],
  globalSetup: undefined,
  globalTeardown: undefined,
};
