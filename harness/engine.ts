/**
 * A small stand-in for the Pulumi engine, for running programs of dynamic resources where the Pulumi
 * CLI is not installed (tests, benchmarks, the quickstart). The program runs with the SDK's mock
 * runtime; every dynamic resource goes to the real provider host over gRPC in the engine's order:
 * Check, Diff, then Create / Update / Replace / Delete, and Read for refresh and `get`. State is kept
 * between runs, so a session reads as preview → up → change → preview → up → refresh → destroy.
 *
 * Secrets follow the engine's rules for a provider that does not accept secrets: inputs reach the
 * provider plain, and an output is secret when an input of the same key was, or when it is listed in
 * `additionalSecretOutputs`.
 */
import { TOKEN_PREFIX } from "../provider/spec";
import { InitError, ProviderHost } from "./provider-host";

const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

type Props = Record<string, unknown>;

export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "read" | "refresh";

export interface Step {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Inputs that changed (update and replace). */
  diffs?: string[];
  replaces?: string[];
  /**
   * The checked inputs the resource has after the step (create, same, update, replace): in a
   * preview, what the run plans. Policies can check them before anything is changed.
   */
  inputs?: Props;
  /** A delete of an object a replacement left behind (its first delete failed), retried as the engine does. */
  pendingDelete?: boolean;
  /** A delete that only removed the resource from the state (`retainOnDelete`, or `deletedWith` a deleted resource). */
  stateOnly?: "retainOnDelete" | "deletedWith";
}

export interface StateResource {
  urn: string;
  type: string;
  name: string;
  id: string;
  /** Checked inputs, plain. */
  inputs: Props;
  /** Outputs, plain; `secretOutputs` names the secret ones. */
  outputs: Props;
  secretOutputs: string[];
  /** A create that failed after the object was made: the next up updates it. */
  initErrors?: string[];
  /** Read through `get`: never deleted by this program. */
  external?: boolean;
  /** URNs this resource depends on: they are deleted only after it. */
  dependencies?: string[];
  /** `protect`: the engine refuses to delete (or replace) it. */
  protect?: boolean;
  /** `retainOnDelete`: a delete removes it from the state and leaves the object on the service. */
  retainOnDelete?: boolean;
  /** `deletedWith`: deleted by deleting that resource, so its own delete is not sent when both go. */
  deletedWith?: string;
  /**
   * An object a replacement left behind because its delete failed: kept, marked, and deleted again
   * by the next `up` (before anything else) and by `destroy`, as the engine keeps it.
   */
  pendingDelete?: boolean;
}

export interface RunResult {
  steps: Step[];
  /** Stack outputs (plain values; unknown ones are undefined in preview). */
  outputs: Props;
  /** Lines the provider host printed (warnings). */
  diagnostics: string[];
}

export class EngineError extends Error {
  constructor(
    readonly errors: string[],
    readonly steps: Step[],
  ) {
    super(errors.join("\n"));
  }
}

export type Program = () => unknown | Promise<unknown>;

export interface EngineOptions {
  project: string;
  stack?: string;
  /** Stack configuration, e.g. `{ "keep:address": "http://127.0.0.1:8200" }`. */
  config?: Record<string, string>;
  /** Config keys that are secrets (the program sees them as secrets). */
  secretConfig?: string[];
  /** Project directory the provider host runs in (default: the current directory). */
  cwd?: string;
  /** Environment of the provider host, added to this process's. */
  env?: Record<string, string | undefined>;
  /** Most provider operations at once (the engine's --parallel). */
  parallel?: number;
}

function isSecret(value: unknown): value is { value: unknown } {
  return !!value && typeof value === "object" && (value as Props)[SECRET_SIG_KEY] === SECRET_SIG;
}

function containsSecret(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (value && typeof value === "object") return Object.values(value).some(containsSecret);
  return false;
}

/** The plain value, as the engine sends it to a provider that does not accept secrets. */
function stripSecrets(value: unknown): any {
  if (isSecret(value)) return stripSecrets(value.value);
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripSecrets(v)]));
  }
  return value;
}

function wrapSecrets(props: Props, secretKeys: string[]): Props {
  const out: Props = { ...props };
  for (const key of secretKeys) if (key in out) out[key] = { [SECRET_SIG_KEY]: SECRET_SIG, value: out[key] };
  return out;
}

/** The resources a registration depends on, explicitly or through its inputs. */
function dependenciesOf(req: any): string[] {
  const deps = new Set<string>(req.getDependenciesList());
  req.getPropertydependenciesMap().forEach((value: any) => value.getUrnsList().forEach((u: string) => deps.add(u)));
  return [...deps];
}

/** The state key of an object a replacement left behind: beside its resource's, never in its place. */
const pendingDeleteKey = (urn: string, id: string) => `${urn}#pending-delete:${id}`;

function withoutProvider(props: Props): Props {
  const { __provider: _p, ...rest } = props;
  return rest;
}

function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** Bounds concurrent provider operations. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

type Mode = "preview" | "up";

/**
 * Routes uncaught exceptions and unhandled rejections to `fail` until the returned function is
 * called. That function first lets one turn of the event loop pass, so rejections made during the
 * run are reported while the handlers are still in place.
 */
function catchStrayErrors(fail: (e: unknown) => void): () => Promise<void> {
  const handler = (e: unknown) => fail(e);
  process.on("uncaughtException", handler);
  process.on("unhandledRejection", handler);
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    process.off("uncaughtException", handler);
    process.off("unhandledRejection", handler);
  };
}

/**
 * The SDK passes every promise it makes through `debuggablePromise`, which stamps it with
 * `new Error().stack`, keeps it in a set and chains two more promises to it, for a leak report it
 * prints when the language host's process exits. The harness runs programs in the caller's process,
 * where that report has no place, and at thousands of resources those stamps were a quarter of a
 * program run's CPU (where source maps are installed) and a sixth of its live heap. Without
 * PULUMI_DEBUG_PROMISE_LEAKS the promise is passed through as it is; with it, untouched.
 */
function passPromisesThrough(debuggable: { debuggablePromise?: (p: unknown, ctx: unknown) => unknown; debugPromiseLeaks?: boolean }): void {
  const original = debuggable.debuggablePromise;
  if (typeof original !== "function" || debuggable.debugPromiseLeaks || (original as { passThrough?: true }).passThrough) return;
  debuggable.debuggablePromise = Object.assign((p: unknown) => p, { passThrough: true as const });
}

/**
 * The SDK records where each resource was declared (a full stack, read from `new Error().stack` and
 * parsed frame by frame) for the engine to show. The harness's monitor shows no source positions, and
 * with source maps installed (jest, ts-node) that stack was the costliest part of declaring a resource.
 */
function skipSourcePositions(resource: { Resource: { callsites?: () => unknown[] } }): void {
  const callsites = resource.Resource.callsites;
  if (typeof callsites !== "function" || (callsites as { skipped?: true }).skipped) return;
  resource.Resource.callsites = Object.assign(() => [], { skipped: true as const });
}

/** The SDK's runtime internals the mock monitor plugs into (stable across 3.x). */
function sdkRuntime() {
  passPromisesThrough(require("@pulumi/pulumi/runtime/debuggable"));
  skipSourcePositions(require("@pulumi/pulumi/resource"));
  return {
    settings: require("@pulumi/pulumi/runtime/settings"),
    state: require("@pulumi/pulumi/runtime/state"),
    config: require("@pulumi/pulumi/runtime/config"),
    stack: require("@pulumi/pulumi/runtime/stack"),
    resource: require("@pulumi/pulumi/resource"),
    mocks: require("@pulumi/pulumi/runtime/mocks"),
    structproto: require("google-protobuf/google/protobuf/struct_pb"),
    resproto: require("@pulumi/pulumi/proto/resource_pb"),
  };
}

/** Runs of any engine of this process under way. */
let runsUnderWay = 0;

export class Engine {
  /** Resources in state, in creation order. */
  readonly state = new Map<string, StateResource>();
  private host?: ProviderHost;
  private readonly limiter: Limiter;
  private readonly options: Required<Pick<EngineOptions, "project" | "stack" | "cwd">> & EngineOptions;

  constructor(options: EngineOptions) {
    this.options = { stack: "dev", cwd: process.cwd(), ...options };
    this.limiter = new Limiter(options.parallel ?? 16);
  }

  /** The provider host's process ID, once a run started it. */
  get hostPid(): number | undefined {
    return this.host?.pid;
  }

  private async provider(): Promise<ProviderHost> {
    if (!this.host) {
      this.host = await ProviderHost.start({ cwd: this.options.cwd, project: this.options.project, env: this.options.env });
      await this.host.configure(this.options.config ?? {});
    }
    return this.host;
  }

  /** Replaces the stack configuration (the host is restarted so `configure` sees it). */
  async setConfig(config: Record<string, string>): Promise<void> {
    this.options.config = config;
    await this.host?.close();
    this.host = undefined;
  }

  preview(program: Program): Promise<RunResult> {
    return this.run("preview", program);
  }

  up(program: Program): Promise<RunResult> {
    return this.run("up", program);
  }

  /** The state as JSON with secrets marked (for assertions that nothing leaks). */
  exportState(): unknown {
    return [...this.state.values()].map((r) => ({ ...r, outputs: wrapSecrets(r.outputs, r.secretOutputs) }));
  }

  /**
   * Each run gets a store of the SDK's runtime of its own (monitor, stack resource, configuration):
   * engines of one process may run programs at the same time without receiving each other's resources.
   * A run alone in its process gets a fresh global store; only a run that starts while another is
   * under way gets one in the SDK's AsyncLocalStorage, whose first use turns on promise hooks for the
   * whole process (every later promise then costs more memory and time: at 5,000 resources, about a
   * sixth of the program's heap while its resources register).
   */
  private async run(mode: Mode, program: Program): Promise<RunResult> {
    const state = sdkRuntime().state;
    runsUnderWay++;
    try {
      if (runsUnderWay > 1 || state.getLocalStore() !== undefined) return await state.withLocalStorage(() => this.runInOwnStore(mode, program));
      (globalThis as { globalStore?: unknown }).globalStore = new state.LocalStore();
      return await this.runInOwnStore(mode, program);
    } finally {
      runsUnderWay--;
    }
  }

  private async runInOwnStore(mode: Mode, program: Program): Promise<RunResult> {
    const host = await this.provider();
    const rt = sdkRuntime();
    const steps: Step[] = [];
    const errors: string[] = [];
    // Objects earlier replacements left behind go first, as the engine deletes them first.
    const leftBehind = [...this.state.values()].filter((r) => r.pendingDelete);
    if (mode === "preview") leftBehind.forEach((r) => steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, pendingDelete: true }));
    else errors.push(...(await this.deleteAll(host, leftBehind, steps)));
    const registered = new Set<string>();
    const pending: Promise<unknown>[] = [];
    const preview = mode === "preview";
    const diagnosticsStart = host.stderr.length;
    const engine = this;
    /**
     * Answers the program once a registration is done. A failure is reported when the run ends;
     * meanwhile the program gets its own inputs back, so it does not die of unhandled rejections.
     */
    const settle = <T>(work: Promise<T>, callback: (err: unknown, resp?: unknown) => void, fallback: () => unknown) => {
      pending.push(work.catch(() => undefined));
      work.then(
        (resp) => callback(null, resp),
        (err: Error) => {
          errors.push(err.message);
          callback(null, fallback());
        },
      );
    };

    class HarnessMonitor extends rt.mocks.MockMonitor {
      registerResource(req: any, callback: (err: unknown, resp?: unknown) => void) {
        const work = (async () => {
          const type: string = req.getType();
          const name: string = req.getName();
          const urn: string = this.newUrn(req.getParent(), type, name);
          registered.add(urn);
          let id = "";
          let wire: Props;
          if (errors.length) {
            // Like the engine, no new step starts once one has failed.
            wire = req.getObject()?.toJavaScript() ?? {};
          } else if (!type.startsWith(TOKEN_PREFIX) || !req.getCustom()) {
            wire = req.getObject()?.toJavaScript() ?? {};
          } else {
            const result = await engine.limiter.run(() =>
              engine.register(host, mode, steps, {
                urn,
                type,
                name,
                raw: req.getObject()?.toJavaScript() ?? {},
                additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
                deleteBeforeReplace: req.getDeletebeforereplace(),
                replaceOnChanges: req.getReplaceonchangesList(),
                ignoreChanges: req.getIgnorechangesList(),
                dependencies: dependenciesOf(req),
                options: { protect: req.getProtect() || undefined, retainOnDelete: req.getRetainondelete() || undefined, deletedWith: req.getDeletedwith() || undefined },
              }),
            );
            id = result.id;
            wire = result.wire;
          }
          this.resources.set(urn, { urn, id, state: wire });
          const resp = new rt.resproto.RegisterResourceResponse();
          resp.setUrn(urn);
          resp.setId(id);
          resp.setObject(rt.structproto.Struct.fromJavaScript(wire));
          return resp;
        })();
        settle(work, callback, () => {
          const resp = new rt.resproto.RegisterResourceResponse();
          resp.setUrn(this.newUrn(req.getParent(), req.getType(), req.getName()));
          resp.setId("");
          resp.setObject(req.getObject());
          return resp;
        });
      }

      readResource(req: any, callback: (err: unknown, resp?: unknown) => void) {
        const work = (async () => {
          const type: string = req.getType();
          const name: string = req.getName();
          const urn: string = this.newUrn(req.getParent(), type, name);
          registered.add(urn);
          const props = stripSecrets(req.getProperties()?.toJavaScript() ?? {});
          const read = await engine.limiter.run(() => host.read(urn, req.getId(), props, props));
          if (!read.id) throw new Error(`${urn}: no object with ID "${req.getId()}" exists`);
          const secretOutputs: string[] = req.getAdditionalsecretoutputsList();
          engine.state.set(urn, { urn, type, name, id: read.id, inputs: props, outputs: read.properties, secretOutputs, external: true });
          steps.push({ op: "read", urn, type, name });
          const wire = wrapSecrets(read.properties, secretOutputs);
          this.resources.set(urn, { urn, id: read.id, state: wire });
          const resp = new rt.resproto.ReadResourceResponse();
          resp.setUrn(urn);
          resp.setProperties(rt.structproto.Struct.fromJavaScript(wire));
          return resp;
        })();
        settle(work, callback, () => {
          const resp = new rt.resproto.ReadResourceResponse();
          resp.setUrn(this.newUrn(req.getParent(), req.getType(), req.getName()));
          resp.setProperties(req.getProperties());
          return resp;
        });
      }
    }

    rt.settings.setMockOptions(new HarnessMonitor(), this.options.project, this.options.stack, preview);
    const store = rt.state.getStore();
    Object.assign(store, {
      supportsSecrets: true,
      supportsResourceReferences: true,
      supportsOutputValues: false,
      supportsDeletedWith: true,
      supportsAliasSpecs: true,
      supportsTransforms: false,
      supportsInvokeTransforms: false,
    });
    rt.config.setAllConfig(this.options.config ?? {}, this.options.secretConfig ?? []);

    const fail = (e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      if (!errors.includes(message)) errors.push(message);
    };
    // As the language host does, an error nobody catches (an apply callback that throws, a timer)
    // fails the run instead of ending the process.
    const stopCatching = catchStrayErrors(fail);
    let outputs: Props = {};
    try {
      try {
        outputs = ((await rt.stack.runInPulumiStack(async () => {
          let returned: unknown;
          try {
            returned = await program();
          } catch (e) {
            // Caught here, the SDK's stack resource completes instead of leaving rejected promises behind.
            fail(e);
            return undefined;
          }
          // A program written as an expression returns its last resource: that is not a set of outputs.
          return rt.resource.Resource.isInstance(returned) ? undefined : returned;
        })) ?? {}) as Props;
      } catch (e) {
        fail(e);
      }
      await rt.settings.waitForRPCs().catch(fail);
      await Promise.all(pending);
    } finally {
      await stopCatching();
    }

    // Objects in state that the program no longer declares are deleted, dependents first.
    if (!errors.length) {
      const gone = [...this.state.values()].filter((r) => !registered.has(r.urn) && !r.pendingDelete);
      for (const r of gone) if (r.external && !preview) this.state.delete(r.urn);
      const managed = gone.filter((r) => !r.external);
      const guarded = managed.filter((r) => r.protect);
      if (preview && guarded.length) errors.push(...guarded.map((r) => `${r.urn}: cannot delete a protected resource: set protect: false and run up first, or remove it from the state`));
      else if (preview) managed.forEach((r) => steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name }));
      else errors.push(...(await this.deleteAll(host, managed, steps)));
    }
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: stripSecrets(outputs), diagnostics: host.stderr.slice(diagnosticsStart) };
  }

  private async register(
    host: ProviderHost,
    mode: Mode,
    steps: Step[],
    reg: {
      urn: string;
      type: string;
      name: string;
      raw: Props;
      additionalSecretOutputs: string[];
      deleteBeforeReplace: boolean;
      replaceOnChanges: string[];
      ignoreChanges: string[];
      dependencies: string[];
      /** Set afresh by each registration, every key present: a removed option is off again. */
      options: Pick<StateResource, "protect" | "retainOnDelete" | "deletedWith">;
    },
  ): Promise<{ id: string; wire: Props }> {
    const { urn, type, name } = reg;
    const preview = mode === "preview";
    const secretInputs = Object.keys(reg.raw).filter((k) => containsSecret(reg.raw[k]));
    const secretOutputs = [...new Set([...secretInputs, ...reg.additionalSecretOutputs])];
    const news = stripSecrets(reg.raw) as Props;
    const old = this.state.get(urn);
    for (const key of reg.ignoreChanges) if (old && key in old.inputs) news[key] = old.inputs[key];

    const checked = await host.check(urn, old?.inputs ?? {}, news);
    if (checked.failures.length) {
      const lines = checked.failures.map((f) => `  ${f.property}: ${f.reason}`).join("\n");
      throw new Error(`${urn}: invalid inputs:\n${lines}`);
    }
    const inputs = checked.inputs;
    const answer = (id: string, outputs: Props) => ({ id, wire: wrapSecrets(outputs, secretOutputs) });

    const create = async (): Promise<{ id: string; outputs: Props }> => {
      try {
        const created = await host.create(urn, inputs);
        return { id: created.id, outputs: created.properties };
      } catch (e) {
        if (e instanceof InitError) {
          this.state.set(urn, { urn, type, name, id: e.id, inputs, outputs: e.properties, secretOutputs, initErrors: e.reasons, dependencies: reg.dependencies, ...reg.options });
        }
        throw new Error(`${urn}: create failed: ${(e as Error).message}`);
      }
    };

    if (!old) {
      steps.push({ op: "create", urn, type, name, inputs: withoutProvider(inputs) });
      if (preview) return answer("", inputs);
      const { id, outputs } = await create();
      this.state.set(urn, { urn, type, name, id, inputs, outputs, secretOutputs, dependencies: reg.dependencies, ...reg.options });
      return answer(id, outputs);
    }

    const diff = await host.diff(urn, old.id, old.outputs, inputs, old.inputs);
    const diffs = Object.keys(withoutProvider({ ...old.inputs, ...inputs })).filter(
      (k) => JSON.stringify(old.outputs[k]) !== JSON.stringify(inputs[k]) || containsUnknown(inputs[k]),
    );
    const replaces = [...diff.replaces, ...reg.replaceOnChanges.filter((k) => diffs.includes(k) && !diff.replaces.includes(k))];
    if (diff.changes === "none" && !old.initErrors) {
      steps.push({ op: "same", urn, type, name, inputs: withoutProvider(inputs) });
      this.state.set(urn, { ...old, secretOutputs, dependencies: reg.dependencies, ...reg.options });
      return answer(old.id, old.outputs);
    }
    if (replaces.length) {
      // As the engine: a protected resource is not replaced (its old half would be deleted).
      if (old.protect) throw new Error(`${urn}: cannot replace a protected resource (changes to ${replaces.join(", ")} replace it): set protect: false and run up first`);
      steps.push({ op: "replace", urn, type, name, diffs, replaces, inputs: withoutProvider(inputs) });
      if (preview) return answer("", inputs);
      const deleteOld = async () => {
        if (old.retainOnDelete) return;
        await host.delete(urn, old.id, old.outputs, old.inputs);
      };
      if (diff.deleteBeforeReplace || reg.deleteBeforeReplace) {
        await deleteOld();
        this.state.delete(urn);
        const { id, outputs } = await create();
        this.state.set(urn, { urn, type, name, id, inputs, outputs, secretOutputs, dependencies: reg.dependencies, ...reg.options });
        return answer(id, outputs);
      }
      const { id, outputs } = await create().catch((e: unknown) => {
        // As the engine: a replacement made but failed (kept in state) marks the old object for
        // deletion; it stays in the state until the next up or destroy deletes it.
        if (this.state.get(urn) !== old) this.state.set(pendingDeleteKey(urn, old.id), { ...old, pendingDelete: true });
        throw e;
      });
      this.state.set(urn, { urn, type, name, id, inputs, outputs, secretOutputs, dependencies: reg.dependencies, ...reg.options });
      try {
        await deleteOld();
      } catch (e) {
        // The old object stays in the state, marked for deletion: the next up and destroy delete it.
        this.state.set(pendingDeleteKey(urn, old.id), { ...old, pendingDelete: true });
        throw new Error(`${urn}: the replaced object ${old.id} could not be deleted (it stays in the state, to be deleted by the next up): ${(e as Error).message}`);
      }
      return answer(id, outputs);
    }
    steps.push({ op: "update", urn, type, name, diffs, inputs: withoutProvider(inputs) });
    if (preview) return answer(old.id, { ...old.outputs, ...inputs });
    const updated = await host.update(urn, old.id, old.outputs, inputs, old.inputs).catch((e: Error) => {
      throw new Error(`${urn}: update failed: ${e.message}`);
    });
    this.state.set(urn, { urn, type, name, id: old.id, inputs, outputs: updated.properties, secretOutputs, dependencies: reg.dependencies, ...reg.options });
    return answer(old.id, updated.properties);
  }

  /** Reads every resource in state back from its service; objects that are gone leave the state. */
  async refresh(): Promise<RunResult> {
    const host = await this.provider();
    const steps: Step[] = [];
    const errors: string[] = [];
    const start = host.stderr.length;
    await Promise.all(
      [...this.state.values()].map((r) =>
        this.limiter.run(async () => {
          const key = r.pendingDelete ? pendingDeleteKey(r.urn, r.id) : r.urn;
          try {
            const read = await host.read(r.urn, r.id, r.outputs, r.inputs);
            if (!read.id) {
              this.state.delete(key);
              steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, ...(r.pendingDelete ? { pendingDelete: true } : {}) });
              return;
            }
            const diffs = Object.keys(withoutProvider({ ...r.outputs, ...read.properties })).filter(
              (k) => JSON.stringify(r.outputs[k]) !== JSON.stringify(read.properties[k]),
            );
            this.state.set(key, { ...r, id: read.id, outputs: read.properties, inputs: read.inputs ?? r.inputs });
            steps.push({ op: diffs.length ? "refresh" : "same", urn: r.urn, type: r.type, name: r.name, diffs });
          } catch (e) {
            errors.push(`${r.urn}: refresh failed: ${(e as Error).message}`);
          }
        }),
      ),
    );
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: {}, diagnostics: host.stderr.slice(start) };
  }

  /** Deletes every resource in state, dependents before what they depend on, in parallel otherwise. */
  async destroy(): Promise<RunResult> {
    const host = await this.provider();
    const steps: Step[] = [];
    const start = host.stderr.length;
    for (const r of this.state.values()) if (r.external) this.state.delete(r.urn);
    const errors = await this.deleteAll(host, [...this.state.values()], steps);
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: {}, diagnostics: host.stderr.slice(start) };
  }

  /**
   * Deletes `doomed` as the engine does: a resource waits for every doomed resource that depends on
   * it; the rest run in parallel.
   */
  private async deleteAll(host: ProviderHost, doomed: StateResource[], steps: Step[]): Promise<string[]> {
    const errors: string[] = [];
    // As the engine: nothing is deleted when a protected resource would have to be.
    const guarded = doomed.filter((r) => r.protect);
    if (guarded.length) return guarded.map((r) => `${r.urn}: cannot delete a protected resource: set protect: false and run up first, or remove it from the state`);
    const keyOf = (r: StateResource) => (r.pendingDelete ? pendingDeleteKey(r.urn, r.id) : r.urn);
    const order = new Map(doomed.map((r, i) => [keyOf(r), i]));
    const going = new Set(doomed.filter((r) => !r.pendingDelete).map((r) => r.urn));
    // Who depends on whom, indexed once (a scan of every resource for each would be quadratic).
    const dependents = new Map<string, StateResource[]>();
    for (const d of doomed) for (const dep of d.dependencies ?? []) dependents.set(dep, [...(dependents.get(dep) ?? []), d]);
    const done = new Map<string, Promise<boolean>>();
    const remove = (r: StateResource): Promise<boolean> => {
      const key = keyOf(r);
      let p = done.get(key);
      if (!p) {
        p = (async () => {
          const waits = await Promise.all((r.pendingDelete ? [] : dependents.get(r.urn) ?? []).filter((d) => d !== r).map(remove));
          if (waits.includes(false)) return false;
          const stateOnly = r.retainOnDelete ? "retainOnDelete" : r.deletedWith && going.has(r.deletedWith) ? "deletedWith" : undefined;
          try {
            if (!stateOnly) await this.limiter.run(() => host.delete(r.urn, r.id, r.outputs, r.inputs));
            this.state.delete(key);
            steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, ...(r.pendingDelete ? { pendingDelete: true } : {}), ...(stateOnly ? { stateOnly } : {}) });
            return true;
          } catch (e) {
            errors.push(`${r.urn}: delete${r.pendingDelete ? ` of the replaced object ${r.id}` : ""} failed: ${(e as Error).message}`);
            return false;
          }
        })();
        done.set(key, p);
      }
      return p;
    };
    await Promise.all([...doomed].sort((a, b) => order.get(keyOf(b))! - order.get(keyOf(a))!).map(remove));
    return errors;
  }

  async close(): Promise<void> {
    await this.host?.close();
    this.host = undefined;
  }
}

/** Counts steps by operation, e.g. `{ create: 3 }`. */
export function summarize(steps: Step[]): Partial<Record<StepOp, number>> {
  const out: Partial<Record<StepOp, number>> = {};
  for (const s of steps) out[s.op] = (out[s.op] ?? 0) + 1;
  return out;
}

