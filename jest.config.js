/** Tests run the TypeScript sources; the provider host loads the compiled package (dist/), so `npm test` builds first. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  moduleNameMapper: { "^pulumi-keepstack$": "<rootDir>/index.ts" },
  testTimeout: 120000,
  reporters: ["default", "<rootDir>/tests/support/summary-reporter.js"],
};
