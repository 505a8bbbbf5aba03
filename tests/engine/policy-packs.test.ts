/**
 * Policy packs as the real CLI runs them: docs/policy.md's pack of the package's rules on a
 * program declaring through both doors (a bad document refused, naming its rule; a good one passed),
 * and examples/ci's pack set up as examples/ci/README.md says.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Emulator, startEmulator } from "keepstack-emulator";
import { pageBlocks } from "../support/pages";
import { ENGINE_TIMEOUT, packedEmulatorTarball, packedTarball, Project, repoRoot, run } from "../support/real-engine";
import { pluginSettings, typescriptSdkProject } from "./plugin-door";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterAll(() => emu?.close());

/** Points a package.json's packages of this repository at their packed files: they are not published. */
async function usePackedPackage(file: string): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
  manifest.dependencies["pulumi-keepstack"] = `file:${await packedTarball()}`;
  if (manifest.devDependencies?.["keepstack-emulator"]) manifest.devDependencies["keepstack-emulator"] = `file:${await packedEmulatorTarball()}`;
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The EGP guard on every path, at `level`, through each of `doors`. */
const guards = (level: string, doors = ["dynamic", "plugin"]) =>
  [
    'import * as dynamic from "pulumi-keepstack";',
    'import * as plugin from "@keepstack/pulumi-keepstack";',
    "void dynamic, plugin;",
    ...doors.map((ns) => `new ${ns}.keep.EgpPolicy("${ns}-guard", { name: "${ns}-guard", enforcementLevel: "${level}", paths: ["*"], policy: "main = rule { true }" });`),
    "",
  ].join("\n");

test(
  "docs/policy.md's pack: an EGP policy on every path below hard-mandatory refused with its rule through both doors; at hard-mandatory passed",
  async () => {
    const project = await typescriptSdkProject("keepstack-policy", guards("soft-mandatory"));
    // The page's pack, beside a PulumiPolicy.yaml, with the packages a pack installs.
    const [pack] = pageBlocks("docs/policy.md", "ts").filter((b) => b.includes("new PolicyPack("));
    project.write("policy/index.ts", pack);
    project.write("policy/PulumiPolicy.yaml", "runtime: nodejs\n");
    project.write("policy/package.json", JSON.stringify({ name: "policy", version: "0.1.0", main: "index.ts", dependencies: { "@pulumi/policy": "^1.21.0", "@pulumi/pulumi": "^3.270.0", "pulumi-keepstack": "file:" } }));
    await usePackedPackage(path.join(project.dir, "policy", "package.json"));
    await project.exec("npm", ["install"], { cwd: path.join(project.dir, "policy") });
    const settings = pluginSettings(emu);
    await project.stack("dev", { ...settings.config, "keep:address": emu.keep.url, "keep:token": emu.keep.rootToken }, [...settings.secrets, "keep:token"]);

    // Each door on its own: the engine stops at the first resource a mandatory rule refuses.
    for (const door of ["dynamic", "plugin"]) {
      project.write("index.ts", guards("soft-mandatory", [door]));
      emu.clearLogs();
      const refused = await project.pulumi(["preview", "--policy-pack", "policy"], { expect: "failure" });
      const token = door === "dynamic" ? "pulumi-nodejs:dynamic/keep:EgpPolicy" : "keepstack:keep:EgpPolicy";
      expect(refused.output).toContain(`- [mandatory]  keepstack-egp-wildcard-hard-mandatory  (${token}: ${door}-guard)`);
      expect(refused.output).toContain(`EGP "${door}-guard" governs every path ("*") at enforcement level soft-mandatory: it must be hard-mandatory`);
      expect(emu.requestCount()).toBe(0);
    }
    project.write("index.ts", guards("hard-mandatory"));
    const passed = await project.pulumi(["preview", "--policy-pack", "policy"]);
    expect(passed.output).toMatch(/Policies:\s+✅ keepstack@v0\.1\.0 \(local: policy\)/);
  },
  ENGINE_TIMEOUT,
);

test(
  "examples/ci/README.md: the example's pack set up and run as the README says; the program passes it",
  async () => {
    const project = await Project.create({ name: "keepstack-ci", runtime: "nodejs", from: path.join(repoRoot, "examples", "ci"), node: "program-tests" });
    for (const file of ["package.json", "policy/package.json"]) await usePackedPackage(path.join(project.dir, file));
    await project.stack("dev", { "keep:address": emu.keep.url, "keep:token": emu.keep.rootToken }, ["keep:token"]);
    const readme = fs.readFileSync(path.join(repoRoot, "examples", "ci", "README.md"), "utf8");
    const [block] = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes("--policy-pack policy"));
    emu.clearLogs();
    const ran = await run("bash", ["-euo", "pipefail", "-c", block], { cwd: project.dir, env: project.env });
    expect(emu.requestCount()).toBe(0);
    expect(ran.output).toMatch(/Policies:\s+✅ keepstack@v0\.1\.0 \(local: policy\)/);
    expect(ran.output).toMatch(/\+ +pulumi-nodejs:dynamic\/keep:EgpPolicy +business-hours +create/);
  },
  ENGINE_TIMEOUT,
);
