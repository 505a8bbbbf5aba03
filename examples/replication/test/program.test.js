/**
 * The program's own tests, run against the emulator with two secrets-service clusters
 * (`npx pulumi-keepstack emulator --clusters main,dr`), whose addresses and tokens arrive in the
 * environment (KEEP_ADDR, KEEP_TOKEN, KEEP_DR_ADDR, KEEP_DR_TOKEN). The program goes through the
 * package's engine harness (no Pulumi CLI, no cloud account): the setup, then the failover, each
 * run twice, the second run changing nothing.
 */
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { Engine, summarize } = require("pulumi-keepstack/harness");

require("ts-node").register({ transpileOnly: true, project: path.join(__dirname, "..", "tsconfig.json") });
const program = require("../index.ts");

const config = {
  "keep:address": process.env.KEEP_ADDR,
  "keep:token": process.env.KEEP_TOKEN,
  "keep-dr:address": process.env.KEEP_DR_ADDR,
  "keep-dr:token": process.env.KEEP_DR_TOKEN,
};

test("dr follows the primary, then takes over; each stage run again changes nothing", async () => {
  assert.ok(config["keep-dr:address"], "KEEP_DR_ADDR is not set: start the emulator with --clusters main,dr first (see docs/ci.md)");
  const engine = new Engine({ project: "keepstack-replication", cwd: path.join(__dirname, ".."), config, secretConfig: ["keep:token", "keep-dr:token"] });
  try {
    assert.deepEqual(summarize((await engine.preview(program)).steps), { create: 4 });
    const setup = await engine.up(program);
    assert.equal(setup.outputs.drMode, "secondary");
    assert.equal(setup.outputs.drState, "stream-wals");
    assert.deepEqual(summarize((await engine.up(program)).steps), { same: 4 });

    await engine.setConfig({ ...config, "replication:failover": "true" });
    const failover = await engine.up(program);
    assert.deepEqual(failover.outputs, { drMode: "primary", formerPrimaryState: "stream-wals", formerPrimaryMode: "secondary" });
    assert.deepEqual(summarize((await engine.up(program)).steps), { same: 4 });
  } finally {
    await engine.close();
  }
});
