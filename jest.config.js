/**
 * Two projects: `unit` runs in-process tests with no external processes; `e2e` starts one real local
 * cluster (etcd, kube-apiserver, kube-controller-manager, node agent) per run in its global setup.
 */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
// The README's example imports the package by name, as users do.
const moduleNameMapper = { '^redkite$': '<rootDir>/src/index.ts' };

/** @type {import('jest').Config} */
module.exports = {
  // The e2e suites drive ioredis clients against pods that are killed, frozen and partitioned; a client whose server
  // vanished mid-test can keep a reconnect timer alive after its test ended. The global teardown stops every process
  // the suite started, so ending the run there is safe, and CI must never hang on a stray timer.
  forceExit: true,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': tsJest },
      moduleNameMapper,
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': tsJest },
      moduleNameMapper,
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      slowTestThreshold: 60,
    },
  ],
};
