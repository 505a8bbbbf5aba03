/**
 * Transform-engine figures against the local emulator (a test double):
 * - encoding N values through `keep.transform.encode` as one batch (split into requests of at most
 *   1000 values, 4 in flight) against one request per value (16 in flight): requests made and the
 *   time ratio;
 * - HTTP requests per operation (preview, create, update, refresh, delete) of each transform resource,
 *   through the real provider host (StoreSchema needs a reachable database, so it is left out; like
 *   EncodedValue, an operation sends one request per run).
 */
import { startKeepEmulator, KeepEmulator } from "keepstack-emulator";
import { Engine } from "../harness/engine";
import { createContext } from "../provider/context";
import { keep } from "../index";

export interface TransformBenchOptions {
  /** Values encoded by each path (the caller's default is 100000). */
  values: number;
  /** Requests in flight for the one-request-per-value path. */
  parallel?: number;
}

export interface TransformBenchResult {
  values: number;
  batched: { requests: number; seconds: number };
  perValue: { requests: number; seconds: number; parallel: number };
  /** perValue seconds divided by batched seconds. */
  speedup: number;
  /** Requests per operation of each resource. */
  requests: Record<string, Record<string, number>>;
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function post(emu: KeepEmulator, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${emu.url}/v1/${path}`, { method: "POST", headers: { "X-Keep-Token": emu.rootToken }, body: JSON.stringify(body) });
  if (response.status >= 400) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

async function measureEncoding(emu: KeepEmulator, count: number, parallel: number) {
  await post(emu, "transform/transformations/fpe/cards", { template: "builtin/creditcardnumber", tweak_source: "internal", allowed_roles: ["bench"] });
  await post(emu, "transform/role/bench", { transformations: ["cards"] });
  const config: Record<string, string> = { "keep:address": emu.url, "keep:token": emu.rootToken };
  const ctx = createContext((key) => config[key]);
  const values = Array.from({ length: count }, (_, i) => `4${String(i).padStart(15, "0")}`);

  emu.log.clear();
  let start = process.hrtime.bigint();
  const batch = await keep.transform.encode({ role: "bench", batchInput: values.map((value) => ({ value })) }, ctx);
  const batched = { requests: emu.log.count, seconds: seconds(start) };
  if (batch.batchResults.length !== count) throw new Error("batched encode lost values");

  emu.log.clear();
  start = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < values.length) await keep.transform.encode({ role: "bench", value: values[next++] }, ctx);
    }),
  );
  const perValue = { requests: emu.log.count, seconds: seconds(start), parallel };
  emu.log.clear();
  return { batched, perValue };
}

/** One resource declared in two versions (create, then update), with what it needs made beforehand. */
interface Subject {
  name: string;
  setup?(emu: KeepEmulator): Promise<void>;
  declare(version: 1 | 2): void;
}

const SUBJECTS: Subject[] = [
  { name: "Alphabet", declare: (v) => void new keep.transform.Alphabet("a", { name: "a", alphabet: v === 1 ? "0123456789" : "0123456789ab" }) },
  {
    name: "Template",
    declare: (v) => void new keep.transform.Template("t", { name: "t", pattern: "(\\d{4})-(\\d{4})", alphabet: "builtin/numeric", encodeFormat: v === 1 ? "" : "$1$2" }),
  },
  {
    name: "Transformation",
    declare: (v) => void new keep.transform.Transformation("x", { name: "x", type: "fpe", template: "builtin/creditcardnumber", allowedRoles: v === 1 ? ["a"] : ["a", "b"] }),
  },
  { name: "Role", declare: (v) => void new keep.transform.Role("r", { name: "r", transformations: v === 1 ? ["cards"] : ["cards", "x"] }) },
  {
    name: "Store",
    declare: (v) =>
      void new keep.transform.Store("s", { name: "s", driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@127.0.0.1:1/db", username: "u", password: v === 1 ? "p1" : "p2" }),
  },
  {
    name: "EncodedValue",
    declare: (v) => void new keep.transform.EncodedValue("e", { role: "bench", transformation: "cards", value: v === 1 ? "4111111111111111" : "5500000000000004" }),
  },
];

async function measureResourceRequests(emu: KeepEmulator): Promise<Record<string, Record<string, number>>> {
  const engine = new Engine({ project: "keepstack-bench", config: { "keep:address": emu.url, "keep:token": emu.rootToken }, secretConfig: ["keep:token"] });
  const figures: Record<string, Record<string, number>> = {};
  const count = async (op: () => Promise<unknown>) => {
    emu.log.clear();
    await op();
    return emu.log.count;
  };
  try {
    for (const subject of SUBJECTS) {
      await subject.setup?.(emu);
      const program = (v: 1 | 2) => () => subject.declare(v);
      figures[subject.name] = {
        preview: await count(() => engine.preview(program(1))),
        create: await count(() => engine.up(program(1))),
        update: await count(() => engine.up(program(2))),
        refresh: await count(() => engine.refresh()),
        delete: await count(() => engine.destroy()),
      };
    }
  } finally {
    await engine.close();
  }
  return figures;
}

export async function runTransformBench(options: TransformBenchOptions): Promise<TransformBenchResult> {
  const emu = await startKeepEmulator();
  try {
    const { batched, perValue } = await measureEncoding(emu, options.values, options.parallel ?? 16);
    const requests = await measureResourceRequests(emu);
    return { values: options.values, batched, perValue, speedup: perValue.seconds / batched.seconds, requests };
  } finally {
    await emu.close();
  }
}

/** Lines for the bench's printed report. */
export function describeTransformBench(r: TransformBenchResult): string[] {
  return [
    `transformEncode  ${r.values} values: batched ${r.batched.requests} requests in ${r.batched.seconds.toFixed(2)} s; one per value ${r.perValue.requests} requests in ${r.perValue.seconds.toFixed(2)} s (${r.perValue.parallel} at a time); batching ${r.speedup.toFixed(1)}x faster`,
    ...Object.entries(r.requests).map(([name, ops]) => `transform.${name.padEnd(15)} requests: ${Object.entries(ops).map(([k, v]) => `${k} ${v}`).join(", ")}`),
  ];
}
