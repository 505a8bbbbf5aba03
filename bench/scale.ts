/**
 * The harness at scale: a program of N resources (policies and key-value secrets, half each) run
 * through the harness against the local emulator (a test double): up, refresh, destroy. Each N runs
 * in a process of its own, so its peak resident memory is the program's (the provider host and the
 * emulator are other processes); the times of refresh and destroy are compared with the smallest N's.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { startKeepEmulator } from "keepstack-emulator";

export interface ScaleRun {
  resources: number;
  upSeconds: number;
  refreshSeconds: number;
  destroySeconds: number;
  /** Peak resident memory of the program's process (the harness, the SDK's runtime, the program). */
  peakRssMB: number;
}

export interface ScaleBenchResult {
  /** The Node.js the programs ran on: V8's collector, and so the peak, differs between versions. */
  node: string;
  runs: ScaleRun[];
  /** Each run's refresh and destroy time over the first run's, beside the ratio of their sizes. */
  ratios: { resources: number; sizeRatio: number; refresh: number; destroy: number; up: number }[];
}

const exampleDir = path.join(__dirname, "..", "..", "examples", "quickstart");
const POLICY = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

/** Seconds `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** The child: runs the program of `count` resources against the emulator its environment names. */
async function runProgram(count: number, address: string, token: string): Promise<ScaleRun> {
  const { Engine } = await import("../harness/engine");
  const { keep } = await import("../index");
  const engine = new Engine({
    project: "keepstack-scale",
    cwd: exampleDir,
    config: { "keep:address": address, "keep:token": token },
    secretConfig: ["keep:token"],
  });
  const program = () => {
    for (let i = 0; i < count; i++) {
      if (i % 2 === 0) new keep.AclPolicy(`policy-${i}`, { name: `scale-${i}`, policy: POLICY });
      else new keep.kv.Secret(`secret-${i}`, { path: `scale/${i}`, data: { user: "app", n: String(i) } });
    }
  };
  try {
    const upSeconds = await timed(() => engine.up(program));
    const refreshSeconds = await timed(() => engine.refresh());
    const destroySeconds = await timed(() => engine.destroy());
    return { resources: count, upSeconds, refreshSeconds, destroySeconds, peakRssMB: process.resourceUsage().maxRSS / 1024 };
  } finally {
    await engine.close();
  }
}

function runChild(count: number, address: string, token: string): Promise<ScaleRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [__filename, String(count)], {
      env: { ...process.env, KEEPSTACK_SCALE_ADDRESS: address, KEEPSTACK_SCALE_TOKEN: token },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`the scale run of ${count} resources exited with ${code}`));
      resolve(JSON.parse(out.trim().split("\n").pop() ?? "{}") as ScaleRun);
    });
  });
}

export async function runScaleBench(options: { counts: number[] }): Promise<ScaleBenchResult> {
  // The emulator runs in this process, each program in a child: a child's peak is the program's alone.
  const emu = await startKeepEmulator();
  const runs: ScaleRun[] = [];
  try {
    for (const count of options.counts) runs.push(await runChild(count, emu.url, emu.rootToken));
  } finally {
    await emu.close();
  }
  const [first] = runs;
  const ratios = runs.slice(1).map((r) => ({
    resources: r.resources,
    sizeRatio: r.resources / first.resources,
    up: r.upSeconds / first.upSeconds,
    refresh: r.refreshSeconds / first.refreshSeconds,
    destroy: r.destroySeconds / first.destroySeconds,
  }));
  return { node: process.version, runs, ratios };
}

export function describeScaleBench(result: ScaleBenchResult): string[] {
  const lines = [`scale: Node.js ${result.node}`];
  lines.push(...result.runs.map(
    (r) =>
      `scale ${String(r.resources).padStart(6)} resources: peak RSS ${r.peakRssMB.toFixed(0)} MB (target <= 1000 at 5,000); ` +
      `up ${r.upSeconds.toFixed(1)} s, refresh ${r.refreshSeconds.toFixed(1)} s, destroy ${r.destroySeconds.toFixed(1)} s`,
  ));
  for (const q of result.ratios) {
    lines.push(
      `scale ${q.resources} over ${result.runs[0].resources} (${q.sizeRatio}× the resources): up ${q.up.toFixed(2)}×, refresh ${q.refresh.toFixed(2)}×, destroy ${q.destroy.toFixed(2)}× (target <= 5.5 at 5×)`,
    );
  }
  return lines;
}

if (require.main === module) {
  runProgram(Number(process.argv[2]), process.env.KEEPSTACK_SCALE_ADDRESS ?? "", process.env.KEEPSTACK_SCALE_TOKEN ?? "")
    .then((run) => {
      console.log(JSON.stringify(run));
      process.exit(0);
    })
    .catch((e: unknown) => {
      console.error(e instanceof Error ? e.stack : e);
      process.exit(1);
    });
}
