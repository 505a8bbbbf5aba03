/**
 * The harness at scale: a program like a platform team's, N resources run through the harness
 * against the local emulator (a test double): ACL policies and key-value secrets with secret data
 * (nine in ten), and RGP and EGP policies, transform alphabets, workspaces and mesh partitions, each
 * declared from its spec's example. One process runs its whole life: preview, up, a second preview,
 * refresh, destroy. Each N runs in a process of its own (its heap limit sized to N, `heapLimitMB`),
 * so its peak resident memory is the program's (the provider host and the emulator are other
 * processes); each phase's time is compared with the smallest N's.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { startEmulator } from "keepstack-emulator";

/** The phases of the program's life, in order. */
export const SCALE_PHASES = ["preview", "up", "previewAgain", "refresh", "destroy"] as const;
export type ScalePhase = (typeof SCALE_PHASES)[number];

export interface ScaleRun {
  resources: number;
  /** Seconds of each phase. */
  seconds: Record<ScalePhase, number>;
  /** Peak resident memory of the program's process (the harness, the SDK's runtime, the program). */
  peakRssMB: number;
}

export interface ScaleBenchResult {
  /** The Node.js the programs ran on: V8's collector, and so the peak, differs between versions. */
  node: string;
  runs: ScaleRun[];
  /** Each run's phase times over the first run's, beside the ratio of their sizes. */
  ratios: { resources: number; sizeRatio: number; phases: Record<ScalePhase, number> }[];
}

const exampleDir = path.join(__dirname, "..", "..", "examples", "quickstart");

/** Of every 20 resources: 9 ACL policies, 9 key-value secrets, then one of each other kind in turn. */
const MIX = ["keep.RgpPolicy", "keep.EgpPolicy", "keep.transform.Alphabet", "workspaces.Workspace", "mesh.Partition"] as const;

/** Seconds `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** The child: runs the program of `count` resources against the services its settings name. */
async function runProgram(count: number, config: Record<string, string>): Promise<ScaleRun> {
  const { Engine } = await import("../harness/engine");
  const pulumi = await import("@pulumi/pulumi");
  const pkg = await import("../index");
  const { specsByClass } = await import("../resources/all-specs");
  /** The class at an export path (`keep.kv.Secret`) and its spec's n-th example. */
  const declare = (classPath: keyof typeof specsByClass, name: string, n: number, wrap = (inputs: Record<string, unknown>) => inputs) => {
    const Class = classPath.split(".").reduce<any>((ns, key) => ns[key], pkg); // eslint-disable-line @typescript-eslint/no-explicit-any
    new Class(name, wrap(specsByClass[classPath].example!.inputs(n) as Record<string, unknown>));
  };
  const engine = new Engine({ project: "keepstack-scale", cwd: exampleDir, config, secretConfig: ["keep:token", "workspaces:token", "mesh:token"] });
  const program = () => {
    for (let i = 0; i < count; i++) {
      const slot = i % 20;
      if (slot < 9) declare("keep.AclPolicy", `acl-${i}`, i);
      else if (slot < 18) declare("keep.kv.Secret", `kv-${i}`, i, (inputs) => ({ ...inputs, data: pulumi.secret(inputs.data) }));
      else {
        // The two other resources of each twenty, numbered on: the kinds of MIX in turn.
        const classPath = MIX[(Math.floor(i / 20) * 2 + slot - 18) % MIX.length];
        declare(classPath, `${classPath}-${i}`, i);
      }
    }
  };
  const seconds = {} as Record<ScalePhase, number>;
  try {
    seconds.preview = await timed(() => engine.preview(program));
    seconds.up = await timed(() => engine.up(program));
    seconds.previewAgain = await timed(() => engine.preview(program));
    seconds.refresh = await timed(() => engine.refresh());
    seconds.destroy = await timed(() => engine.destroy());
    return { resources: count, seconds, peakRssMB: process.resourceUsage().maxRSS / 1024 };
  } finally {
    await engine.close();
  }
}

/**
 * The program process's heap limit, sized to the program: left at V8's default (a quarter of the
 * machine's memory, 4 GB at most), V8 puts off collecting while the heap is far below it, and a
 * 5,000-resource run's heap held 900 MB of which most was garbage. With this limit V8 collects
 * sooner; the phases take no longer.
 */
export const heapLimitMB = (count: number): number => 256 + Math.ceil((count * 128) / 1024);

function runChild(count: number, config: Record<string, string>): Promise<ScaleRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${heapLimitMB(count)}`, __filename, String(count)], {
      env: { ...process.env, KEEPSTACK_SCALE_CONFIG: JSON.stringify(config) },
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
  const emu = await startEmulator();
  const config = {
    "keep:address": emu.keep.url,
    "keep:token": emu.keep.rootToken,
    "workspaces:address": emu.workspaces.url,
    "workspaces:token": emu.workspaces.tokens.user,
    "workspaces:organization": emu.workspaces.organization,
    "mesh:address": emu.mesh.url,
    "mesh:token": emu.mesh.rootToken,
  };
  const runs: ScaleRun[] = [];
  try {
    for (const count of options.counts) runs.push(await runChild(count, config));
  } finally {
    await emu.close();
  }
  const [first] = runs;
  const ratios = runs.slice(1).map((r) => ({
    resources: r.resources,
    sizeRatio: r.resources / first.resources,
    phases: Object.fromEntries(SCALE_PHASES.map((p) => [p, r.seconds[p] / first.seconds[p]])) as Record<ScalePhase, number>,
  }));
  return { node: process.version, runs, ratios };
}

export function describeScaleBench(result: ScaleBenchResult): string[] {
  const lines = [`scale: Node.js ${result.node}`];
  lines.push(...result.runs.map(
    (r) =>
      `scale ${String(r.resources).padStart(6)} resources: peak RSS ${r.peakRssMB.toFixed(0)} MB (target <= 1000 at 5,000; heap limit ${heapLimitMB(r.resources)} MB); ` +
      SCALE_PHASES.map((p) => `${p} ${r.seconds[p].toFixed(1)} s`).join(", "),
  ));
  for (const q of result.ratios) {
    lines.push(
      `scale ${q.resources} over ${result.runs[0].resources} (${q.sizeRatio}× the resources): ` +
        SCALE_PHASES.map((p) => `${p} ${q.phases[p].toFixed(2)}×`).join(", ") +
        " (target <= 5.5 at 5×)",
    );
  }
  return lines;
}

if (require.main === module) {
  runProgram(Number(process.argv[2]), JSON.parse(process.env.KEEPSTACK_SCALE_CONFIG ?? "{}"))
    .then((run) => {
      console.log(JSON.stringify(run));
      process.exit(0);
    })
    .catch((e: unknown) => {
      console.error(e instanceof Error ? e.stack : e);
      process.exit(1);
    });
}
