/**
 * The differential test's machinery (ARCHITECTURE.md, "The real engine is the judge"): one program run as a session of commands (preview,
 * up, refresh, destroy) by the real CLI and by the harness, each against an emulator of its own that
 * starts as the other's did, and the two compared per URN:
 * - the step: its operation, the properties whose change forces a replacement, the detailed diff's
 *   kinds, and the changed properties the provider named (the dynamic host names none: the SDK's
 *   `diff` answers only changes, replaces and deleteBeforeReplace, so there the engine's step names
 *   none and the CLI's display works them out itself, as the harness's `diffs` does);
 * - after `up` and `refresh`, each resource's inputs and outputs in the state, secrets marked, and
 *   the stack's outputs;
 * - the requests each resource's operations sent, method and path, in order. Both engines run one
 *   operation at a time (`--parallel 1`, the harness's `parallel: 1`): the harness knows which
 *   requests each operation sent (`onOperation`); the CLI's log is cut where the engine started each
 *   resource's operations, by the harness's counts, and must then read the same.
 *
 * Values the services make afresh in each run (identifiers, times, keys, ciphertexts) differ between
 * two runs by nature: they are masked by their shape, or named by the program as generated.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Emulator } from "keepstack-emulator";
import { cloudCredentialsAccess } from "../../emulator/keep/cloud-credentials";
import { secretValue, SIG_KEY } from "../../provider/plugin/values";
import { Engine, EngineError, OperationEvent, programFile, RunResult } from "../../harness";
import { CliStep, expectNoComplaints, operationsOf, plannedStepsOf, Project, Ran, stepsOf } from "./real-engine";

export type Command = "preview" | "up" | "refresh" | "destroy";

/**
 * A command of a session, with the program's files as they are for it (written before it runs), or
 * made from the session's records so far (a program whose inputs name what an earlier run made).
 */
export interface SessionCommand {
  command: Command;
  files?: Record<string, string> | ((previous: CommandRecord[]) => Promise<Record<string, string>>);
  /** What happens on the services before the command, out of band (a change someone made by hand). */
  before?: (emu: Emulator) => void;
}

export interface StepRecord {
  op: string;
  replaces?: string[];
  detailedDiff?: Record<string, string>;
  /** The changed properties, where the provider names them (the plugin). */
  diffs?: string[];
}

export interface CommandRecord {
  command: Command;
  /** The program's own resources' steps, by URN. */
  steps: Record<string, StepRecord>;
  /** After up, and a refresh that changed something: each resource's inputs and outputs in the state, and the stack's outputs, normalized. */
  state?: Record<string, unknown>;
  /** After up: the stack's outputs as plain values (secrets revealed), for the next command's program. */
  stackOutputs?: Record<string, unknown>;
  /** Every request the services received during the command (`service METHOD url`, normalized), in order. */
  requests: string[];
  /**
   * The resources' operations in the order they ran. The harness's carry the requests each sent; the
   * CLI's are the engine's starts, whose requests are told apart from the harness's counts.
   */
  operations: { urn: string; requests?: string[] }[];
  /** What the CLI printed (the CLI's records only). */
  ran?: Ran;
}

export interface ProgramRun {
  project: Project;
  /** The emulator the run starts from, its setup done. */
  emu: Emulator;
  config: Record<string, string>;
  secrets: string[];
  /** The program's entry file, relative to the project. */
  main: string;
  /** Environment the providers see beside the stack's settings (named clusters of the plugin). */
  env?: Record<string, string>;
}

export interface Options {
  /** Requests the program's own code sends (its functions), not a resource's: compared as a whole per command. */
  programRequest?: (line: string) => boolean;
  /** Properties, by name at any depth, whose values the services make afresh: compared by presence, type and secrecy. */
  generated?: string[];
}

/**
 * Makes the emulator do at once what it otherwise does after a delay (an upload's processing, a
 * partition's deletion, the cloud's consistency for a new key) and lifts the workspace service's
 * rate limit: the requests a client sends while it waits then depend on nothing but the program, so
 * two runs of it can be compared request by request however loaded the machine is.
 */
export function withoutDelays(emu: Emulator): Emulator {
  emu.workspaces.setUploadDelay(0);
  emu.workspaces.setRateLimit(0);
  emu.mesh.setDeletionDelay(0);
  for (const cluster of Object.values(emu.clusters)) cloudCredentialsAccess(cluster.state).settings.consistencyWindowMs = 0;
  return emu;
}

/** The requests every service of an emulator receives, in the order they came, each `service METHOD url`. */
export function tapRequests(emu: Emulator): string[] {
  const lines: string[] = [];
  const services: [string, { log: { onRecord(listener: (e: { method: string; url: string }) => void): void } }][] = [
    ...Object.entries(emu.clusters).map(([name, cluster]) => [`keep/${name}`, cluster] as [string, typeof cluster]),
    ["workspaces", emu.workspaces],
    ["mesh", emu.mesh],
  ];
  for (const [label, service] of services) service.log.onRecord((e) => lines.push(`${label} ${e.method} ${e.url}`));
  return lines;
}


/**
 * A value with what two runs make differently masked: addresses of the emulator's services, UUIDs,
 * times, service identifiers (`ws-…`, `cv-…`) and opaque tokens; a secret as `{ "<secret>": value }`
 * (the CLI's export holds a secret's value as JSON text, the harness's as the value).
 */
export function normalize(value: unknown, generated: readonly string[] = [], key = ""): unknown {
  const object = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  if (object && SIG_KEY in object) return { "<secret>": normalize(secretPlain(object), generated, key) };
  if (generated.includes(key)) return value === undefined || value === null ? value : `<generated ${Array.isArray(value) ? "list" : typeof value}>`;
  if (typeof value === "string") return maskString(value);
  if (Array.isArray(value)) return value.map((v) => normalize(v, generated, key));
  if (object) return Object.fromEntries(Object.keys(object).sort().map((k) => [k, normalize(object[k], generated, k)]));
  return value;
}

/** The value of a secret, as the CLI's export writes it (`plaintext`, JSON) or as the plugin's protocol carries it (`value`). */
function secretPlain(secret: Record<string, unknown>): unknown {
  return "plaintext" in secret ? JSON.parse(String(secret.plaintext)) : secret.value;
}

/** Looks made by a machine: digits among letters, or letters of both cases. */
const opaque = (token: string) => (/\d/.test(token) && /[A-Za-z]/.test(token)) || (/[a-z]/.test(token) && /[A-Z]/.test(token));

/** A text with what two runs make differently masked (see `normalize`). */
export function maskString(text: string): string {
  // A cloud access key's ID, long-lived or temporary (the cloud engine makes them, letters and digits by chance).
  if (/^A[KS]IA[A-Z0-9]{16}$/.test(text)) return "<access key>";
  // A key, a share, a token or a ciphertext in base64, whole.
  if (/^[A-Za-z0-9+/_-]{16,}={0,2}$/.test(text) && opaque(text)) return "<opaque>";
  return (
    text
      .replace(/(https?:\/\/)?127\.0\.0\.1:\d+/g, "<loopback>")
      .replace(/\b[a-z]+_[0-9a-f]{8}\b/g, "<accessor>")
      // A reference's fingerprint (ARCHITECTURE.md, "Secrets by reference") is salted afresh.
      .replace(/^scrypt\$[^$]+\$[^$]+$/, "scrypt$<salt>$<hash>")
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>")
      .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?/g, "<time>")
      // The workspace service's identifiers: a prefix and 16 letters and digits.
      .replace(/\b([a-z]{2,4})-[A-Za-z0-9]{16}\b/g, "$1-<id>")
      .replace(/[A-Za-z0-9+_.=-]{16,}/g, (token) => (opaque(token) ? "<opaque>" : token))
  );
}

/**
 * Steps of the program's own resources, by URN; `diffs` kept only where the provider answers them
 * (the plugin). A preview's document lists no unchanged resource, so neither record does.
 */
function stepRecords(command: Command, steps: Pick<CliStep, "op" | "urn" | "type" | "replaces" | "detailedDiff" | "diffs">[]): Record<string, StepRecord> {
  const out: Record<string, StepRecord> = {};
  for (const s of steps) {
    if (s.type === "pulumi:pulumi:Stack" || s.type.startsWith("pulumi:providers:") || (command === "preview" && s.op === "same")) continue;
    const record: StepRecord = { op: s.op };
    if (s.replaces?.length) record.replaces = [...s.replaces].sort();
    if (s.detailedDiff && Object.keys(s.detailedDiff).length) record.detailedDiff = normalize(s.detailedDiff) as Record<string, string>;
    if (!s.type.startsWith("pulumi-nodejs:dynamic/") && s.diffs?.length) record.diffs = [...s.diffs].sort();
    out[s.urn] = record;
  }
  return out;
}

const pulumiArgs: Record<Command, string[]> = {
  preview: ["preview", "--json", "--parallel", "1"],
  up: ["up", "--yes", "--skip-preview", "--json", "--parallel", "1"],
  refresh: ["refresh", "--yes", "--skip-preview", "--json", "--parallel", "1"],
  destroy: ["destroy", "--yes", "--skip-preview", "--json", "--parallel", "1"],
};

async function writeFiles(dir: string, files: SessionCommand["files"], previous: CommandRecord[]): Promise<void> {
  const written = typeof files === "function" ? await files(previous) : files;
  for (const [file, text] of Object.entries(written ?? {})) fs.writeFileSync(path.join(dir, file), text);
}

/** A value of the CLI's export with its secrets revealed. */
function revealed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revealed);
  if (value && typeof value === "object") {
    const object = value as Record<string, unknown>;
    if (SIG_KEY in object) return revealed(secretPlain(object));
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, revealed(v)]));
  }
  return value;
}

/** The state as the CLI's export holds it (secrets shown), normalized: the program's resources by URN, and the stack's outputs; and those outputs plain. */
export async function cliState(project: Project, generated: readonly string[]): Promise<{ state: Record<string, unknown>; stackOutputs: Record<string, unknown> }> {
  const { deployment } = await project.exportStack(true);
  const state: Record<string, unknown> = {};
  let stackOutputs: Record<string, unknown> = {};
  for (const r of deployment.resources ?? []) {
    if (r.type === "pulumi:pulumi:Stack") {
      state["stack outputs"] = normalize(r.outputs ?? {}, generated);
      stackOutputs = revealed(r.outputs ?? {}) as Record<string, unknown>;
    } else if (!r.type.startsWith("pulumi:providers:")) state[r.urn] = { inputs: normalize(r.inputs ?? {}, generated), outputs: normalize(r.outputs ?? {}, generated) };
  }
  return { state, stackOutputs };
}

/** Whether a command's state is read for comparing: after up, and after a refresh that changed something (one that did not leaves the last up's). */
function readsState(record: Pick<CommandRecord, "command" | "steps">): boolean {
  return record.command === "up" || (record.command === "refresh" && Object.values(record.steps).some((s) => s.op !== "same"));
}

/** A session through the real CLI: the stack is made and configured first; `afterCommand` sees each record as it is made (and the services then). */
export async function cliSession(run: ProgramRun, commands: SessionCommand[], options: Options = {}, afterCommand?: (record: CommandRecord) => void | Promise<void>): Promise<CommandRecord[]> {
  const { project, emu } = run;
  const requests = tapRequests(emu);
  await project.stack("dev", run.config, run.secrets);
  const records: CommandRecord[] = [];
  for (const { command, files, before } of commands) {
    await writeFiles(project.dir, files, records);
    before?.(emu);
    const from = requests.length;
    // The file backend's checkpoints after each step cost CPU and change nothing a session compares.
    const ran = await project.pulumi(pulumiArgs[command], { env: { PULUMI_SKIP_CHECKPOINTS: "true", ...run.env } });
    const record: CommandRecord = {
      command,
      steps: stepRecords(command, command === "preview" ? plannedStepsOf(ran) : stepsOf(ran)),
      requests: requests.slice(from).map(maskString),
      operations: command === "preview" ? [] : operationsOf(ran),
      ran,
    };
    if (readsState(record)) {
      const { state, stackOutputs } = await cliState(project, options.generated ?? []);
      record.state = state;
      if (command === "up") record.stackOutputs = stackOutputs;
    }
    records.push(record);
    await afterCommand?.(record);
  }
  expectNoComplaints(...records.map((r) => r.ran!));
  return records;
}

/** The state the harness holds, as `cliState` reads the CLI's. */
function harnessState(engine: Engine, outputs: Record<string, unknown> | undefined, generated: readonly string[]): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const r of engine.exportState() as { urn: string; type: string; inputs: unknown; outputs: unknown; pendingDelete?: boolean; external?: boolean }[]) {
    if (r.type.startsWith("pulumi:providers:")) continue;
    state[r.urn] = { inputs: normalize(r.inputs, generated), outputs: normalize(r.outputs, generated) };
  }
  if (outputs) state["stack outputs"] = normalize(outputs, generated);
  return state;
}

/**
 * The same session through the harness, from the same project folder (the program's files written as
 * for the CLI), against `run.emu`. A command the harness cannot run fails the session with its step and reason.
 */
export async function harnessSession(run: ProgramRun, commands: SessionCommand[], options: Options = {}): Promise<CommandRecord[]> {
  const requests = tapRequests(run.emu);
  let operations: { urn: string; requests: string[] }[] = [];
  let started = 0;
  const onOperation = (event: OperationEvent) => {
    if (event.phase === "start") started = requests.length;
    else operations.push({ urn: event.urn, requests: requests.slice(started).map(maskString) });
  };
  const project = /^name:\s*(\S+)/m.exec(run.project.read("Pulumi.yaml"))![1];
  const engine = new Engine({ project, stack: "dev", cwd: run.project.dir, config: run.config, secretConfig: run.secrets, env: run.env, parallel: 1, onOperation });
  const records: CommandRecord[] = [];
  let stackOutputs: Record<string, unknown> | undefined;
  try {
    for (const { command, files, before } of commands) {
      await writeFiles(run.project.dir, files, records);
      before?.(run.emu);
      // jest keeps a module it has loaded (a program of top-level statements would declare nothing
      // the second time): each command loads the program from a copy of its own.
      const copy = path.join(run.project.dir, `.harness-${records.length}-${path.basename(run.main)}`);
      fs.copyFileSync(path.join(run.project.dir, run.main), copy);
      const program = programFile(copy);
      const from = requests.length;
      operations = [];
      let result: RunResult;
      try {
        result = await (command === "preview" ? engine.preview(program) : command === "up" ? engine.up(program) : command === "refresh" ? engine.refresh() : engine.destroy());
      } catch (e) {
        throw new Error(`the harness's ${command} failed: ${e instanceof EngineError ? e.errors.join("\n") : (e as Error).stack}`);
      }
      const record: CommandRecord = { command, steps: stepRecords(command, result.steps), requests: requests.slice(from).map(maskString), operations };
      // The stack's outputs are the last up's (a refresh leaves them), secret ones marked as in the CLI's state.
      if (command === "up") {
        record.stackOutputs = result.outputs;
        stackOutputs = Object.fromEntries(Object.entries(result.outputs).map(([k, v]) => [k, result.secretOutputs?.includes(k) ? secretValue(v) : v]));
      }
      if (readsState(record)) record.state = harnessState(engine, stackOutputs, options.generated ?? []);
      records.push(record);
    }
  } finally {
    await engine.close();
  }
  return records;
}

export interface Comparison {
  /** Steps compared (a URN in a command). */
  steps: number;
  differences: string[];
}

const show = (value: unknown) => JSON.stringify(value ?? null);

/**
 * The CLI's requests told apart by resource: walking the engine's operations in order, each takes as
 * many requests as the harness's next operation of that resource sent. Where the two logs part, one
 * difference names the resource and both requests (the cut is lost past it).
 */
function requestDifferences(label: string, cli: CommandRecord, harness: CommandRecord, programRequest: (line: string) => boolean): string[] {
  const queues = new Map<string, string[][]>();
  for (const op of harness.operations) queues.set(op.urn, [...(queues.get(op.urn) ?? []), op.requests ?? []]);
  const expected: { urn: string; line: string }[] = [];
  for (const op of cli.operations) for (const line of queues.get(op.urn)?.shift() ?? []) if (!programRequest(line)) expected.push({ urn: op.urn, line });
  const differences: string[] = [];
  for (const [urn, left] of queues) {
    const extra = left.flat();
    if (extra.length) differences.push(`${label}: ${urn}: the harness ran ${left.length} more operation(s) than the CLI, sending ${extra.join(", ")}`);
  }
  const cliLines = cli.requests.filter((l) => !programRequest(l));
  for (let i = 0; i < Math.max(expected.length, cliLines.length); i++) {
    if (expected[i]?.line === cliLines[i]) continue;
    const urn = expected[i]?.urn ?? "after the last operation";
    differences.push(`${label}: ${urn}: request ${i + 1} of the command is ${cliLines[i] ?? "none"} through the CLI, ${expected[i]?.line ?? "none"} through the harness`);
    break;
  }
  const program = (r: CommandRecord) => r.requests.filter(programRequest).sort();
  if (show(program(cli)) !== show(program(harness))) differences.push(`${label}: the program's own requests are ${show(program(cli))} through the CLI, ${show(program(harness))} through the harness`);
  return differences;
}

/** The places where two values differ, each with both sides (a missing side is undefined). */
function leafDifferences(a: unknown, b: unknown, at = ""): [string, unknown, unknown][] {
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
  if (isObject(a) && isObject(b)) return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) => leafDifferences(a[k], b[k], at ? `${at}.${k}` : k));
  return show(a) === show(b) ? [] : [[at || "(whole)", a, b]];
}

/** Compares two sessions of one program command by command. */
export function compareSessions(name: string, cli: CommandRecord[], harness: CommandRecord[], options: Options = {}): Comparison {
  const differences: string[] = [];
  let steps = 0;
  cli.forEach((c, i) => {
    const h = harness[i];
    const label = `${name}: ${c.command} (command ${i + 1})`;
    const urns = [...new Set([...Object.keys(c.steps), ...Object.keys(h.steps)])];
    steps += urns.length;
    for (const urn of urns) {
      if (show(c.steps[urn]) !== show(h.steps[urn])) differences.push(`${label}: ${urn}: the CLI's step is ${show(c.steps[urn])}, the harness's ${show(h.steps[urn])}`);
    }
    // A refresh's state is compared where both engines found a change (else their steps say all is the same).
    if (c.state && h.state) {
      for (const key of [...new Set([...Object.keys(c.state ?? {}), ...Object.keys(h.state ?? {})])]) {
        const [a, b] = [c.state?.[key], h.state?.[key]];
        for (const [at, x, y] of leafDifferences(a, b)) differences.push(`${label}: ${key}: ${at}: through the CLI ${show(x)}, through the harness ${show(y)}`);
      }
    }
    differences.push(...requestDifferences(label, c, h, options.programRequest ?? (() => false)));
  });
  return { steps, differences };
}

/** Where each test file of the run adds its counts, for the run's closing line (see summary-reporter.js). */
export function recordComparison(program: string, comparison: Comparison): void {
  const root = process.env.KEEPSTACK_ENGINE_RUN;
  const line = `differential: ${program}: ${comparison.steps} steps compared, ${comparison.differences.length} differences`;
  console.log([line, ...comparison.differences].join("\n"));
  if (root) fs.appendFileSync(path.join(root, "differential.jsonl"), `${JSON.stringify({ program, steps: comparison.steps, differences: comparison.differences.length })}\n`);
}
