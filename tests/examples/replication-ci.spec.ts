/**
 * examples/replication run the way examples/ci is: the emulator users run, started with a second
 * cluster (`pulumi-keepstack emulator --detach --clusters main,dr`), its export lines read as
 * `eval` would, the program's own tests (`node --test`), then the emulator stopped.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as path from "node:path";

const root = path.join(__dirname, "..", "..");
const cli = path.join(root, "dist", "cli", "main.js");

test("the replication example's tests pass against `emulator --clusters main,dr`", () => {
  const started = execFileSync(process.execPath, [cli, "emulator", "--detach", "--clusters", "main,dr", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0"], { encoding: "utf8" });
  const env: Record<string, string> = {};
  for (const m of started.matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)) env[m[1]] = m[2];
  expect(Object.keys(env)).toEqual(expect.arrayContaining(["KEEP_ADDR", "KEEP_TOKEN", "KEEP_DR_ADDR", "KEEP_DR_TOKEN", "KEEPSTACK_EMULATOR_PID"]));
  try {
    const run = spawnSync(process.execPath, ["--test", "test/**/*.test.js"], { cwd: path.join(root, "examples", "replication"), env: { ...process.env, ...env }, encoding: "utf8" });
    expect(run.stdout).toMatch(/# pass 1\n# fail 0/);
    expect(run.status).toBe(0);
  } finally {
    process.kill(Number(env.KEEPSTACK_EMULATOR_PID), "SIGTERM");
  }
}, 120_000);
