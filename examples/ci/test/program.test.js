/**
 * The program's own tests, run in CI against the emulator (`npx pulumi-keepstack emulator`), whose
 * addresses and tokens arrive in the environment (KEEP_ADDR, KEEP_TOKEN): the program goes through
 * the package's engine harness (no Pulumi CLI, no cloud account), and the policy pack's rules are
 * checked on what it declares.
 */
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { Engine, summarize } = require("pulumi-keepstack/harness");
const { evaluatePolicies, keepstackPolicies } = require("pulumi-keepstack/policy");

require("ts-node").register({ transpileOnly: true, project: path.join(__dirname, "..", "tsconfig.json") });
const program = require("../index.ts");

const config = { "keep:address": process.env.KEEP_ADDR, "keep:token": process.env.KEEP_TOKEN };

test("the program applies, changes nothing on a second run, keeps the rules, and goes away", async () => {
  assert.ok(config["keep:address"], "KEEP_ADDR is not set: start the emulator first (see README.md)");
  const engine = new Engine({ project: "keepstack-ci", config, secretConfig: ["keep:token"] });
  try {
    assert.deepEqual(summarize((await engine.preview(program)).steps), { create: 2 });
    const up = await engine.up(program);
    assert.deepEqual(up.outputs, { readers: "app-readers", guard: "business-hours" });
    assert.deepEqual(summarize((await engine.preview(program)).steps), { same: 2 });

    const resources = [...engine.state.values()].map((r) => ({ urn: r.urn, type: r.type, name: r.name, props: r.inputs }));
    const violations = await evaluatePolicies(keepstackPolicies({ stackConfig: () => config }), resources);
    assert.deepEqual(violations, []);

    assert.deepEqual(summarize((await engine.destroy()).steps), { delete: 2 });
  } finally {
    await engine.close();
  }
});
