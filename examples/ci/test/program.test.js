/**
 * The program's own tests, run in CI against the emulator (`npx keepstack-emulator --detach`), whose
 * addresses and tokens arrive in the environment (KEEP_ADDR, KEEP_TOKEN), where the provider reads
 * them. The program runs as in production, through the Pulumi CLI (driven by its Automation API), on
 * a stack of its own in a local state folder that the test removes; the policy pack's rules are
 * checked on what it made.
 */
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { LocalWorkspace } = require("@pulumi/pulumi/automation");
const { evaluatePolicies, keepstackPolicies, policyTargetsOfState } = require("pulumi-keepstack/policy");

test("the program applies, changes nothing on a second run, keeps the rules, and goes away", async (t) => {
  assert.ok(process.env.KEEP_ADDR, "KEEP_ADDR is not set: start the emulator first (see README.md)");
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-ci-state-"));
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "test", workDir: path.join(__dirname, "..") },
    { envVars: { PULUMI_BACKEND_URL: `file://${state}`, PULUMI_CONFIG_PASSPHRASE: "test only" } },
  );
  // The stack goes, then its state folder.
  t.after(async () => {
    await stack.workspace.removeStack("test", { force: true });
    fs.rmSync(state, { recursive: true, force: true });
  });

  // The counts include the stack itself.
  assert.deepEqual((await stack.preview()).changeSummary, { create: 3 });
  const up = await stack.up();
  assert.deepEqual(up.outputs.readers.value, "app-readers");
  assert.deepEqual(up.outputs.guard.value, "business-hours");
  assert.deepEqual((await stack.preview()).changeSummary, { same: 3 });

  const violations = await evaluatePolicies(keepstackPolicies(), policyTargetsOfState(await stack.exportStack()));
  assert.deepEqual(violations, []);

  assert.deepEqual((await stack.destroy()).summary.resourceChanges, { delete: 3 });
});
