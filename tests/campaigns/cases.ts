/**
 * One lifecycle case of a registered resource on a lane: its prerequisites, the step under test
 * (create, update, replacement, refresh, delete or adoption), optionally with one fault injected into the k-th
 * request of that step, at most one re-run, then the checks that state and services agree, and a
 * destroy that must leave nothing of the case behind. The fault matrix and the check fuzz share it.
 */
import { ADVICE_BY_STATUS, adviceFor } from "../../provider/advice";
import { ApiError } from "../../provider/errors";
import { canonical } from "../../provider/object-machine";
import { machineOf } from "../../provider/machine";
import { AnySpec, isOperationSpec, ResourceSpec, shortTypeOf, tokenOf } from "../../provider/spec";
import type { RequestRecord } from "../../emulator/common";
import { registeredResources } from "../../resources/all-specs";
import { EngineError, Engine, Program, RunResult, Step } from "../../harness";
import { clustersOutOfReplication, serviceSampleOf, serviceSamples, ServiceSample, SampleInputs } from "../support/samples";
import { pluginToken } from "../support/plugin-sdk";
import { declare, DeclaredProgram } from "../support/declared-program";
import type { Lane } from "./services";

/**
 * The steps of a case. `import` (an object read by its ID alone, then the program the CLI would write
 * from the answer) and `drift` (the object changed on the service by someone else, then refreshed
 * and converged back) are the plugin door's: a dynamic resource cannot be imported.
 */
export type StepName = "create" | "update" | "replace" | "refresh" | "delete" | "adoption" | "import" | "drift" | "takeover";

/** Which door of the machines a case goes through: the dynamic resources' host, or the provider plugin. */
export type Door = "dynamic" | "plugin";

export interface Entry {
  /** Export path of the class (`keep.sync.Association`). */
  path: string;
  spec: AnySpec;
  /** Short type token (`keep:SyncAssociation`). */
  type: string;
  sample: ServiceSample;
}

/**
 * Every registered resource with a sample (the campaigns' "has a sample" tests fail for the others).
 * `KEEPSTACK_CAMPAIGN_TYPES` (a regular expression over short types) narrows a run to some of them.
 */
export function entries(): Entry[] {
  const only = process.env.KEEPSTACK_CAMPAIGN_TYPES ? new RegExp(`^(?:${process.env.KEEPSTACK_CAMPAIGN_TYPES})$`) : undefined;
  return registeredResources.flatMap(({ path, spec }) => {
    const type = shortTypeOf(tokenOf(spec));
    if (only && !only.test(type)) return [];
    return serviceSamples[type] ? [{ path, spec, type, sample: serviceSampleOf(type) }] : [];
  });
}

/** The short type of every registered resource. */
export const registeredTypes = (): string[] => registeredResources.map(({ spec }) => shortTypeOf(tokenOf(spec)));

/** Fails, saying where to add it, when a registered type has no sample. */
export function expectSample(type: string): void {
  serviceSampleOf(type);
}

/** The steps a resource has: operations have no adoption; no update without an in-place change, no replacement without a replacing one. */
export function stepsOf(entry: Entry): StepName[] {
  const steps: StepName[] = ["create"];
  if (entry.sample.change) steps.push("update");
  if (entry.sample.replacement) steps.push("replace");
  steps.push("refresh", "delete");
  if (!isOperationSpec(entry.spec) && adoptable(entry.spec)) steps.push("adoption");
  return steps;
}

/**
 * The plugin door's own steps of a resource: an import by ID of an object the service can show
 * (not an operation, nor a type whose spec says it cannot be imported), and a drift of an object
 * that has an in-place change.
 */
export function pluginStepsOf(entry: Entry): StepName[] {
  if (isOperationSpec(entry.spec)) return [];
  const steps: StepName[] = [];
  if (!entry.spec.notImportable && adoptable(entry.spec)) steps.push("import");
  if (entry.sample.change) steps.push("drift");
  return steps;
}

/**
 * Whether a create can meet an object of its own ID that someone else made (`takeover`, a create
 * refused by name): every object but those whose every create makes a new one.
 */
export function canMeetExisting(entry: Entry): boolean {
  return !isOperationSpec(entry.spec) && !entry.spec.alwaysNew;
}

/** The type token of a case's resource through a door. */
export const tokenThrough = (entry: Entry, door: Door): string => (door === "plugin" ? pluginToken(entry.type) : tokenOf(entry.spec));

/** An object can be adopted when the inputs name it: its natural ID determines inputs, or it has an adoption ID. */
function adoptable(spec: ResourceSpec): boolean {
  if (spec.adoptionId) return true;
  return Object.keys(spec.fromId("x")).length > 0;
}

/** A fault armed on one service: the `skip + 1`-th request matching `match` gets it. */
export interface ArmedFault {
  service: number;
  match: RegExp;
  skip: number;
  kind: FaultKind;
}

export interface FaultKind {
  name: string;
  fault: { status?: number; headers?: Record<string, string>; drop?: boolean; dropAfterHandling?: boolean; holdUntilAborted?: boolean };
  /** The service has decided: never retried, surfaced as an error naming the request. */
  final?: boolean;
  /**
   * The client must give up on the faulted request (its timeout): the case runs with a short
   * request timeout for the faulted service only; the emulator holds the request until then.
   */
  clientGivesUp?: boolean;
}

export interface Outcome {
  /** Requests each service received during the step (first run only). */
  requests: RequestRecord[][];
  /** Whether the armed fault met its request. */
  fired: boolean;
  /** Errors of the step and of its re-run. */
  errors: string[];
  rerun: boolean;
  problems: string[];
  duplicates: number;
  orphans: number;
  /** The case did not run: `accept` refused its inputs. */
  skipped?: boolean;
  /** The service refused the inputs, as `refusal` allows. */
  refused?: boolean;
  /** Objects the provider could not remove and said so (not counted in `afterStep`). */
  accounted?: number;
  /** Objects of the case on the services after the step converged, and after destroy. */
  afterStep: number;
  afterDestroy: number;
  /** The name the case gave its objects. */
  caseName?: string;
}

export interface Reference {
  afterStep: number;
  afterDestroy: number;
}

/** A request named in a message; an upload names its URL `<upload-url>` (the URL is the credential, never shown). */
const HTTP_REQUEST = /\b(GET|PUT|POST|PATCH|DELETE|HEAD) (\/\S*|<upload-url>)/;

/** Every advice the provider gives by status, for each service, as either door names the settings: an error must carry one. */
const ADVICES: string[] = (["stack", "plugin"] as const).flatMap((names) => {
  const statuses = [...Object.keys(ADVICE_BY_STATUS).map(Number), 500, 599];
  // The lanes' named cluster "dr" has its own settings, which its advice names.
  const clusters = [undefined, "dr"];
  return ["keep", "workspaces", "mesh"].flatMap((service) =>
    clusters.flatMap((cluster) => statuses.map((status) => adviceFor(new ApiError(service, "GET", "/", status, [], { cluster, names })))),
  );
});

/** What is wrong with an error message of a case: each must name the resource, the request and what to do, and hold no credential. */
export function messageProblems(message: string, entry: Entry, secrets: string[], faulted?: RequestRecord): string[] {
  const problems: string[] = [];
  // The harness puts the URN first; what the provider said follows it.
  const said = message.startsWith("urn:") ? message.slice(message.indexOf(": ") + 2) : message;
  const short = `${message.slice(0, 120)}${message.length > 120 ? "…" : ""}`;
  if (!said.includes(`${entry.type} "`)) problems.push(`message does not name the resource (${entry.type} "<id>"): ${short}`);
  if (!HTTP_REQUEST.test(said)) problems.push(`message names no request (method and path): ${short}`);
  else if (faulted && !said.includes(`${faulted.method} ${faulted.path}`) && !said.includes(`${faulted.method} <upload-url>`)) problems.push(`message does not name the refused request ${faulted.method} ${faulted.path}: ${short}`);
  // A created-but-failed object's message may say instead what the next up does about it. The advice
  // for no answer names the address tried, which the list has as the configured one.
  let advised = said.replace(/reachable at \S+ \(/g, "reachable at the configured address (");
  // The list has the named cluster "dr"'s advice: another named cluster's reads alike but for its name.
  // (Clusters other than "dr" are the real-engine tests' own, named with a digit: `d25`, `p28-dr`.)
  for (const [, cluster] of said.matchAll(/\bkeep-([a-z0-9-]+):/g)) advised = advised.split(`keep-${cluster}:`).join("keep-dr:");
  advised = advised.replace(/\bKEEP_[A-Z]*\d[A-Z0-9]*(_DR)?_/g, "KEEP_DR_");
  if (!ADVICES.some((a) => advised.includes(a)) && !/\brun up again\b/.test(said)) problems.push(`message says nothing of what to do: ${short}`);
  for (const secret of secrets) if (message.includes(secret)) problems.push(`message holds a token: ${short}`);
  return problems;
}

/** `^METHOD path$` of a request, with the segments made by a case (its name, generated IDs) left open. */
export function requestPattern(record: RequestRecord, name: string): RegExp {
  const generated = (segment: string) =>
    segment.includes(name) || /^(?=.*\d)[A-Za-z0-9_-]{16,}$/.test(segment) || /^[a-z]{2,4}-[A-Za-z0-9]{8,}$/.test(segment);
  const path = record.path
    .split("/")
    .map((s) => (generated(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${record.method} ${path}$`);
}

/** Fault targets of a step: one per request each service received in a clean run. */
export function targetsOf(requests: RequestRecord[][], name: string): { service: number; match: RegExp; skip: number; record: RequestRecord }[] {
  return requests.flatMap((records, service) =>
    records.map((record, k) => {
      const match = requestPattern(record, name);
      const skip = records.slice(0, k).filter((r) => match.test(`${r.method} ${r.path}`)).length;
      return { service, match, skip, record };
    }),
  );
}

/** The case's resource in state. */
const resourceOf = (engine: Engine, entry: Entry, door: Door, name: string) => {
  const token = tokenThrough(entry, door);
  const found = [...engine.state.values()].find((r) => r.type === token && r.name === name);
  if (!found) throw new Error(`${entry.type} "${name}" is not in the state`);
  return found;
};

/** Refreshes one resource only: the others of the state are set aside meanwhile (in order). */
async function refreshOne(engine: Engine, urn: string): Promise<RunResult> {
  const saved = [...engine.state.entries()];
  for (const [key] of saved) if (key !== urn) engine.state.delete(key);
  try {
    return await engine.refresh();
  } finally {
    const now = engine.state.get(urn);
    engine.state.clear();
    for (const [key, value] of saved) {
      if (key === urn) {
        if (now) engine.state.set(key, now);
      } else engine.state.set(key, value);
    }
  }
}

const errorsOf = (e: unknown): string[] => (e instanceof EngineError ? e.errors : [`crash: ${e instanceof Error ? e.stack ?? e.message : String(e)}`]);

/** IDs the resource's type lists now (empty when it has no `list`). */
async function listed(lane: Lane, entry: Entry): Promise<Set<string>> {
  const spec = entry.spec;
  return new Set(isOperationSpec(spec) || !spec.list ? [] : await spec.list(lane.context));
}

/** Objects of the resource's type listed now and not before, against the IDs in state; and IDs in state not listed. */
function listProblems(entry: Entry, before: Set<string>, now: Set<string>, engine: Engine): { extra: string[]; missing: string[] } {
  const tokens = [tokenThrough(entry, "dynamic"), tokenThrough(entry, "plugin")];
  const inState = new Set([...engine.state.values()].filter((r) => tokens.includes(r.type)).map((r) => r.id));
  const listable = !isOperationSpec(entry.spec) && entry.spec.list !== undefined;
  return {
    extra: [...now].filter((id) => !before.has(id) && !inState.has(id)).map((id) => `${entry.type} ${id}`),
    missing: listable ? [...inState].filter((id) => !now.has(id)).map((id) => `${entry.type} ${id}`) : [],
  };
}

/**
 * Whether an object of the census belongs to the case: objects of the secrets service carry the
 * case's name; configuration endpoints (one per mount) are shared by every case of a lane, exist
 * once the first case wrote them and stay (destroy restores or leaves them), so they are not counted.
 * Workspaces, versions and partitions all count (their IDs are generated, or their names the case's).
 */
function ofCase(key: string, name: string): boolean {
  return !key.startsWith("keep|") || key.includes(name);
}

export interface CaseOptions {
  /** The door the case's resource goes through (its prerequisites always go through the dynamic one): dynamic by default. */
  door?: Door;
  fault?: ArmedFault;
  /** Object counts of the clean run of the same step; absent for the clean run itself. */
  reference?: Reference;
  /** Inputs to use instead of the sample's (the fuzz's changed inputs). */
  inputs?: (sampleInputs: SampleInputs) => SampleInputs;
  /** Whether to run the case with these inputs at all (the fuzz runs only what `check` accepts). */
  accept?: (inputs: SampleInputs) => Promise<boolean>;
  /** An error the service may answer instead of converging (a refusal naming the property); no re-run follows. */
  refusal?: (message: string) => boolean;
}

/**
 * What the plugin's detailed diff of an update or a replacement should say: each input whose value
 * changed, `add`, `delete` or `update`, `-replace` for the inputs that replace (every input of an
 * operation but its undo setting). The dynamic door has no detailed diff to check.
 */
function detailedDiffProblems(entry: Entry, door: Door, name: string, before: SampleInputs, result: unknown, outcome: Outcome): void {
  if (door !== "plugin") return;
  const spec = entry.spec;
  const replacing = (key: string) => (isOperationSpec(spec) ? key !== spec.undo?.input : (spec.replaceOnChanges ?? []).includes(key as never));
  const step = ((result as RunResult | undefined)?.steps ?? []).find((st: Step) => st.name === name && st.type === tokenThrough(entry, door));
  // The checked inputs on each side: the state's before the step, the step's after it (defaults applied on both).
  const after = step?.inputs ?? {};
  const expected: Record<string, string> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (canonical(before[key] ?? null) === canonical(after[key] ?? null)) continue;
    const kind = before[key] === undefined ? "add" : after[key] === undefined ? "delete" : "update";
    expected[key] = replacing(key) ? `${kind}-replace` : kind;
  }
  if (canonical(step?.detailedDiff ?? null) !== canonical(expected)) {
    outcome.problems.push(`the detailed diff is ${canonical(step?.detailedDiff ?? null)}, not ${canonical(expected)}`);
  }
}

/** Ends a case early, on to its destroy. */
class Skip extends Error {}

/** Runs one case on a lane; never throws. */
export async function runCase(lane: Lane, entry: Entry, step: StepName, name: string, options: CaseOptions = {}): Promise<Outcome> {
  const { engine, env } = lane;
  const outcome: Outcome = { requests: [], fired: false, errors: [], rerun: false, problems: [], duplicates: 0, orphans: 0, afterStep: 0, afterDestroy: 0, caseName: name };
  engine.state.clear();
  lane.servers.forEach((s) => s.faults.clear());
  const baseline = await lane.census();
  const listBaseline = await listed(lane, entry);
  const check = (message: string, faulted?: RequestRecord) => outcome.problems.push(...messageProblems(message, entry, lane.secrets, faulted));
  /** The resources the case's inputs need, and the program of them alone. */
  let needed: DeclaredProgram = { resources: [] };
  const prerequisites: Program = () => declare(needed);
  let program: Program = prerequisites;
  try {
    // A case may leave "main" a secondary (a fuzzed replication input): that would change the next case's service.
    if (env.clusters) clustersOutOfReplication(env);
    await entry.sample.prepare?.(env);
    if (entry.sample.prerequisites) needed = await entry.sample.prerequisites(env, name);
    const before = entry.sample.prerequisites ? (await engine.up(prerequisites)).outputs : {};
    let inputs = await entry.sample.inputs(env, name, before);
    if (options.inputs) inputs = options.inputs(inputs);
    if (options.accept && !(await options.accept(inputs))) {
      outcome.skipped = true;
      throw new Skip();
    }
    const door = options.door ?? "dynamic";
    // The inputs name the prerequisites by the plain values of an earlier run: the resource depends
    // on those its inputs came from, as a program passing their outputs would, so it is deleted before them.
    const dependsOn = [...new Set(Object.values(needed.outputs ?? {}).map(([resource]) => resource))];
    const withResource = (values: SampleInputs, resourceName = name): Program => () =>
      declare({ resources: [...needed.resources, { door, type: entry.type, path: entry.path, name: resourceName, inputs: values, dependsOn }], outputs: needed.outputs });
    /** Checks of the step's own result, made once it ran without a fault. */
    let afterRun: (result: unknown) => Promise<void> = async () => undefined;
    let run: () => Promise<unknown>;
    if (step !== "create") await engine.up(withResource(inputs));
    switch (step) {
      case "create":
        program = withResource(inputs);
        run = () => engine.up(program);
        break;
      case "update":
      case "replace": {
        const held = resourceOf(engine, entry, door, name);
        program = withResource(step === "update" ? await entry.sample.change!(inputs, env) : await entry.sample.replacement!(inputs, env, before));
        run = () => engine.up(program);
        afterRun = async (result) => detailedDiffProblems(entry, door, name, held.inputs, result, outcome);
        break;
      }
      case "refresh":
        program = withResource(inputs);
        {
          const urn = resourceOf(engine, entry, door, name).urn;
          run = () => refreshOne(engine, urn);
        }
        break;
      case "delete":
        program = prerequisites;
        run = () => engine.up(program);
        break;
      case "adoption": {
        const declared = entry.sample.change ? await entry.sample.change(inputs, env) : inputs;
        // The object stays on the service; the program forgets it and adopts it back, changed.
        engine.state.delete(resourceOf(engine, entry, door, name).urn);
        program = withResource({ ...declared, adopt: true });
        run = () => engine.up(program);
        break;
      }
      case "takeover": {
        // Someone else's object: a stack that does not hold it declares it, changed, without adopt,
        // under a resource name of its own (an object the service records as made by this very
        // resource would be taken back: a run cut short). The create is refused by name, and writes
        // nothing; the object stays as it was, which the case's checks (refresh, preview) then
        // confirm against the state that made it.
        const held = resourceOf(engine, entry, door, name);
        const declared = entry.sample.change ? await entry.sample.change(inputs, env) : inputs;
        program = withResource(inputs);
        run = async () => {
          engine.state.delete(held.urn);
          const refused = await engine.up(withResource(declared, `${name}-theirs`)).then(
            () => undefined,
            (e: unknown) => e,
          );
          // A create the service refuses itself (a taken name) sends its write, which changes nothing.
          const writes = lane.servers.flatMap((s) => s.log.entries).filter((r) => r.method !== "GET" && r.status < 400);
          engine.state.set(held.urn, held);
          if (!refused) outcome.problems.push("a create over an existing object was not refused");
          else if (!errorsOf(refused).some((m) => m.includes(`${entry.type} "`) && m.includes("already holds") && m.includes("adopt: true"))) {
            outcome.problems.push(`the refusal does not name the object and the way to adopt it: ${errorsOf(refused)[0].slice(0, 300)}`);
          }
          if (writes.length) outcome.problems.push(`the refused create wrote: ${writes.map((r) => `${r.method} ${r.path}`).join(", ")}`);
        };
        break;
      }
      case "import": {
        // The object stays on the service; a stack that never had it imports it by its ID alone.
        const held = resourceOf(engine, entry, door, name);
        program = withResource(inputs);
        /** The inputs the import could not answer. */
        let added: string[] = [];
        run = async () => {
          engine.state.delete(held.urn);
          const imported = await engine.import([{ type: tokenThrough(entry, door), name, id: held.id }]);
          // The program the CLI writes from the answer, and what the service never shows (credentials), which the user adds.
          const answered = imported.resources[0].inputs;
          added = Object.keys(inputs).filter((k) => inputs[k] !== undefined && answered[k] === undefined);
          program = withResource({ ...answered, ...Object.fromEntries(added.map((k) => [k, inputs[k]])) });
          return imported;
        };
        afterRun = async () => {
          // What the service never shows is written once, by the first up after the import.
          // Nothing else: at most an update adding what the user added (an input the service fills in when left out plans nothing).
          const planned = (await engine.preview(program)).steps.filter((st) => st.op !== "same");
          const expected = planned.every((st) => st.op === "update" && Object.entries(st.detailedDiff ?? {}).every(([k, kind]) => added.includes(k) && kind === "add"));
          if (!expected) outcome.problems.push(`after the import a preview plans ${canonical(planned.map((st) => ({ op: st.op, kinds: st.detailedDiff ?? {} })))}, more than adding ${added.join(", ") || "nothing"}`);
          // The user's next up after an import: it writes what was added, and records the resource's
          // dependencies, which an import by ID alone does not know (the destroy that ends the case needs them).
          await engine.up(program);
        };
        break;
      }
      case "drift": {
        // Someone changes the object on the service; a refresh takes it in; an up converges it back.
        const held = resourceOf(engine, entry, door, name);
        const changed = await entry.sample.change!(inputs, env);
        program = withResource(inputs);
        /** The changed inputs a read of the service shows (a local setting, such as a timeout, it does not). */
        let readable: string[] = [];
        run = async () => {
          const machine = machineOf(entry.spec, () => lane.context);
          const checked = (await machine.check({}, changed)).inputs;
          await machine.update(held.id, held.outputs, checked);
          const fresh = (await machine.read(held.id, {})).props;
          readable = Object.keys(checked).filter((k) => canonical(checked[k] ?? null) !== canonical(held.inputs[k] ?? null) && canonical(fresh[k] ?? null) === canonical(checked[k] ?? null));
          return refreshOne(engine, held.urn);
        };
        afterRun = async (result) => {
          const seen = (result as RunResult).steps.find((st) => st.name === name);
          if (readable.length && (seen?.op !== "update" || !readable.some((k) => seen.diffs?.includes(k)))) {
            outcome.problems.push(`a refresh after drift of ${readable.join(", ")} found ${canonical(seen ?? "nothing")}`);
          }
          const back = (await engine.preview(program)).steps.find((st) => st.name === name);
          if (readable.length && (!back || back.op === "same" || !Object.keys(back.detailedDiff ?? {}).some((k) => readable.includes(k)))) {
            outcome.problems.push(`after drift a preview of the program plans ${canonical(back ?? "nothing")}`);
          }
          await engine.up(program);
        };
        break;
      }
    }

    lane.servers.forEach((s) => s.log.clear());
    const fault = options.fault;
    if (fault) {
      const server = lane.servers[fault.service];
      // A fault that does nothing takes the matching requests before the k-th.
      if (fault.skip > 0) server.faults.inject({ times: fault.skip, match: fault.match });
      server.faults.inject({ times: 1, match: fault.match, ...fault.kind.fault });
    }
    let result: unknown;
    const first = await run().then(
      (value) => {
        result = value;
        return undefined;
      },
      (e: unknown) => e ?? new Error("failed"),
    );
    if (!first && !options.fault) await afterRun(result);
    lane.servers.forEach((s) => s.faults.clear());
    outcome.requests = lane.servers.map((s) => [...s.log.entries]);
    let faulted: RequestRecord | undefined;
    if (fault) {
      const matching = outcome.requests[fault.service].filter((r) => fault.match.test(`${r.method} ${r.path}`));
      faulted = matching[fault.skip];
      outcome.fired = faulted !== undefined;
    }
    if (first && options.refusal && errorsOf(first).every(options.refusal)) {
      outcome.refused = true;
      outcome.errors.push(...errorsOf(first));
      throw new Skip();
    }
    if (first) {
      outcome.errors.push(...errorsOf(first));
      for (const message of errorsOf(first)) check(message, fault?.kind.final ? faulted : undefined);
      // At most one re-run, without the fault.
      outcome.rerun = true;
      const second = await run().then(
        () => undefined,
        (e: unknown) => e ?? new Error("failed"),
      );
      if (second) {
        outcome.errors.push(...errorsOf(second));
        for (const message of errorsOf(second)) check(message);
        outcome.problems.push(`the re-run failed too: ${errorsOf(second)[0].slice(0, 300)}`);
      }
    }
    if (fault?.kind.final && outcome.fired) {
      if (!first) outcome.problems.push(`a ${fault.kind.name} answer to ${faulted!.method} ${faulted!.path} did not surface as an error`);
      const at = outcome.requests[fault.service].indexOf(faulted!);
      const again = outcome.requests[fault.service].slice(at + 1).filter((r) => r.method === faulted!.method && r.url === faulted!.url);
      if (first && again.length) outcome.problems.push(`a ${fault.kind.name} answer to ${faulted!.method} ${faulted!.path} was retried`);
    }

    // State and services agree: a refresh finds nothing, a preview plans nothing.
    const refreshed: RunResult | Error = await engine.refresh().catch((e: Error) => e);
    if (refreshed instanceof Error) outcome.problems.push(`refresh failed: ${errorsOf(refreshed)[0].slice(0, 300)}`);
    else {
      // Computed outputs may move (a workspace's current version after an upload): the step stays
      // `same`. An `update` is the engine's word for a difference an up would undo.
      const drift = refreshed.steps.filter((s) => s.op === "delete" || s.op === "update");
      if (drift.length) outcome.problems.push(`refresh found a difference: ${drift.map((s) => `${s.op} ${s.name} [${s.diffs ?? ""}]`).join(", ")}`);
    }
    const preview: RunResult | Error = await engine.preview(program).catch((e: Error) => e);
    if (preview instanceof Error) outcome.problems.push(`preview failed: ${errorsOf(preview)[0].slice(0, 300)}`);
    else {
      const planned = preview.steps.filter((s) => s.op !== "same");
      if (planned.length) outcome.problems.push(`a preview after the run plans: ${planned.map((s) => `${s.op} ${s.name} [${s.diffs ?? ""}]`).join(", ")}`);
    }
    const lists = listProblems(entry, listBaseline, await listed(lane, entry), engine);
    if (lists.extra.length) {
      outcome.duplicates += lists.extra.length;
      outcome.problems.push(`the service holds objects the state does not: ${lists.extra.join(", ")}`);
    }
    if (lists.missing.length) outcome.problems.push(`the state holds objects the service does not: ${lists.missing.join(", ")}`);
    const census = [...(await lane.census())].filter((k) => !baseline.has(k) && ofCase(k, name));
    // An object the provider kept in state as created-but-failed and then said it leaves (the
    // service cannot delete it, such as a version whose upload URL was lost) is accounted for.
    const hostSaid = lane.hostOutput();
    const leftWithWarning = (key: string) => new RegExp(`warning: [^\\n]*${key.split("|").pop()}[^\\n]* is left`).test(hostSaid);
    outcome.accounted = census.filter(leftWithWarning).length;
    const made = census.filter((k) => !leftWithWarning(k));
    outcome.afterStep = made.length;
    if (options.reference && made.length > options.reference.afterStep) {
      outcome.duplicates += made.length - options.reference.afterStep;
      outcome.problems.push(`the services hold ${made.length} objects of the case, a clean run ${options.reference.afterStep}: ${made.join(", ")}`);
    }
  } catch (e) {
    if (!(e instanceof Skip)) outcome.problems.push(`the case could not run: ${errorsOf(e)[0].slice(0, 400)}`);
  }

  // Nothing of the case may stay behind.
  const exported = JSON.stringify(engine.exportState()) + lane.hostOutput();
  for (const secret of lane.secrets) if (exported.includes(secret)) outcome.problems.push("a token is in the state or the provider host's output");
  try {
    // Destroy deletes the case's resource before the prerequisites it depends on.
    await engine.destroy();
  } catch (e) {
    outcome.problems.push(`destroy failed: ${errorsOf(e)[0].slice(0, 300)}`);
  }
  if (engine.state.size) outcome.problems.push(`destroy left ${engine.state.size} resources in state`);
  engine.state.clear();
  try {
    const left = [...(await lane.census())].filter((k) => !baseline.has(k) && ofCase(k, name));
    outcome.afterDestroy = left.length;
    if (options.reference && left.length > options.reference.afterDestroy) {
      outcome.orphans += left.length - options.reference.afterDestroy;
      outcome.problems.push(`after destroy the services hold ${left.join(", ")}`);
    }
    const lists = listProblems(entry, listBaseline, await listed(lane, entry), engine);
    if (lists.extra.length && !(options.reference && left.length > options.reference.afterDestroy)) {
      outcome.orphans += lists.extra.length;
      outcome.problems.push(`after destroy the service lists ${lists.extra.join(", ")}`);
    }
  } catch (e) {
    outcome.problems.push(`census failed: ${String(e)}`);
  }
  return outcome;
}

/**
 * Runs `work` over `items` on every lane at once, each lane taking the next item when free. A case
 * that has not finished after `deadlineMs` gets `late(item)` as its result and its lane takes no
 * more work (what it left running could disturb the next case).
 */
export async function onLanes<T, R>(
  lanes: Lane[],
  items: T[],
  work: (lane: Lane, item: T, index: number) => Promise<R>,
  /** A case that outlives `ms` is `late`, and its lane retires (see `Lane.retired`). */
  deadline?: { ms: number; late(item: T, lane?: Lane): R },
  /** Names the work in a line of progress on standard error, at most every 20 s, instead of minutes of silence. */
  progress?: string,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  const started = Date.now();
  let told = started;
  const tell = () => {
    done++;
    const now = Date.now();
    if (!progress || (now - told < 20_000 && done < items.length)) return;
    told = now;
    process.stderr.write(`${progress}: ${done} of ${items.length} done (${Math.round((now - started) / 1000)} s)\n`);
  };
  await Promise.all(
    lanes.map(async (lane) => {
      while (next < items.length && !lane.retired) {
        const index = next++;
        if (!deadline) {
          results[index] = await work(lane, items[index], index);
          tell();
          continue;
        }
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), deadline.ms)));
        const result = await Promise.race([work(lane, items[index], index), late]);
        clearTimeout(timer);
        if (result === "late") {
          lane.retired = true;
          results[index] = deadline.late(items[index], lane);
          return;
        }
        results[index] = result;
        tell();
      }
    }),
  );
  // Items no lane could take (every lane retired) are late too.
  for (let i = 0; i < items.length; i++) if (!(i in results) && deadline) results[i] = deadline.late(items[i]);
  return results;
}
