/**
 * The package as a user gets it: `npm pack`, installed into a fresh project with the quickstart
 * program, run there through the packaged harness against the packaged emulator (packed from the
 * dist/ that `npm test` just built, so no rebuild runs under other tests). The provider host
 * loads the package from that project's node_modules, as under the Pulumi CLI.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.join(__dirname, "..", "..");

const RUNNER = `
const { startEmulator } = require("pulumi-keepstack/emulator");
const { Engine, summarize } = require("pulumi-keepstack/harness");
require("ts-node").register({ transpileOnly: true });
const program = require("./index.ts");
(async () => {
  const emu = await startEmulator();
  const engine = new Engine({
    project: "keepstack-quickstart",
    config: { "keep:address": emu.keep.url, "keep:token": emu.keep.rootToken },
    secretConfig: ["keep:token"],
  });
  const report = {};
  report.preview = summarize((await engine.preview(program)).steps);
  report.previewRequests = emu.keep.log.count;
  const up = await engine.up(program);
  report.up = summarize(up.steps);
  report.outputs = up.outputs;
  report.policies = emu.keep.listPolicies("acl").concat(emu.keep.listPolicies("rgp"), emu.keep.listPolicies("egp"));
  report.providerSource = engine.state.values().next().value.outputs.__provider;
  report.destroy = summarize((await engine.destroy()).steps);
  await engine.close();
  await emu.close();
  console.log(JSON.stringify(report));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe("npm pack", () => {
  let project: string;
  beforeAll(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-pack-"));
  });
  afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

  test("installs into a fresh project and runs the quickstart there", () => {
    const tarball = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", project], { cwd: repoRoot, encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!;
    for (const file of ["index.ts", "Pulumi.yaml", "tsconfig.json"]) {
      fs.copyFileSync(path.join(repoRoot, "examples", "quickstart", file), path.join(project, file));
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
    const versions = { ...pkg.dependencies, ...pkg.devDependencies };
    fs.writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({
        name: "pack-check",
        private: true,
        dependencies: {
          "pulumi-keepstack": `file:./${tarball}`,
          "@pulumi/pulumi": versions["@pulumi/pulumi"],
          "ts-node": versions["ts-node"],
          typescript: versions.typescript,
          "@types/node": versions["@types/node"],
        },
      }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: project, stdio: "pipe" });
    fs.writeFileSync(path.join(project, "run.js"), RUNNER);
    const report = JSON.parse(execFileSync(process.execPath, ["run.js"], { cwd: project, encoding: "utf8" }).trim().split("\n").pop()!);
    expect(report.preview).toEqual({ create: 3 });
    expect(report.previewRequests).toBe(0);
    expect(report.up).toEqual({ create: 3 });
    expect(report.outputs).toEqual({ acl: "app-readers", rgp: "business-hours", egp: "production-guard" });
    expect(report.policies).toEqual(expect.arrayContaining(["app-readers", "business-hours", "production-guard"]));
    // The serialized provider only names the installed package: no path of this repository.
    expect(report.providerSource).toContain('"pulumi-keepstack/host"');
    expect(report.providerSource).not.toContain(repoRoot);
    expect(report.destroy).toEqual({ delete: 3 });
  }, 300_000);
});
