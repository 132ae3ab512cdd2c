/**
 * Nest 12 is ESM; the app and the tests are CommonJS and load it through require(esm),
 * which Jest supports on Node >= 24.9 when started with --experimental-vm-modules (see package.json).
 * @type {import('jest').Config}
 */
module.exports = {
  rootDir: '.',
  testEnvironment: '<rootDir>/test/support/quiet-environment.ts',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
    '<rootDir>/test/medium/**/*.medium-spec.ts',
  ],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A test that writes to the console or raises a process warning fails (README, Tests).
  setupFilesAfterEnv: ['<rootDir>/test/support/quiet-output.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  // Why: a worker's heap grows from file to file, to 1.6 GB (2 GB resident) by the end of `npm test`.
  // Exiting with that heap took longer than the 500 ms Jest grants a worker at the end, so Jest
  // force-exited it ("A worker process has failed to exit gracefully") with no handle left open.
  // A worker above this limit after a test file is replaced by a fresh one.
  workerIdleMemoryLimit: '512MB',
};
