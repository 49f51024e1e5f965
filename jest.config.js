/** One jest run for unit specs beside the code and end-to-end tests in test/. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/services", "<rootDir>/gateway", "<rootDir>/runner", "<rootDir>/ingest", "<rootDir>/test"],
  testMatch: ["**/*.spec.ts", "**/*.e2e.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  moduleNameMapper: {
    "^@hangar/shared/proto/(.*)$": "<rootDir>/services/shared/src/proto/$1",
    "^@hangar/(shared|object-store|admin|data|compute|assistant|registry|embedded)$": "<rootDir>/services/$1/src",
    "^@hangar/gateway$": "<rootDir>/gateway/src",
    "^@hangar/runner$": "<rootDir>/runner/src",
    "^@hangar/ingest$": "<rootDir>/ingest/src",
    "^@hangar/test-harness$": "<rootDir>/test/src",
  },
  globalSetup: "<rootDir>/test/global-setup.mjs",
  globalTeardown: "<rootDir>/test/global-teardown.mjs",
  testTimeout: 60_000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/summary-reporter.js"],
};
