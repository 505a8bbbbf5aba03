/**
 * The bench under the real Pulumi CLI: a program of N resources of mixed types (ACL and RGP policies,
 * key-value secrets) through each door (`dynamic`: the package's classes; `plugin`: the same objects
 * by the plugin's tokens), and beside them the engine's floor (`floor`: N dynamic resources whose
 * provider does nothing). Each runs `preview`, `up`, `preview` (no change), `refresh` and `destroy`
 * against the local emulator (a test double), on a file backend with `PULUMI_SKIP_CHECKPOINTS=true`.
 *
 * Per phase: wall time of the CLI command, CPU time of the provider's process (from the kernel's
 * accounting in /proc, read every 50 ms while the command runs) and the requests the emulator
 * received. The program's whole life runs several times (`--engine-rounds`), and each phase's
 * median counts. Ratios come from the same run: each door over the floor, plugin over dynamic, and
 * the harness (the same program through harness/engine.ts) over the CLI.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { KeepEmulator } from "keepstack-emulator";
import { processCpuMs } from "../harness/provider-host";
import { timed } from "./scale";

export type BenchDoor = "dynamic" | "plugin" | "floor";
export const BENCH_DOORS: readonly BenchDoor[] = ["floor", "dynamic", "plugin"];
const PHASES = ["preview", "up", "preview again", "refresh", "destroy"] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseFigures {
  seconds: number;
  /** CPU seconds of the provider's processes during the phase (the dynamic host, or the plugin). */
  providerCpuSeconds: number;
  requests: number;
}

export interface EngineBenchRun {
  door: BenchDoor;
  resources: number;
  phases: Record<Phase, PhaseFigures>;
}

export interface HarnessBenchRun {
  resources: number;
  phases: Pick<Record<Phase, number>, "preview" | "up" | "refresh" | "destroy">;
}

export interface EngineBenchResult {
  cli: string;
  /** The Node.js of the bench, the emulator, and the programs and hosts the CLI starts (first on their PATH). */
  node: string;
  runs: EngineBenchRun[];
  harness: HarnessBenchRun[];
}

const repoRoot = path.join(__dirname, "..", "..");
const POLICY = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

/** The program of each door, in plain JavaScript (the CLI's Node.js host runs it as it is). */
const PROGRAMS: Record<BenchDoor, string> = {
  dynamic: `const { keep } = require("pulumi-keepstack");
const n = Number(process.env.KEEPSTACK_BENCH_RESOURCES);
for (let i = 0; i < n; i++) {
  if (i % 3 === 0) new keep.AclPolicy("acl-" + i, { name: "bench-acl-" + i, policy: ${JSON.stringify(POLICY)} });
  else if (i % 3 === 1) new keep.RgpPolicy("rgp-" + i, { name: "bench-rgp-" + i, enforcementLevel: "advisory", policy: "main = rule { true }" });
  else new keep.kv.Secret("kv-" + i, { path: "bench/" + i, data: { user: "app", n: String(i) } });
}
`,
  plugin: `const pulumi = require("@pulumi/pulumi");
const n = Number(process.env.KEEPSTACK_BENCH_RESOURCES);
const declare = (token, name, args) => new pulumi.CustomResource(token, name, args);
for (let i = 0; i < n; i++) {
  if (i % 3 === 0) declare("keepstack:keep:AclPolicy", "acl-" + i, { name: "bench-acl-" + i, policy: ${JSON.stringify(POLICY)} });
  else if (i % 3 === 1) declare("keepstack:keep:RgpPolicy", "rgp-" + i, { name: "bench-rgp-" + i, enforcementLevel: "advisory", policy: "main = rule { true }" });
  else declare("keepstack:keep:KvSecret", "kv-" + i, { path: "bench/" + i, data: { user: "app", n: String(i) } });
}
`,
  floor: `const pulumi = require("@pulumi/pulumi");
const n = Number(process.env.KEEPSTACK_BENCH_RESOURCES);
// A provider that does nothing: what the engine and the dynamic host cost by themselves.
const provider = {
  async create(inputs) { return { id: inputs.name, outs: inputs }; },
  async read(id, props) { return { id, props }; },
  async delete() {},
};
for (let i = 0; i < n; i++) new pulumi.dynamic.Resource(provider, "floor-" + i, { name: "floor-" + i, policy: ${JSON.stringify(POLICY)} });
`,
};

/** Which processes are the door's provider, by their command line. */
const PROVIDER_PROCESS: Record<BenchDoor, RegExp> = {
  dynamic: /dynamic-provider/,
  floor: /dynamic-provider/,
  plugin: /pulumi-resource-keepstack|cli\/plugin\.js/,
};

/** Polls /proc while `work` runs: the CPU seconds of the processes whose command line matches. */
async function providerCpuDuring(pattern: RegExp, work: () => Promise<unknown>): Promise<number> {
  const seen = new Map<string, number>();
  const poll = () => {
    let pids: string[] = [];
    try {
      pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p));
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (pattern.test(cmdline)) seen.set(pid, processCpuMs(pid) / 1000);
      } catch {
        // gone between the listing and the read
      }
    }
  };
  const timer = setInterval(poll, 50);
  try {
    await work();
    poll();
    return [...seen.values()].reduce((a, b) => a + b, 0);
  } finally {
    clearInterval(timer);
  }
}

function runCli(cli: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, [...args, "--non-interactive"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d));
    child.stderr.on("data", (d: Buffer) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`pulumi ${args.join(" ")} failed with ${code}:\n${output.slice(-4000)}`))));
  });
}

/** A project of `door`'s program, the checkout linked in as its pulumi-keepstack (run `npm run build` first). */
function makeProject(root: string, door: BenchDoor): string {
  const dir = path.join(root, door);
  fs.mkdirSync(path.join(dir, "node_modules", "@pulumi"), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, "node_modules", "@pulumi", "pulumi"), path.join(dir, "node_modules", "@pulumi", "pulumi"));
  fs.symlinkSync(repoRoot, path.join(dir, "node_modules", "pulumi-keepstack"));
  const plugin = door === "plugin" ? `plugins:\n  providers:\n    - name: keepstack\n      path: ${path.join(repoRoot, "plugin")}\n` : "";
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: keepstack-bench-${door}\nruntime: nodejs\nmain: index.js\n${plugin}`);
  fs.writeFileSync(path.join(dir, "index.js"), PROGRAMS[door]);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `keepstack-bench-${door}`, private: true }));
  return dir;
}

/** The CLI's environment for a project: its own home and file backend, no checkpoints, nothing fetched. */
function projectEnv(dir: string, resources: number): NodeJS.ProcessEnv {
  fs.mkdirSync(path.join(dir, ".state"), { recursive: true });
  return {
    ...process.env,
    PATH: [path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(dir, ".pulumi-home"),
    PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
    PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_SKIP_CHECKPOINTS: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    KEEPSTACK_BENCH_RESOURCES: String(resources),
  };
}

/** A stack with the door's settings for the emulator. */
async function prepareStack(cli: string, dir: string, env: NodeJS.ProcessEnv, door: BenchDoor, emu: KeepEmulator): Promise<void> {
  await runCli(cli, ["stack", "init", "bench"], dir, env);
  const settings = door === "plugin" ? [`keepstack:keepAddress=${emu.url}`, "--secret", `keepstack:keepToken=${emu.rootToken}`] : [`keep:address=${emu.url}`, "--secret", `keep:token=${emu.rootToken}`];
  await runCli(cli, ["config", "set-all", "--plaintext", ...settings], dir, env);
}

const COMMANDS: Record<Phase, string[]> = {
  preview: ["preview"],
  up: ["up", "--yes", "--skip-preview"],
  "preview again": ["preview", "--expect-no-changes"],
  refresh: ["refresh", "--yes", "--skip-preview"],
  destroy: ["destroy", "--yes", "--skip-preview"],
};

function median(samples: PhaseFigures[]): PhaseFigures {
  return [...samples].sort((a, b) => a.seconds - b.seconds)[Math.floor(samples.length / 2)];
}

export async function runEngineBench(options: { counts: number[]; rounds: number; cli: string; emu: KeepEmulator; log?: (line: string) => void }): Promise<EngineBenchResult> {
  const { cli, emu } = options;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-engine-bench-"));
  const runs: EngineBenchRun[] = [];
  const harness: HarnessBenchRun[] = [];
  try {
    // Unmeasured first: a small preview of each door, so no door pays for the caches the others then use
    // (Node.js's compile cache, the CLI's plugin lookups).
    for (const door of BENCH_DOORS) {
      const dir = makeProject(path.join(root, "warm-up"), door);
      const env = projectEnv(dir, 3);
      await prepareStack(cli, dir, env, door, emu);
      await runCli(cli, ["preview"], dir, env);
    }
    for (const resources of options.counts) {
      const projects = new Map<BenchDoor, { dir: string; env: NodeJS.ProcessEnv; samples: Partial<Record<Phase, PhaseFigures[]>> }>();
      for (const door of BENCH_DOORS) {
        const dir = makeProject(path.join(root, String(resources)), door);
        const env = projectEnv(dir, resources);
        await prepareStack(cli, dir, env, door, emu);
        projects.set(door, { dir, env, samples: {} });
      }
      // The whole life (preview to destroy) `rounds` times, and in each phase the doors one after another
      // in a turning order: each ratio compares runs a minute apart at most, and the median of each
      // phase counts, since one sample of a few seconds moves with the machine.
      for (let round = 0; round < options.rounds; round++) {
        for (const phase of PHASES) {
          for (let i = 0; i < BENCH_DOORS.length; i++) {
            const door = BENCH_DOORS[(i + round) % BENCH_DOORS.length];
            const project = projects.get(door)!;
            const before = emu.log.count;
            let providerCpuSeconds = 0;
            const seconds = await timed(async () => {
              providerCpuSeconds = await providerCpuDuring(PROVIDER_PROCESS[door], () => runCli(cli, COMMANDS[phase], project.dir, project.env));
            });
            (project.samples[phase] ??= []).push({ seconds, providerCpuSeconds, requests: emu.log.count - before });
            options.log?.(`engine ${door} ${resources} (round ${round + 1}): ${phase} ${seconds.toFixed(1)} s`);
          }
        }
      }
      for (const door of BENCH_DOORS) {
        const { samples } = projects.get(door)!;
        runs.push({ door, resources, phases: Object.fromEntries(PHASES.map((p) => [p, median(samples[p]!)])) as Record<Phase, PhaseFigures> });
      }
      harness.push(await runHarness(resources, emu, path.join(root, String(resources), "dynamic")));
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { cli, node: process.version, runs, harness };
}

/** The dynamic door's program, the same file, through the harness: the harness-to-CLI ratio. */
async function runHarness(resources: number, emu: KeepEmulator, dynamicProject: string): Promise<HarnessBenchRun> {
  const { Engine } = await import("../harness/engine");
  const { programFile } = await import("../harness/program-file");
  const engine = new Engine({
    project: "keepstack-bench-harness",
    cwd: dynamicProject,
    config: { "keep:address": emu.url, "keep:token": emu.rootToken },
    secretConfig: ["keep:token"],
  });
  const program = programFile(path.join(dynamicProject, "index.js"));
  process.env.KEEPSTACK_BENCH_RESOURCES = String(resources);
  try {
    const preview = await timed(() => engine.preview(program));
    const up = await timed(() => engine.up(program));
    const refresh = await timed(() => engine.refresh());
    const destroy = await timed(() => engine.destroy());
    return { resources, phases: { preview, up, refresh, destroy } };
  } finally {
    delete process.env.KEEPSTACK_BENCH_RESOURCES;
    await engine.close();
  }
}

export function describeEngineBench(result: EngineBenchResult): string[] {
  const lines: string[] = [`engine: ${result.cli}, Node.js ${result.node}`];
  const find = (door: BenchDoor, resources: number) => result.runs.find((r) => r.door === door && r.resources === resources)!;
  for (const run of result.runs) {
    const cells = PHASES.map((p) => `${p} ${run.phases[p].seconds.toFixed(1)} s (provider CPU ${run.phases[p].providerCpuSeconds.toFixed(1)} s, ${run.phases[p].requests} requests)`);
    lines.push(`engine ${run.door.padEnd(7)} ${String(run.resources).padStart(5)} resources: ${cells.join("; ")}`);
  }
  for (const resources of [...new Set(result.runs.map((r) => r.resources))]) {
    const floor = find("floor", resources);
    for (const door of ["dynamic", "plugin"] as const) {
      const run = find(door, resources);
      lines.push(`engine ${door} over floor at ${resources}: ${PHASES.map((p) => `${p} ${(run.phases[p].seconds / floor.phases[p].seconds).toFixed(2)}x`).join(", ")} (goal: each within 1.1x at 1,000)`);
    }
    const dynamic = find("dynamic", resources);
    const plugin = find("plugin", resources);
    lines.push(`engine plugin over dynamic at ${resources}: ${PHASES.map((p) => `${p} ${(plugin.phases[p].seconds / dynamic.phases[p].seconds).toFixed(2)}x`).join(", ")}`);
    const harness = result.harness.find((h) => h.resources === resources);
    if (harness) {
      const phases = ["preview", "up", "refresh", "destroy"] as const;
      lines.push(`harness over CLI (dynamic door) at ${resources}: ${phases.map((p) => `${p} ${(harness.phases[p] / dynamic.phases[p].seconds).toFixed(2)}x`).join(", ")}`);
    }
  }
  return lines;
}
