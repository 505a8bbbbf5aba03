/**
 * The package as a user gets it: `npm pack`, installed into a fresh project with the quickstart
 * program, run there through the packaged harness against the packaged emulator (packed from the
 * dist/ that `npm test` just built, so no rebuild runs under other tests). The provider host
 * loads the package from that project's node_modules, as under the Pulumi CLI. In the same
 * project: every subpath compiles, with types, under each module resolution a user may have, and
 * the test job of examples/ci/workflow.yml runs as Actions would run it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.join(__dirname, "..", "..");
// js-yaml comes with @pulumi/pulumi; only its load is needed, to read the workflow as Actions does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require("js-yaml") as { load(text: string): unknown };

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

/** A program using every subpath of the package, with types that must not be `any`. */
const CONSUMER = `
import { keep } from "pulumi-keepstack";
import * as host from "pulumi-keepstack/host";
import { main as servePlugin } from "pulumi-keepstack/provider-plugin";
import { Engine, summarize } from "pulumi-keepstack/harness";
import { startEmulator, Emulator } from "pulumi-keepstack/emulator";
import { evaluatePolicies, keepstackPolicies, PolicyViolation } from "pulumi-keepstack/policy";

export async function check(): Promise<number> {
  const emu: Emulator = await startEmulator();
  const engine: Engine = new Engine({ project: "consumer", config: { "keep:address": emu.keep.url } });
  const counts: Partial<Record<string, number>> = summarize([]);
  const violations: PolicyViolation[] = await evaluatePolicies(keepstackPolicies(), []);
  const token: string = keep.AclPolicy.__pulumiType;
  // Each subpath's types are real ones: were any of them \`any\`, these expected errors would not occur.
  // @ts-expect-error a project name is a string
  new Engine({ project: 1 });
  // @ts-expect-error ports are numbers
  await startEmulator({ ports: { keep: "8200" } });
  // @ts-expect-error the options take no such rule setting
  keepstackPolicies({ noSuchRule: true });
  // @ts-expect-error a policy name is required
  new keep.AclPolicy("x", { policy: "" });
  // @ts-expect-error the plugin takes the engine's arguments as strings
  servePlugin([1]);
  await engine.close();
  await emu.close();
  return Object.keys(counts).length + violations.length + token.length + Object.keys(host).length;
}
`;

/** Pulumi's TypeScript template's options, with the module settings of each resolution. */
const RESOLUTIONS: Record<string, Record<string, unknown>> = {
  node: { module: "commonjs", moduleResolution: "node" },
  node16: { module: "node16", moduleResolution: "node16" },
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
};

/** Tests in the project the quickstart test installed the package into. */
function installedPackageTests(project: () => string) {
  /** `tsc` over the consumer program with Pulumi's template options and `extra`; its error lines. */
  const compile = (name: string, extra: Record<string, unknown>): string[] => {
    const dir = project();
    fs.writeFileSync(path.join(dir, "consumer.ts"), CONSUMER);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "es2020",
        experimentalDecorators: true,
        noFallthroughCasesInSwitch: true,
        noImplicitReturns: true,
        forceConsistentCasingInFileNames: true,
        ...extra,
      },
      files: ["consumer.ts"],
    };
    fs.writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify(tsconfig));
    const tsc = spawnSync(process.execPath, [path.join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", `tsconfig.${name}.json`], { cwd: dir, encoding: "utf8" });
    return tsc.stdout.split("\n").filter((line) => /error TS/.test(line));
  };

  // Library checking off: what is checked is the consumer and how each subpath resolves. Under `node`,
  // the template's own test below checks the same consumer with library checking on.
  test.each(Object.keys(RESOLUTIONS).filter((r) => r !== "node"))("every subpath resolves with its types under moduleResolution %s", (resolution) => {
    expect(compile(resolution, { ...RESOLUTIONS[resolution], skipLibCheck: true })).toEqual([]);
  });

  test("a program on Pulumi's template as it is compiles against the installed package with no error at all", () => {
    const dir = project();
    fs.writeFileSync(
      path.join(dir, "template-program.ts"),
      `import * as pulumi from "@pulumi/pulumi";
import { keep, workspaces, mesh } from "pulumi-keepstack";
const readers = new keep.AclPolicy("readers", { name: "readers", policy: 'path "secret/*" { capabilities = ["read"] }' });
new keep.kv.Secret("db", { path: "app/db", data: { password: pulumi.secret("s3cret") } });
new workspaces.Workspace("app", { name: "app" });
new mesh.Partition("team", { name: "team" });
export const name: pulumi.Output<string> = readers.name;
`,
    );
    const tsconfig = { compilerOptions: { strict: true, noEmit: true, target: "es2020", module: "commonjs", moduleResolution: "node", experimentalDecorators: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true, forceConsistentCasingInFileNames: true }, files: ["template-program.ts"] };
    fs.writeFileSync(path.join(dir, "tsconfig.template-program.json"), JSON.stringify(tsconfig));
    const tsc = spawnSync(process.execPath, [path.join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.template-program.json"], { cwd: dir, encoding: "utf8" });
    expect(tsc.stdout.split("\n").filter((line) => /error TS/.test(line))).toEqual([]);
    expect(tsc.status).toBe(0);
  });

  test("Pulumi's template as it is (library checking on, moduleResolution node): every subpath resolves, no error in the consumer or in this package's declarations", () => {
    // The main entry names nothing but @pulumi/pulumi (tests/types/published.test.ts). Third-party
    // declarations of the other subpaths are another matter: pino's (under the emulator's fastify) needs esModuleInterop, and
    // @pulumi/policy 1.21's index.d.ts names members its proxy.d.ts does not have.
    const errors = compile("template", RESOLUTIONS.node);
    expect(errors.filter((line) => !/^node_modules\/(pino|@pulumi\/policy)\//.test(line))).toEqual([]);
  });

  test("a TypeScript test importing the emulator compiles under Pulumi's classic template with what docs/testing.md says to add", () => {
    const dir = project();
    fs.writeFileSync(
      path.join(dir, "emulator-test.ts"),
      `import { startEmulator, Emulator } from "pulumi-keepstack/emulator";
import { Engine } from "pulumi-keepstack/harness";
export async function run(): Promise<number> {
  const emu: Emulator = await startEmulator();
  const engine = new Engine({ project: "t", config: { "keep:address": emu.keep.url }, progress: true });
  await engine.close();
  await emu.close();
  return emu.requestCount();
}
`,
    );
    const classic = { strict: true, noEmit: true, target: "es2020", module: "commonjs", moduleResolution: "node", experimentalDecorators: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true, forceConsistentCasingInFileNames: true };
    const tsc = (name: string, compilerOptions: Record<string, unknown>) => {
      fs.writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files: ["emulator-test.ts"] }));
      const run = spawnSync(process.execPath, [path.join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", `tsconfig.${name}.json`], { cwd: dir, encoding: "utf8" });
      return run.stdout.split("\n").filter((line) => /error TS/.test(line));
    };
    // As it is, the classic template meets the default imports of fastify's logger types (pino's
    // TS1259, which the template test above sets aside); with what the page says to add, no error.
    const page = fs.readFileSync(path.join(repoRoot, "docs", "testing.md"), "utf8");
    expect(page).toMatch(/also\s+needs `"esModuleInterop": true`/);
    expect(tsc("emulator-classic-interop", { ...classic, esModuleInterop: true })).toEqual([]);
  }, 120_000);

  test("every relative link of the installed README and docs resolves inside the installed package", () => {
    const installed = path.join(project(), "node_modules", "pulumi-keepstack");
    const pages = ["README.md", ...fs.readdirSync(path.join(installed, "docs")).map((f) => path.join("docs", f))];
    const broken: string[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(path.join(installed, page), "utf8");
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/.test(target)) continue;
        if (!fs.existsSync(path.join(installed, path.dirname(page), target))) broken.push(`${page} -> ${target}`);
      }
    }
    expect(pages.length).toBeGreaterThan(5);
    expect(broken).toEqual([]);
  });

  test("the CI example's test job: the emulator started and read with eval, the program's tests, the emulator stopped", () => {
    const dir = project();
    const ci = path.join(repoRoot, "examples", "ci");
    fs.copyFileSync(path.join(ci, "index.ts"), path.join(dir, "index.ts"));
    fs.copyFileSync(path.join(ci, "tsconfig.json"), path.join(dir, "tsconfig.json"));
    fs.mkdirSync(path.join(dir, "test"), { recursive: true });
    fs.copyFileSync(path.join(ci, "test", "program.test.js"), path.join(dir, "test", "program.test.js"));
    const workflow = yaml.load(fs.readFileSync(path.join(ci, "workflow.yml"), "utf8")) as { jobs: Record<string, { steps: { name?: string; run?: string }[] }> };
    const steps = workflow.jobs.test.steps.filter((s) => s.run && s.name !== "Install");
    expect(steps.map((s) => s.name)).toEqual(["Start the emulator", "Test the program", "Stop the emulator"]);

    // As Actions does: each step in its own bash, with what earlier steps wrote to GITHUB_ENV.
    const githubEnv = path.join(dir, "github-env");
    fs.writeFileSync(githubEnv, "");
    const stepEnv = () => {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_ENV: githubEnv };
      for (const line of fs.readFileSync(githubEnv, "utf8").split("\n").filter(Boolean)) env[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
      return env;
    };
    const runStep = (script: string) => spawnSync("bash", ["-e", "-c", script], { cwd: dir, env: stepEnv(), encoding: "utf8" });

    const start = runStep(steps[0].run!);
    expect(start.stderr).not.toContain("Error");
    expect(start.status).toBe(0);
    const settings = stepEnv();
    expect(settings.KEEP_ADDR).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(settings.KEEP_TOKEN).toMatch(/^keep\./);
    expect(settings.WORKSPACES_ORGANIZATION).toBeTruthy();
    const pid = Number(settings.KEEPSTACK_EMULATOR_PID);
    expect(pid).toBeGreaterThan(0);
    try {
      const tests = runStep(steps[1].run!);
      expect(tests.stdout).toMatch(/# pass 1\n# fail 0/);
      expect(tests.status).toBe(0);
    } finally {
      const stop = runStep(steps[2].run!);
      expect(stop.status).toBe(0);
    }
    // SIGTERM closes the servers and ends the process: it is gone once its exit is reaped.
    const gone = spawnSync("bash", ["-c", `for i in $(seq 1 100); do kill -0 ${pid} 2>/dev/null || exit 0; sleep 0.1; done; exit 1`]);
    expect(gone.status).toBe(0);
  }, 120_000);
}

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
          // A policy pack's own dependency: pulumi-keepstack/policy uses only its types.
          "@pulumi/policy": versions["@pulumi/policy"],
        },
        // The emulator's packages, as a project whose tests start it installs them (its optional peers).
        devDependencies: Object.fromEntries(Object.entries(pkg.peerDependencies as Record<string, string>).filter(([name]) => name !== "ts-node" && name !== "@pulumi/policy")),
        // The scripts of the CI example, whose test job runs here.
        scripts: JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "ci", "package.json"), "utf8")).scripts,
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

  describe("the installed package", () => {
    installedPackageTests(() => project);
  });
});
