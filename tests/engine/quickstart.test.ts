/**
 * The README's first command with the Pulumi CLI on the PATH: `npm run quickstart` (the build, then
 * the quickstart script, run here as the script once `npm test` has built the package) drives the
 * real CLI against the emulator the script serves from its own process.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ENGINE_TIMEOUT, Project, repoRoot, run } from "../support/real-engine";

test(
  "README: npm run quickstart with the CLI on the PATH: preview with no request, up, no change, refresh, destroy, through the real CLI",
  async () => {
    const script = "node dist/harness/quickstart.js";
    expect(JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).scripts.quickstart).toBe(`npm run build && ${script}`);
    // A project's environment (the CLI and Node.js 22 on the PATH, a Pulumi home of its own); the script picks its own backend.
    const { env } = await Project.create({ name: "quickstart-env", runtime: "nodejs" });
    const ran = await run("bash", ["-c", script], { cwd: repoRoot, env: { ...env, PULUMI_BACKEND_URL: "", PULUMI_CONFIG_PASSPHRASE: "" } });
    expect(ran.output).not.toMatch(/engine harness/);
    expect(ran.output).toContain("$ pulumi preview --non-interactive");
    expect(ran.output).toContain("(requests sent to the service during preview: 0)");
    expect(ran.output).toMatch(/\+ 4 created/);
    expect(ran.output).toMatch(/\$ pulumi refresh [^\n]*--expect-no-changes/);
    expect(ran.output).toMatch(/- 4 deleted/);
    expect(ran.output).toContain("Quickstart done.");
    // The stack's file comes and goes.
    expect(fs.existsSync(path.join(repoRoot, "Pulumi.quickstart.yaml"))).toBe(false);
  },
  ENGINE_TIMEOUT,
);
