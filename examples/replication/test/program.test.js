/**
 * The program's own tests, run against the emulator with two secrets-service clusters
 * (`npx keepstack-emulator --detach --clusters main,dr`), whose addresses and tokens arrive in the
 * environment (KEEP_ADDR, KEEP_TOKEN, KEEP_DR_ADDR, KEEP_DR_TOKEN): the test's stack takes them as
 * its settings, in place of the project's defaults (Pulumi.yaml). The program runs through the Pulumi CLI (driven by its Automation API) on a stack of its own in a
 * local state folder: the setup, then the failover, each run twice, the second run changing nothing.
 */
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { LocalWorkspace } = require("@pulumi/pulumi/automation");

test("dr follows the primary, then takes over; each stage run again changes nothing", async (t) => {
  assert.ok(process.env.KEEP_DR_ADDR, "KEEP_DR_ADDR is not set: start the emulator with --clusters main,dr first (see docs/ci.md)");
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-replication-state-"));
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "test", workDir: path.join(__dirname, "..") },
    { envVars: { PULUMI_BACKEND_URL: `file://${state}`, PULUMI_CONFIG_PASSPHRASE: "test only" } },
  );
  // The stack goes, then its state folder.
  t.after(async () => {
    await stack.workspace.removeStack("test", { force: true });
    fs.rmSync(state, { recursive: true, force: true });
  });
  await stack.setAllConfig({
    "keep:address": { value: process.env.KEEP_ADDR },
    "keep:token": { value: process.env.KEEP_TOKEN, secret: true },
    "keep-dr:address": { value: process.env.KEEP_DR_ADDR },
    "keep-dr:token": { value: process.env.KEEP_DR_TOKEN, secret: true },
  });
  const outputs = (up) => Object.fromEntries(Object.entries(up.outputs).map(([name, output]) => [name, output.value]));

  // The counts include the stack itself.
  assert.deepEqual((await stack.preview()).changeSummary, { create: 5 });
  const setup = outputs(await stack.up());
  assert.equal(setup.drMode, "secondary");
  assert.equal(setup.drState, "stream-wals");
  assert.deepEqual((await stack.up()).summary.resourceChanges, { same: 5 });

  await stack.setConfig("replication:failover", { value: "true" });
  const failover = outputs(await stack.up());
  assert.deepEqual(failover, { drMode: "primary", formerPrimaryState: "stream-wals", formerPrimaryMode: "secondary" });
  assert.deepEqual((await stack.up()).summary.resourceChanges, { same: 5 });
});
