/**
 * examples/replication run the way examples/ci is: the emulator a program's CI installs
 * (`keepstack-emulator --detach --clusters main,dr`, packed as a user gets it), its export lines
 * read as `eval` would, the program's own tests (`npm test`: the real CLI through the Automation
 * API), then the emulator stopped.
 */
import * as path from "node:path";
import { ENGINE_TIMEOUT, Project, repoRoot, stopProcess } from "../support/real-engine";

test(
  "the replication example's tests pass against `keepstack-emulator --clusters main,dr`",
  async () => {
    const project = await Project.create({ name: "replication-example", runtime: "nodejs", from: path.join(repoRoot, "examples", "replication"), node: "program-tests" });
    const started = await project.exec("npx", ["keepstack-emulator", "--detach", "--clusters", "main,dr", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0"]);
    const env: Record<string, string> = {};
    for (const m of started.stdout.matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)) env[m[1]] = m[2];
    expect(Object.keys(env)).toEqual(expect.arrayContaining(["KEEP_ADDR", "KEEP_TOKEN", "KEEP_DR_ADDR", "KEEP_DR_TOKEN", "KEEPSTACK_EMULATOR_PID"]));
    try {
      const tests = await project.exec("npm", ["test"], { env, expect: "either" });
      expect([tests.code, tests.stdout]).toEqual([0, expect.stringMatching(/# pass 1\n# fail 0/)]);
    } finally {
      expect(await stopProcess(Number(env.KEEPSTACK_EMULATOR_PID))).toBe(true);
    }
  },
  ENGINE_TIMEOUT,
);
