/**
 * The real-engine suite's projects (tests/engine/, ARCHITECTURE.md, "The real engine is the judge"): each a real Pulumi project in a
 * temporary folder, run by the real `pulumi` CLI on a local file backend with the offline settings,
 * the package installed from `npm pack` of this checkout as a user installs it, against an emulator
 * on loopback. What every project of a language starts from (the packed package, a Node.js install,
 * a Python virtualenv) is made once per run and shared by the suite's test files, which jest runs
 * in parallel: the first to need it makes it, the others wait for it.
 *
 * The CLI runs in child processes the test waits for without blocking: the emulator they call
 * serves from the test's own process.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { processGone } from "./process-exit";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pulumiCli, required } = require("./real-engine-cli") as {
  pulumiCli(): { bin?: string; dir?: string; version?: string; problem?: string };
  required(): boolean;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { removeFolders } = require("./engine-run") as { removeFolders(folders: string[]): Promise<void> };

export const repoRoot = path.join(__dirname, "..", "..");
/** A test of the suite may take this long: a hang guard, never a race with work (a first Go build takes minutes). */
export const ENGINE_TIMEOUT = 900_000;

/** The CLI the suite runs, or a failure naming what is missing (the suite never skips: see jest.config.js). */
export function cli(): { bin: string; dir: string; version: string } {
  const found = pulumiCli();
  if (!found.bin) throw new Error(`the real-engine suite needs the Pulumi CLI${required() ? " (KEEPSTACK_REAL_ENGINE=required)" : ""}: ${found.problem}`);
  return found as { bin: string; dir: string; version: string };
}

/** The folder this run's test files share (made by jest's global setup), or one of this process. */
function runRoot(): string {
  let root = process.env.KEEPSTACK_ENGINE_RUN;
  if (!root) {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-engine-run-"));
    process.env.KEEPSTACK_ENGINE_RUN = root;
    process.once("exit", () => fs.rmSync(root!, { recursive: true, force: true }));
  }
  return root;
}

/**
 * Makes something once per run for every test file: the first caller makes it (holding a lock
 * folder), the others wait for its result (a text, such as a folder's path), or for its error.
 */
export async function once(name: string, make: () => Promise<string>): Promise<string> {
  const root = runRoot();
  const done = path.join(root, `${name}.done`);
  const failed = path.join(root, `${name}.failed`);
  try {
    fs.mkdirSync(path.join(root, `${name}.lock`));
  } catch {
    for (;;) {
      if (fs.existsSync(done)) return fs.readFileSync(done, "utf8");
      if (fs.existsSync(failed)) throw new Error(fs.readFileSync(failed, "utf8"));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    const result = await make();
    fs.writeFileSync(done, result);
    return result;
  } catch (e) {
    fs.writeFileSync(failed, `${name}: ${(e as Error).message}`);
    throw e;
  }
}

export interface Ran {
  /** The command as run, for messages. */
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
  /** Standard output and error as they came. */
  output: string;
}

/** What a command is expected to end with: success (the default), failure, or either (the caller reads `code`). */
export type Expected = "success" | "failure" | "either";

/** Runs a command and waits for it without blocking this process; throws with all it printed when its exit code is not the one expected. */
export function run(file: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; expect?: Expected; input?: string }): Promise<Ran> {
  const profile = process.env.KEEPSTACK_ENGINE_PROFILE;
  if (profile) {
    args = ["-a", "-o", profile, "-f", `%e %U %S ${path.basename(file)} ${args.join(" ").replace(/\s+/g, " ").slice(0, 120)}`, file, ...args];
    file = "/usr/bin/time";
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d;
      output += d;
    });
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d;
      output += d;
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    child.once("error", reject);
    child.once("close", (code) => {
      const ran = { command: `${path.basename(file)} ${args.join(" ")}`.replace(/\n+/g, "; "), code, stdout, stderr, output };
      const ok = code === 0;
      const expected = options.expect ?? "success";
      if (expected === "either" || (expected === "success" ? ok : !ok)) resolve(ran);
      else reject(new Error(`${path.basename(file)} ${args.join(" ")} (in ${options.cwd}) ${ok ? "succeeded, but was expected to fail" : `failed with exit code ${code}`}:\n${output}`));
    });
  });
}

/**
 * Sends SIGTERM to a detached process (an emulator) and waits until it is gone: it writes its caches
 * as it exits, and the run's folder is removed after the last test.
 */
export function stopProcess(pid: number): Promise<boolean> {
  process.kill(pid, "SIGTERM");
  return processGone(pid);
}

/** The environment of this process without the services' settings and Pulumi's own, so only what a test gives counts. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(KEEP|WORKSPACES|MESH|PULUMI)_/.test(key) || key.startsWith("npm_") || key.startsWith("JEST_")) continue;
    env[key] = value;
  }
  // The Node.js the project installs first (the package and @pulumi/pulumi need 22), then the CLI.
  env.PATH = [path.dirname(process.execPath), cli().dir, process.env.PATH].join(path.delimiter);
  // ts-node, which the Node.js host loads for every program, brings a compile cache of its own
  // (v8-compile-cache-lib) that takes over module compilation from Node.js's: off, every module of a
  // program is served by the run's NODE_COMPILE_CACHE (about half a second of CPU a program run).
  env.DISABLE_V8_COMPILE_CACHE = "1";
  // npm answers from its cache where it can; the registry is reached only for what it lacks.
  env.npm_config_prefer_offline = "true";
  env.npm_config_audit = "false";
  env.npm_config_fund = "false";
  env.npm_config_update_notifier = "false";
  return env;
}

/** `npm pack` of this checkout (the `dist/` that `npm test` built): what a user installs. */
export function packedTarball(): Promise<string> {
  return packOnce("tarball", []);
}

/** `npm pack` of the emulator's package (its `dist/`, built by `npm test` too): what a program's tests install. */
export function packedEmulatorTarball(): Promise<string> {
  return packOnce("emulator-tarball", ["--workspace", "emulator"]);
}

function packOnce(name: string, args: string[]): Promise<string> {
  return once(name, async () => {
    const dir = path.join(runRoot(), "pack");
    fs.mkdirSync(dir, { recursive: true });
    const { stdout } = await run("npm", ["pack", ...args, "--silent", "--ignore-scripts", "--pack-destination", dir], { cwd: repoRoot, env: baseEnv() });
    return path.join(dir, stdout.trim().split("\n").pop()!);
  });
}

/** The dependencies of a TypeScript Pulumi project of the package, as a user writes them. */
async function typescriptManifest(name: string): Promise<Record<string, unknown>> {
  return {
    name,
    private: true,
    main: "index.ts",
    dependencies: { "@pulumi/pulumi": "^3.270.0", "pulumi-keepstack": `file:${await packedTarball()}` },
    devDependencies: { "@types/node": "^22.20.5", typescript: "^5.9.3" },
  };
}

/** What a TypeScript project whose own tests start the emulator and check the policy rules adds. */
async function programTestsManifest(name: string): Promise<Record<string, unknown>> {
  const manifest = await typescriptManifest(name);
  const devDependencies = { ...(manifest.devDependencies as Record<string, string>), "keepstack-emulator": `file:${await packedEmulatorTarball()}`, "@pulumi/policy": "^1.21.0" };
  return { ...manifest, devDependencies };
}

/**
 * An npm install, once per run: `typescript`, what a TypeScript Pulumi project of the package has;
 * `program-tests`, that and what its own tests use (the packed emulator, `@pulumi/policy`);
 * `package`, the packed package alone, as `npm install pulumi-keepstack` leaves a project of
 * another language (the plugin's folder is in it).
 */
function nodeInstall(kind: NodeInstall): Promise<string> {
  return once(`node-${kind}`, async () => {
    const dir = path.join(runRoot(), `node-${kind}`);
    fs.mkdirSync(dir, { recursive: true });
    const manifest =
      kind === "typescript"
        ? await typescriptManifest(dir)
        : kind === "program-tests"
          ? await programTestsManifest(dir)
          : { name: "package-base", private: true, dependencies: { "pulumi-keepstack": `file:${await packedTarball()}` } };
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...manifest, name: `${kind}-base` }, null, 2));
    await run("npm", ["install"], { cwd: dir, env: baseEnv() });
    return dir;
  });
}

export type NodeInstall = "typescript" | "program-tests" | "package";

/**
 * A Python virtualenv with PyPI's `pulumi`, which Python projects name in Pulumi.yaml. It is kept
 * between runs, as npm's and Go's caches are (`KEEPSTACK_PYTHON_VENV`, by default under the user's
 * cache folder), and made when missing; a run installs the SDKs it generates into it, one Python
 * file after another.
 */
export function pythonVirtualenv(): Promise<string> {
  return once("python", async () => {
    const dir = process.env.KEEPSTACK_PYTHON_VENV ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "keepstack-tests", "python-venv");
    const python = path.join(dir, "bin", "python");
    const ready = await run(python, ["-c", "import pulumi"], { cwd: runRoot(), env: baseEnv(), expect: "success" }).then(
      () => true,
      () => false,
    );
    if (!ready) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      await run("python3", ["-m", "venv", dir], { cwd: runRoot(), env: baseEnv() });
      await run(path.join(dir, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "pulumi>=3.0.0,<4.0.0"], { cwd: runRoot(), env: baseEnv() });
    }
    return dir;
  });
}

export type Runtime = "nodejs" | "python" | "go" | "yaml";

export interface ProjectOptions {
  /** The project's name (Pulumi.yaml). */
  name: string;
  runtime: Runtime;
  /** Files beside Pulumi.yaml, by relative path (Pulumi.yaml itself is written from `name` and `runtime` unless given). */
  files?: Record<string, string>;
  /** An existing project folder to copy (an example), before `files`; its node_modules is left out. */
  from?: string;
  /** A project of this run to copy whole, node_modules included, before `files`. */
  copyOf?: string;
  /** Node.js packages, a copy of one of the run's installs (see `installPackage`). */
  node?: NodeInstall;
  /** Settings of Pulumi's own (`PULUMI_…`) and the services' for every command. */
  env?: Record<string, string>;
  /**
   * A TypeScript program is type-checked as it runs, as Pulumi does by default. Off, it is only
   * transpiled (`PULUMI_NODEJS_TRANSPILE_ONLY`), which saves half a second of CPU a run: for
   * programs whose types other tests check (the examples) or that are the test's own.
   */
  typeCheck?: boolean;
  /**
   * The project's `@pulumi/pulumi` (and its generated SDK's) is this checkout's (a link to it), so
   * the harness can run the project's program in the test's own process with the SDK the CLI's run
   * used (the differential test): one SDK instance, whose runtime the harness drives.
   */
  checkoutSdk?: boolean;
  /** The project outlives its test file: a template the run's other files copy (made in `once`). */
  sharedByTheRun?: boolean;
}

let counter = 0;

/**
 * The folders of the projects this test file made (each a project, its state and its Pulumi home).
 * Each holds a Node.js install or more (about 14,000 files a TypeScript project), so they are removed
 * when the file ends, beside the other workers' work, rather than all at once by the run's teardown.
 */
const madeByThisFile: string[] = [];

// Every test file that makes projects imports this module, in its own module registry.
if (typeof afterAll === "function") afterAll(() => removeFolders(madeByThisFile.splice(0)), ENGINE_TIMEOUT);

/** A Pulumi project in a temporary folder, with its own file backend and Pulumi home. */
export class Project {
  readonly env: NodeJS.ProcessEnv;

  private constructor(
    readonly dir: string,
    readonly name: string,
    env: Record<string, string>,
  ) {
    const state = path.join(dir, "..", `${path.basename(dir)}-state`);
    fs.mkdirSync(state, { recursive: true });
    this.env = {
      ...baseEnv(),
      PULUMI_HOME: path.join(dir, "..", `${path.basename(dir)}-home`),
      PULUMI_BACKEND_URL: `file://${state}`,
      PULUMI_CONFIG_PASSPHRASE: "real-engine-suite",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      ...env,
    };
  }

  static async create(options: ProjectOptions): Promise<Project> {
    const dir = path.join(runRoot(), "projects", `${options.name}-${process.pid}-${++counter}`, "project");
    if (!options.sharedByTheRun) madeByThisFile.push(path.dirname(dir));
    fs.mkdirSync(dir, { recursive: true });
    if (options.from) fs.cpSync(options.from, dir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist|Pulumi\.[^/\\]+\.yaml)$/.test(src) });
    // A project made earlier in the run, its packages included (hard links, as `installPackage` makes them).
    if (options.copyOf) {
      const entries = fs.readdirSync(options.copyOf).filter((entry) => entry !== "node_modules");
      if (entries.length) await run("cp", ["-a", ...entries.map((entry) => path.join(options.copyOf!, entry)), dir], { cwd: dir });
      await run("cp", ["-al", path.join(options.copyOf, "node_modules"), path.join(dir, "node_modules")], { cwd: dir });
    }
    if (!options.files?.["Pulumi.yaml"] && !options.from && !options.copyOf) {
      const runtime = options.runtime === "nodejs" ? "nodejs" : options.runtime;
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${options.name}\nruntime: ${runtime}\n`);
    }
    for (const [file, text] of Object.entries(options.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const transpileOnly: Record<string, string> = options.runtime === "nodejs" && !options.typeCheck ? { PULUMI_NODEJS_TRANSPILE_ONLY: "true" } : {};
    const project = new Project(dir, options.name, { ...transpileOnly, ...options.env });
    if (options.node) await project.installPackage(options.node);
    if (options.checkoutSdk) {
      // The project's and a generated SDK's (sdks/<name>/node_modules), where there is one.
      const sdks = path.join(dir, "sdks");
      const folders = [dir, ...(fs.existsSync(sdks) ? fs.readdirSync(sdks).map((name) => path.join(sdks, name)) : [])];
      for (const folder of folders) {
        const sdk = path.join(folder, "node_modules", "@pulumi", "pulumi");
        if (folder !== dir && !fs.existsSync(sdk)) continue;
        fs.rmSync(sdk, { recursive: true, force: true });
        fs.mkdirSync(path.dirname(sdk), { recursive: true });
        fs.symlinkSync(path.join(repoRoot, "node_modules", "@pulumi", "pulumi"), sdk);
      }
    }
    return project;
  }

  /**
   * node_modules as `npm install` leaves it, with the packed package: a copy of the run's install
   * (hard links: npm replaces files, it never writes into them), its package-lock.json, and the
   * project's package.json naming what npm named there.
   */
  async installPackage(kind: NodeInstall): Promise<void> {
    const base = await nodeInstall(kind);
    await run("cp", ["-al", path.join(base, "node_modules"), path.join(this.dir, "node_modules")], { cwd: this.dir });
    const manifestFile = path.join(this.dir, "package.json");
    const mine = fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, "utf8")) : { name: this.name, private: true };
    const shared = JSON.parse(fs.readFileSync(path.join(base, "package.json"), "utf8"));
    mine.dependencies = { ...mine.dependencies, ...shared.dependencies };
    if (shared.devDependencies) mine.devDependencies = { ...mine.devDependencies, ...shared.devDependencies };
    fs.writeFileSync(manifestFile, `${JSON.stringify(mine, null, 2)}\n`);
    const lock = JSON.parse(fs.readFileSync(path.join(base, "package-lock.json"), "utf8"));
    lock.name = mine.name;
    lock.packages[""] = { ...lock.packages[""], name: mine.name, dependencies: mine.dependencies, devDependencies: mine.devDependencies };
    fs.writeFileSync(path.join(this.dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
  }

  /** Runs `pulumi` here; `--non-interactive` is added. */
  pulumi(args: readonly string[], options: { expect?: Expected; env?: Record<string, string>; cwd?: string } = {}): Promise<Ran> {
    return run(cli().bin, [...args, "--non-interactive"], { cwd: options.cwd ?? this.dir, env: { ...this.env, ...options.env }, expect: options.expect });
  }

  /** Runs another command here (npm, go, ...) with the project's environment. */
  exec(file: string, args: readonly string[], options: { expect?: Expected; cwd?: string; env?: Record<string, string> } = {}): Promise<Ran> {
    return run(file, args, { cwd: options.cwd ?? this.dir, env: { ...this.env, ...options.env }, expect: options.expect });
  }

  /** `pulumi stack init`, then the settings in one `pulumi config set-all` (secrets encrypted). */
  async stack(name: string, config: Record<string, string> = {}, secrets: readonly string[] = []): Promise<void> {
    await this.pulumi(["stack", "init", name]);
    await this.setConfig(config, secrets);
  }

  async setConfig(config: Record<string, string>, secrets: readonly string[] = []): Promise<void> {
    const args = Object.entries(config).flatMap(([key, value]) => [secrets.includes(key) ? "--secret" : "--plaintext", `${key}=${value}`]);
    if (args.length) await this.pulumi(["config", "set-all", ...args]);
  }

  read(file: string): string {
    return fs.readFileSync(path.join(this.dir, file), "utf8");
  }

  write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(this.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(this.dir, file), text);
  }

  /** The state as `pulumi stack export` gives it. */
  async exportStack(showSecrets = false): Promise<{ text: string; deployment: { resources?: { urn: string; type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; protect?: boolean }[] } }> {
    const { stdout } = await this.pulumi(["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])]);
    return { text: stdout, ...(JSON.parse(stdout) as { deployment: never }) };
  }
}

/** A step of a run as the CLI's JSON tells it: its operation, the resource's type and name, and the properties its diff names. */
export interface CliStep {
  op: string;
  urn: string;
  type: string;
  name: string;
  /** The properties that force a replacement (`keys` of the engine's step, `replaceReasons` of a preview's). */
  replaces?: string[];
  /** Property → kind (`update`, `add-replace`, ...), when the provider answered a detailed diff. */
  detailedDiff?: Record<string, string>;
  /** The properties the diff named (what the CLI shows as `[diff: ~policy]`). */
  diffs?: string[];
}

/** Steps of the program's own resources: not the stack, not providers. */
const ownStep = (type: string) => type !== "pulumi:pulumi:Stack" && !type.startsWith("pulumi:providers:");

/** A step as the engine's events (`detailedDiff` kinds as `diffKind`, replacing keys as `keys`) or a preview's document tell it. */
type StepMetadata = { op: string; urn: string; type: string; detailedDiff?: Record<string, { kind?: string; diffKind?: string }> | null; diffs?: string[] | null; keys?: string[] | null };

function stepOf(metadata: StepMetadata): CliStep {
  const step: CliStep = { op: metadata.op, urn: metadata.urn, type: metadata.type, name: metadata.urn.split("::").pop()! };
  if (metadata.detailedDiff) step.detailedDiff = Object.fromEntries(Object.entries(metadata.detailedDiff).map(([k, v]) => [k, (v.kind ?? v.diffKind)!]));
  if (metadata.diffs?.length) step.diffs = metadata.diffs;
  if (metadata.keys?.length) step.replaces = metadata.keys;
  return step;
}

/** The stack's outputs as `up --json` reported them (a secret one as "[secret]"). */
export function stackOutputsOf(ran: Ran): Record<string, unknown> {
  for (const event of eventsOf(ran) as { resOutputsEvent?: { metadata: { type: string; new?: { outputs?: Record<string, unknown> } } } }[]) {
    const metadata = event.resOutputsEvent?.metadata;
    if (metadata?.type === "pulumi:pulumi:Stack") return metadata.new?.outputs ?? {};
  }
  return {};
}

/** Counts of steps by operation. */
export function countSteps(steps: readonly Pick<CliStep, "op">[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of steps) counts[s.op] = (counts[s.op] ?? 0) + 1;
  return counts;
}

/**
 * What `pulumi preview --json` plans: the steps that change something (the CLI leaves unchanged
 * resources out of its list), and `changes`, their counts; `{}` when nothing changes.
 */
export function planOf(ran: Ran): { steps: CliStep[]; changes: Record<string, number> } {
  const steps = plannedStepsOf(ran).filter((s) => s.op !== "same");
  return { steps, changes: countSteps(steps) };
}

/** Every step `pulumi preview --json` plans for the program's own resources, unchanged ones included. */
export function plannedStepsOf(ran: Ran): CliStep[] {
  const plan = JSON.parse(ran.stdout) as {
    steps?: { op: string; urn: string; newState?: { type: string }; oldState?: { type: string }; detailedDiff?: Record<string, { kind: string }> | null; diffReasons?: string[]; replaceReasons?: string[] }[];
  };
  return (plan.steps ?? [])
    .map((s) => stepOf({ op: s.op, urn: s.urn, type: s.newState?.type ?? s.oldState?.type ?? s.urn.split("::")[2].split("$").pop()!, detailedDiff: s.detailedDiff, diffs: s.diffReasons, keys: s.replaceReasons }))
    .filter((s) => ownStep(s.type));
}

/** The engine's events of a run with `--json` (one JSON object a line); nothing for a preview's single document. */
export function eventsOf(ran: Ran): unknown[] {
  const events: unknown[] = [];
  for (const line of ran.stdout.split("\n")) {
    if (!line.startsWith("{") || !line.endsWith("}")) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // a line of a preview's pretty-printed document
    }
  }
  return events;
}

/** The steps `pulumi up|refresh|destroy --json` took (its events), the program's own resources only, unchanged ones included; a replacement is one `replace` step. */
export function stepsOf(ran: Ran): CliStep[] {
  const steps: CliStep[] = [];
  for (const event of eventsOf(ran) as { resOutputsEvent?: { metadata: Parameters<typeof stepOf>[0] } }[]) {
    const metadata = event.resOutputsEvent?.metadata;
    // A replacement's two halves are told apart from the `replace` step itself, which is what the summary counts.
    if (metadata && ownStep(metadata.type) && metadata.op !== "create-replacement" && metadata.op !== "delete-replaced") steps.push(stepOf(metadata));
  }
  return steps;
}

/**
 * The operations of the program's own resources in the order the engine started them (its
 * `resourcePreEvent`s), each of which may send requests: every step but `same`, the two halves of a
 * replacement apart (`create-replacement` with the step, `delete-replaced` when the engine deletes the
 * old object, after the run's other steps).
 */
export function operationsOf(ran: Ran): { op: string; urn: string }[] {
  const started: { op: string; urn: string }[] = [];
  for (const event of eventsOf(ran) as { resourcePreEvent?: { metadata: StepMetadata } }[]) {
    const metadata = event.resourcePreEvent?.metadata;
    if (metadata && ownStep(metadata.type) && metadata.op !== "same" && metadata.op !== "replace") started.push({ op: metadata.op, urn: metadata.urn });
  }
  return started;
}

/** What the CLI said that a user would stop at: warnings and errors, from its events and its standard error. */
export function complaintsOf(ran: Ran): string[] {
  const said: string[] = [];
  for (const event of eventsOf(ran) as { diagnosticEvent?: { severity: string; message: string } }[]) {
    const d = event.diagnosticEvent;
    if (d && (d.severity === "warning" || d.severity === "error")) said.push(`${d.severity}: ${d.message.trim()}`);
  }
  for (const line of ran.stderr.split("\n")) if (/\b(warning|error):/i.test(line)) said.push(line.trim());
  return said.map((line) => `${ran.command}: ${line}`);
}

/**
 * What `pulumi install` prints whenever it has generated an SDK from a plugin folder run by a
 * language host (any such plugin: the install closes it without the Cancel call that would mark its
 * end as expected); the install succeeds. docs/plugin.md quotes it. The command may be run through
 * another (KEEPSTACK_ENGINE_PROFILE's `time`).
 */
export const INSTALL_CLOSES_PLUGIN = /^(?:\S+ )*bash .*: error: Detected that \S+\/node_modules\/pulumi-keepstack\/plugin exited prematurely\.$/;

/** Fails, with all the run printed, when the CLI warned or failed anything (but what `allowed` matches). */
export function expectNoComplaints(...runs: (Ran | { ran: Ran; allowed: RegExp })[]): void {
  for (const entry of runs) {
    const { ran, allowed } = "ran" in entry ? entry : { ran: entry, allowed: undefined };
    const said = complaintsOf(ran).filter((line) => !allowed?.test(line));
    if (said.length) throw new Error(`${ran.command} said:\n${said.join("\n")}\n\nall it printed:\n${ran.output}`);
  }
}
