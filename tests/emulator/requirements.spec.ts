/**
 * The emulator's packages are optional peers: where they are missing, the emulator (its command and
 * its module) names each of them with the command that installs them, at the versions declared.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.join(__dirname, "..", "..");
const cli = path.join(repoRoot, "dist", "cli", "main.js");

/** Runs node with `hidden` packages unresolvable, as in a project that did not install them. */
function withoutPackages(hidden: string[], args: string[]) {
  const hook = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-hide-")), "hide.js");
  fs.writeFileSync(
    hook,
    `const Module = require("module");
const hidden = ${JSON.stringify(hidden)};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.some((name) => request === name || request.startsWith(name + "/"))) {
    throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: "MODULE_NOT_FOUND" });
  }
  return resolve.call(this, request, ...rest);
};`,
  );
  return spawnSync(process.execPath, ["-r", hook, ...args], { encoding: "utf8" });
}

test("`pulumi-keepstack emulator` names every missing package and the command that installs it", () => {
  const run = withoutPackages(["fastify", "pg"], [cli, "emulator", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0"]);
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("fastify, pg");
  expect(run.stderr).toContain("npm install --save-dev 'fastify@^5.12.8' 'pg@^8.23.1'");
  expect(run.stdout).toBe("");
});

test("the emulator's module says the same to a program that loads it", () => {
  const run = withoutPackages(["openpgp"], ["-e", `require(${JSON.stringify(path.join(repoRoot, "dist", "emulator"))})`]);
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain("npm install --save-dev 'openpgp@6.2.2'");
});

test("the import command, which needs none of them, still runs", () => {
  const run = withoutPackages(["fastify", "pg", "openpgp", "@peculiar/x509", "shamir-secret-sharing", "reflect-metadata"], [cli, "import", "--help"]);
  expect(run.stderr).toBe("");
  expect(run.stdout).toContain("import");
  expect(run.status).toBe(0);
});
