/**
 * Finds the real Pulumi CLI for the real-engine suite (tests/engine/): `pulumi` on the PATH, at least
 * v3.259, with the language hosts the suite's programs need (Node.js, Python, Go, YAML) and the
 * dynamic provider host, beside it or on the PATH, as a Pulumi release installs them. Plain
 * CommonJS: jest's configuration reads it before anything is compiled.
 */
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const MINIMUM = [3, 259, 0];
const PARTS = ["pulumi-language-nodejs", "pulumi-language-python", "pulumi-language-go", "pulumi-language-yaml", "pulumi-resource-pulumi-nodejs"];

/** Set by CI: the suite must run, and fails (never skips) when the CLI is missing. */
const required = () => process.env.KEEPSTACK_REAL_ENGINE === "required";

const HOW = "put the Pulumi CLI (v3.259 or later, with its Node.js, Python, Go and YAML language hosts) on the PATH";

/** The folder of an executable on the PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return dir;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** `{ bin, dir, version }` of the CLI, or `{ problem }` saying what is missing. */
function findPulumi() {
  const dir = onPath("pulumi");
  if (!dir) return { problem: `no pulumi on the PATH: ${HOW}` };
  const bin = path.join(dir, "pulumi");
  const run = spawnSync(bin, ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } });
  const version = (run.stdout || "").trim();
  const parts = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (run.status !== 0 || !parts) return { problem: `${bin} version failed (${(run.stderr || run.error || "").toString().trim()}): ${HOW}` };
  const numbers = parts.slice(1, 4).map(Number);
  const older = numbers.findIndex((n, i) => n !== MINIMUM[i]);
  if (older >= 0 && numbers[older] < MINIMUM[older]) return { problem: `${bin} is ${version}, older than v${MINIMUM.join(".")}: ${HOW}` };
  const missing = PARTS.filter((part) => !fs.existsSync(path.join(dir, part)) && !onPath(part));
  if (missing.length) return { problem: `${bin} ${version} has no ${missing.join(", ")} beside it or on the PATH: ${HOW}` };
  return { bin, dir, version };
}

let found;
/** The CLI, found once per process. */
function pulumiCli() {
  found ??= findPulumi();
  return found;
}

/** The one line `npm test` prints when the suite did not run, outside CI. */
function notRunLine(problem) {
  return `The real-engine suite (tests/engine) did not run: ${problem}.`;
}

module.exports = { pulumiCli, required, notRunLine };
