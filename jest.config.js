/** Tests run the TypeScript sources; the provider host loads the compiled package (dist/), so `npm test` builds first. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  // The fault and fuzz campaigns run with `npm run test:campaigns` (see the README's Testing section).
  testPathIgnorePatterns: process.env.KEEPSTACK_CAMPAIGNS ? ["/node_modules/"] : ["/node_modules/", "<rootDir>/tests/campaigns/"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  moduleNameMapper: { "^pulumi-keepstack$": "<rootDir>/index.ts" },
  testTimeout: 120000,
  reporters: ["default", "<rootDir>/tests/support/summary-reporter.js"],
};
