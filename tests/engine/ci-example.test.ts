/**
 * The test job of examples/ci/workflow.yml, as Actions runs it, in a copy of the example with the
 * packed package and the packed emulator installed as its package.json says: each `run` step in its
 * own bash, with what earlier steps wrote to GITHUB_ENV. The emulator is started and read with
 * `eval`, the program's own tests (`npm test`) drive the real CLI through the Automation API against
 * it, and the emulator is stopped and gone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { processGone } from "../support/process-exit";
import { ENGINE_TIMEOUT, Project, repoRoot } from "../support/real-engine";

// js-yaml comes with @pulumi/pulumi; only its load is needed, to read the workflow as Actions does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require("js-yaml") as { load(text: string): unknown };

const example = path.join(repoRoot, "examples", "ci");

test(
  "examples/ci: the test job's steps start the emulator, pass the program's tests through the Automation API, and stop it",
  async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(example, "package.json"), "utf8"));
    expect(Object.keys(manifest.devDependencies)).toEqual(expect.arrayContaining(["keepstack-emulator", "@pulumi/policy"]));
    const project = await Project.create({ name: "ci-example", runtime: "nodejs", from: example, node: "program-tests" });
    const workflow = yaml.load(fs.readFileSync(path.join(example, "workflow.yml"), "utf8")) as { jobs: Record<string, { steps: { name?: string; run?: string; uses?: string }[] }> };
    // The CLI the tests drive is installed by the action (here: on the PATH already).
    expect(workflow.jobs.test.steps.some((s) => s.uses?.startsWith("pulumi/actions@") && !s.run)).toBe(true);
    const steps = workflow.jobs.test.steps.filter((s) => s.run && s.name !== "Install");
    expect(steps.map((s) => s.name)).toEqual(["Start the emulator", "Test the program", "Stop the emulator"]);

    const githubEnv = path.join(project.dir, "..", "github-env");
    fs.writeFileSync(githubEnv, "");
    const stepEnv = () => {
      const env: NodeJS.ProcessEnv = { ...project.env, GITHUB_ENV: githubEnv };
      for (const line of fs.readFileSync(githubEnv, "utf8").split("\n").filter(Boolean)) env[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
      return env;
    };
    const runStep = (script: string) => project.exec("bash", ["-e", "-c", script], { env: stepEnv() as Record<string, string>, expect: "either" });

    const start = await runStep(steps[0].run!);
    expect(start.stderr).not.toContain("Error");
    expect(start.code).toBe(0);
    const settings = stepEnv();
    expect(settings.KEEP_ADDR).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(settings.KEEP_TOKEN).toMatch(/^keep\./);
    expect(settings.WORKSPACES_ORGANIZATION).toBeTruthy();
    const pid = Number(settings.KEEPSTACK_EMULATOR_PID);
    expect(pid).toBeGreaterThan(0);
    try {
      const tests = await runStep(steps[1].run!);
      expect([tests.code, tests.stdout]).toEqual([0, expect.stringMatching(/# pass 1\n# fail 0/)]);
      // The test's stack and its settings file went with it.
      expect(fs.readdirSync(project.dir).filter((f) => /^Pulumi\..+\.yaml$/.test(f))).toEqual([]);
    } finally {
      const stop = await runStep(steps[2].run!);
      expect(stop.code).toBe(0);
    }
    // SIGTERM closes the servers and ends the process: it is gone once its exit is reaped.
    expect(await processGone(pid)).toBe(true);
  },
  ENGINE_TIMEOUT,
);
