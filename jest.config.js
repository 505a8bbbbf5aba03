/** Tests run the TypeScript sources; the provider host loads the compiled package (dist/), so `npm test` builds first. */
const { pulumiCli, required, notRunLine } = require("./tests/support/real-engine-cli");

// The real-engine suite runs wherever the Pulumi CLI is; CI requires it, and there a missing CLI fails the suite.
const cli = pulumiCli();
const realEngine = Boolean(cli.bin) || required();
if (!realEngine) process.env.KEEPSTACK_REAL_ENGINE_NOT_RUN = notRunLine(cli.problem);

module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", ...(realEngine ? [] : ["<rootDir>/tests/engine/"])],
  globalSetup: "<rootDir>/tests/support/engine-run.js",
  globalTeardown: "<rootDir>/tests/support/engine-run-teardown.js",
  // Test files run in worker processes, and a worker whose heap passed 1 GB after a file is replaced:
  // a single process holding every file's modules (and the provider hosts' buffers) grows without bound.
  workerIdleMemoryLimit: "1GB",
  // Three workers on two cores: the tests wait on provider hosts, sockets and held requests, and a
  // third worker fills those waits (measured: 486 s of jest with 3 workers, 530 s with 2, on 2 cores).
  maxWorkers: 3,
  testSequencer: "<rootDir>/tests/support/sequencer.js",
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  // The sources, as the tests import them: the emulator is the same module whether named by path or package.
  moduleNameMapper: { "^pulumi-keepstack$": "<rootDir>/index.ts", "^keepstack-emulator$": "<rootDir>/emulator/index.ts" },
  testTimeout: 120000,
  reporters: ["default", "<rootDir>/tests/support/summary-reporter.js"],
};
