/**
 * A small stand-in for the Pulumi engine, for running programs where the Pulumi CLI is not installed
 * (tests, benchmarks, the quickstart). The program runs with the SDK's mock runtime; each resource
 * goes over gRPC, in the engine's order (Check, Diff, then Create / Update / Replace / Delete, and
 * Read for refresh, `get` and import), to the plugin the engine would start for it:
 * - a dynamic resource (`pulumi-nodejs:dynamic/...`) to the provider host of `@pulumi/pulumi`;
 * - a resource of the package's plugin (`keepstack:...`, what a generated SDK declares) to the
 *   plugin's executable: a default provider configured from the stack's `keepstack:` settings, or an
 *   explicit provider (`pulumi:providers:keepstack`) the program declares, each a process of its own.
 * State is kept between runs, so a session reads as preview → up → change → preview → up → refresh
 * → destroy.
 *
 * What the engine decides the harness decides by the rules of engine-rules.ts, each marked where it
 * applies (`engine rule <name>`); what the engine does that is not there, the harness does not do.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CREATE_JOURNAL_ENV } from "../provider/create-journal";
import { shortTypeOf, TOKEN_PREFIX } from "../provider/spec";
import { invertedDiff, replacingKeys, urnOf, withAdditionalSecrets, withIgnoredChanges } from "./engine-rules";
import { DiffResult, InitError, PropertyChange, ProviderHost } from "./provider-host";
import { catchStrayErrors, collectIfLarge, sdkRuntime } from "./sdk-runtime";
import { containsUnknown, Props, secretKeysOf, stripSecrets, UNKNOWN, withoutProvider, wrapSecrets } from "./wire";

/** The package of the plugin door: its resources' tokens start `keepstack:`, its provider's type is `pulumi:providers:keepstack`. */
const PLUGIN = "keepstack";
const PLUGIN_PROVIDER_TYPE = `pulumi:providers:${PLUGIN}`;

export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "read" | "import";

export interface Step {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Inputs that changed (update and replace). */
  diffs?: string[];
  replaces?: string[];
  /** Each changed property with its kind, as a provider with a detailed diff (the plugin) answers it. */
  detailedDiff?: Record<string, PropertyChange>;
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
  /** Inputs that are secret (the plugin receives them marked). */
  secretInputs?: string[];
  /** The explicit provider (its URN) a resource of the plugin door goes to; the default provider when absent. */
  provider?: string;
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
  /** `ignoreChanges`: the properties a diff leaves alone, a refresh's included. */
  ignoreChanges?: string[];
  /**
   * An object a replacement left behind because its delete failed: kept, marked, and deleted again
   * by the next `up` (after the program's steps) and by `destroy`, as the engine keeps it.
   */
  pendingDelete?: boolean;
}

export interface RunResult {
  steps: Step[];
  /** Stack outputs (plain values; unknown ones are undefined in preview). */
  outputs: Props;
  /** The stack outputs that are secret (the CLI shows them as `[secret]`). */
  secretOutputs?: string[];
  /** Lines the providers printed or logged (warnings). */
  diagnostics: string[];
}

/** An object to import, as `pulumi import` names it (or a line of its `--file`). */
export interface ImportSpec {
  type: string;
  name: string;
  id: string;
  /** The explicit provider's URN; the default provider when absent. */
  provider?: string;
}

/** What an import took into state: the inputs are what the CLI writes as the program's code. */
export interface ImportResult extends RunResult {
  resources: { urn: string; type: string; name: string; id: string; inputs: Props; outputs: Props }[];
}

/** Check failures one per line, as the engine prints them: a property's name first where one is named. */
function failureLines(failures: { property: string; reason: string }[]): string {
  return failures.map((f) => `  ${f.property ? `${f.property}: ` : ""}${f.reason}`).join("\n");
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
  /** Stack configuration, e.g. `{ "keep:address": "http://127.0.0.1:8200" }`; a key without a namespace is the project's. */
  config?: Record<string, string>;
  /** Config keys that are secrets (the program sees them as secrets). */
  secretConfig?: string[];
  /** Project directory the provider host runs in (default: the current directory). */
  cwd?: string;
  /** Environment of the provider host, added to this process's. */
  env?: Record<string, string | undefined>;
  /** Most provider operations at once (the engine's --parallel). */
  parallel?: number;
  /**
   * Report as the CLI does while a run goes: each step as it starts and ends (resource, operation,
   * time taken), and what the providers say meanwhile (a request still waiting for its answer says
   * so every few seconds). `true` writes the lines to standard error; a function takes them.
   */
  progress?: boolean | ((line: string) => void);
  /**
   * Called as each provider operation that may reach a service starts and ends (create, update, the
   * delete of a replaced object, read, import, refresh, delete), with the resource's URN: with
   * `parallel: 1` the requests between the two calls are that resource's.
   */
  onOperation?: (event: OperationEvent) => void;
}

export interface OperationEvent {
  urn: string;
  operation: string;
  phase: "start" | "end";
}

/** The resources a registration depends on, explicitly or through its inputs. */
function dependenciesOf(req: any): string[] {
  const deps = new Set<string>(req.getDependenciesList());
  req.getPropertydependenciesMap().forEach((value: any) => value.getUrnsList().forEach((u: string) => deps.add(u)));
  return [...deps];
}

/** The state key of an object a replacement left behind: beside its resource's, never in its place. */
const pendingDeleteKey = (urn: string, id: string) => `${urn}#pending-delete:${id}`;

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

/** Runs of any engine of this process under way. */
let runsUnderWay = 0;

/** The door of a resource type: the dynamic host, the package's plugin, or neither (a component, another provider). */
function doorOf(type: string): "dynamic" | "plugin" | undefined {
  if (type.startsWith(TOKEN_PREFIX)) return "dynamic";
  if (type.startsWith(`${PLUGIN}:`)) return "plugin";
  return undefined;
}

/** A folder in memory (Linux's /dev/shm) where there is one, else the system's temporary folder. */
function memoryFolder(): string {
  try {
    fs.accessSync("/dev/shm", fs.constants.W_OK);
    return "/dev/shm";
  } catch {
    return os.tmpdir();
  }
}

/** A provider reference (`<urn>::<id>`) as its URN. */
const providerUrnOf = (ref: string): string => ref.slice(0, ref.lastIndexOf("::"));

export class Engine {
  /** Resources in state, in creation order. */
  readonly state = new Map<string, StateResource>();
  /** The dynamic provider host, once a run needed it. */
  private host?: ProviderHost;
  private hostStarting?: Promise<ProviderHost>;
  /** The plugin's processes: the default provider's under "", an explicit provider's under its URN. */
  private readonly plugins = new Map<string, Promise<ProviderHost>>();
  /** Every host started, in order: the run's diagnostics are what they printed or logged. */
  private readonly started: ProviderHost[] = [];
  /** A plugin process never configured, which checks explicit providers' configurations. */
  private configChecker?: Promise<ProviderHost>;
  /** Explicit providers a preview plans (not in the state yet): their checked configuration. */
  private readonly plannedProviders = new Map<string, Props>();
  private readonly limiter: Limiter;
  private readonly options: Required<Pick<EngineOptions, "project" | "stack" | "cwd">> & EngineOptions;

  /** Where progress goes, when asked for. */
  private readonly report?: (line: string) => void;

  /**
   * The create journal of this engine's providers (provider/create-journal.ts): each engine is a
   * machine of its own, as each real-engine project has a Pulumi home of its own. It lives as long as
   * the engine, in memory where the system has a folder for that: on a disk, each delete's removal of
   * an entry written half a minute before (once written back) frees its block, which took a fifth of
   * a 5,000-resource destroy's time.
   */
  private readonly createJournal = path.join(memoryFolder(), `keepstack-harness-creates-${randomUUID()}`);

  /** The environment of the provider hosts: the engine's create journal, then what the engine was given. */
  private hostEnv(): Record<string, string | undefined> {
    return { [CREATE_JOURNAL_ENV]: this.createJournal, ...this.options.env };
  }

  constructor(options: EngineOptions) {
    this.options = { stack: "dev", cwd: process.cwd(), ...options };
    this.options.config = this.namespaced(options.config);
    this.options.secretConfig = options.secretConfig?.map((key) => this.namespacedKey(key));
    this.limiter = new Limiter(options.parallel ?? 16);
    const progress = options.progress;
    this.report = typeof progress === "function" ? progress : progress ? (line) => process.stderr.write(`${line}\n`) : undefined;
  }

  /** A key without a namespace is the project's, as `pulumi config set drAddress` stores it (`<project>:drAddress`). */
  private namespacedKey(key: string): string {
    return key.includes(":") ? key : `${this.options.project}:${key}`;
  }

  private namespaced(config: Record<string, string> | undefined): Record<string, string> | undefined {
    return config && Object.fromEntries(Object.entries(config).map(([key, value]) => [this.namespacedKey(key), value]));
  }

  /** A host started: what it says reaches the progress as it comes. */
  private adopt(host: ProviderHost): ProviderHost {
    this.started.push(host);
    if (this.report) host.onLine = (line) => this.report!(`  ${line}`);
    return host;
  }

  /**
   * Runs one provider operation of a resource, reporting its start and its end (with the time it
   * took) when progress is asked for.
   */
  private async step<T>(operation: string, urn: string, type: string, name: string, work: () => Promise<T>): Promise<T> {
    const observe = this.options.onOperation;
    observe?.({ urn, operation, phase: "start" });
    try {
      if (!this.report) return await work();
      const what = `${operation} ${shortTypeOf(type)} "${name}"`;
      const start = process.hrtime.bigint();
      const took = () => `${(Number(process.hrtime.bigint() - start) / 1e9).toFixed(2)} s`;
      this.report(`${what}...`);
      try {
        const result = await work();
        this.report(`${what}: done in ${took()}`);
        return result;
      } catch (e) {
        this.report(`${what}: failed after ${took()}`);
        throw e;
      }
    } finally {
      observe?.({ urn, operation, phase: "end" });
    }
  }


  /** The provider host's process ID, once a run started it. */
  get hostPid(): number | undefined {
    return this.host?.pid;
  }

  /** What every provider printed or logged so far, in order of their start. */
  diagnostics(): string[] {
    return this.started.flatMap((h) => h.stderr);
  }

  private diagnosticsMark(): Map<ProviderHost, number> {
    return new Map(this.started.map((h) => [h, h.stderr.length]));
  }

  private diagnosticsSince(mark: Map<ProviderHost, number>): string[] {
    return this.started.flatMap((h) => h.stderr.slice(mark.get(h) ?? 0));
  }

  /** The dynamic provider host, started and configured on first use. */
  private provider(): Promise<ProviderHost> {
    if (this.host) return Promise.resolve(this.host);
    this.hostStarting ??= (async () => {
      const host = this.adopt(await ProviderHost.start({ cwd: this.options.cwd, project: this.options.project, env: this.hostEnv() }));
      await host.configure(this.options.config ?? {});
      this.host = host;
      return host;
    })().finally(() => (this.hostStarting = undefined));
    return this.hostStarting;
  }

  /** The URN the engine gives the default provider of the plugin. */
  private get defaultProviderUrn(): string {
    return `urn:pulumi:${this.options.stack}::${this.options.project}::${PLUGIN_PROVIDER_TYPE}::default`;
  }

  /** The default provider's configuration: the stack's `keepstack:` keys, secret ones marked. */
  private defaultProviderInputs(): Props {
    const secret = new Set(this.options.secretConfig ?? []);
    const inputs: Props = {};
    for (const [key, value] of Object.entries(this.options.config ?? {})) {
      if (!key.startsWith(`${PLUGIN}:`)) continue;
      const name = key.slice(PLUGIN.length + 1);
      inputs[name] = value;
      if (secret.has(key)) inputs[name] = wrapSecrets(inputs, [name])[name];
    }
    return inputs;
  }

  /**
   * The plugin process of a provider (the default one when `providerUrn` is absent), started and
   * configured as the engine does (engine rule defaultProvider): `CheckConfig` (its failures fail the
   * run), then `Configure`.
   */
  private plugin(providerUrn?: string): Promise<ProviderHost> {
    const key = providerUrn ?? "";
    let found = this.plugins.get(key);
    if (!found) {
      found = (async () => {
        const host = this.adopt(await ProviderHost.startPlugin({ cwd: this.options.cwd, project: this.options.project, env: this.hostEnv() }));
        const explicit = providerUrn ? this.state.get(providerUrn) : undefined;
        const planned = providerUrn ? this.plannedProviders.get(providerUrn) : undefined;
        if (providerUrn && !explicit && !planned) throw new Error(`${providerUrn}: no such provider in the state`);
        const inputs = planned ?? (explicit ? wrapSecrets(explicit.inputs, explicit.secretInputs ?? []) : this.defaultProviderInputs());
        if (!providerUrn) {
          const checked = await host.checkConfig(this.defaultProviderUrn, {}, inputs);
          if (checked.failures.length) {
            throw new Error(`${this.defaultProviderUrn}: invalid configuration:\n${failureLines(checked.failures)}`);
          }
        }
        await host.configure(inputs);
        return host;
      })();
      // A provider that failed to start is tried again by the next use.
      found.catch(() => this.plugins.delete(key));
      this.plugins.set(key, found);
    }
    return found;
  }

  /** The host a resource in state goes to. */
  private hostOf(r: Pick<StateResource, "type" | "provider">): Promise<ProviderHost> {
    return doorOf(r.type) === "plugin" ? this.plugin(r.provider) : this.provider();
  }

  /** Closes the plugin process of a provider (it is started again, from the state, when next needed). */
  private async closePlugin(providerUrn?: string): Promise<void> {
    const key = providerUrn ?? "";
    const found = this.plugins.get(key);
    this.plugins.delete(key);
    const host = await found?.catch(() => undefined);
    await host?.close();
  }

  /** Replaces the stack configuration, and the providers' environment when given (the hosts are restarted so they see it). */
  async setConfig(config: Record<string, string>, env?: Record<string, string | undefined>): Promise<void> {
    this.options.config = this.namespaced(config);
    if (env) this.options.env = env;
    await this.close();
  }

  preview(program: Program): Promise<RunResult> {
    return this.run("preview", program);
  }

  up(program: Program): Promise<RunResult> {
    return this.run("up", program);
  }

  /** The state as JSON with secrets marked (for assertions that nothing leaks). */
  exportState(): unknown {
    return [...this.state.values()].map((r) => ({ ...r, inputs: wrapSecrets(r.inputs, r.secretInputs ?? []), outputs: wrapSecrets(r.outputs, r.secretOutputs) }));
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
    collectIfLarge();
    const state = sdkRuntime().state;
    runsUnderWay++;
    try {
      if (runsUnderWay > 1 || state.getLocalStore() !== undefined) return await state.withLocalStorage(() => this.runInOwnStore(mode, program));
      (globalThis as { globalStore?: unknown }).globalStore = new state.LocalStore();
      return await this.runInOwnStore(mode, program);
    } finally {
      runsUnderWay--;
      // The SDK keeps the last stack resource in a global too (for older copies of itself): with it,
      // the program's whole resource tree, alive until the next run (50 MB at 2,000 resources).
      if (runsUnderWay === 0) state.setStackResource(undefined);
    }
  }

  private async runInOwnStore(mode: Mode, program: Program): Promise<RunResult> {
    const rt = sdkRuntime();
    const steps: Step[] = [];
    const errors: string[] = [];
    const mark = this.diagnosticsMark();
    const registered = new Set<string>();
    let registeredStackOutputs: Props = {};
    const pending: Promise<unknown>[] = [];
    const preview = mode === "preview";
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
      /**
       * A resource's URN as the engine makes it (engine rule urn): the SDK's mock monitor prefixes the
       * stack's type and keeps only the parent's last type.
       */
      newUrn(parent: string, type: string, name: string): string {
        return urnOf(engine.options.stack, engine.options.project, type, name, parent);
      }

      /** The stack's outputs as the SDK registers them, secrets marked (the run's result has them plain). */
      registerResourceOutputs(req: any, callback: (err: unknown, resp?: unknown) => void) {
        if (req.getUrn().split("::")[2] === "pulumi:pulumi:Stack") registeredStackOutputs = req.getOutputs()?.toJavaScript() ?? {};
        super.registerResourceOutputs(req, callback);
      }

      registerResource(req: any, callback: (err: unknown, resp?: unknown) => void) {
        const work = (async () => {
          const type: string = req.getType();
          const name: string = req.getName();
          const urn: string = this.newUrn(req.getParent(), type, name);
          registered.add(urn);
          let id = "";
          let wire: Props;
          const custom = req.getCustom();
          if (errors.length) {
            // Engine rule stopAtFailure: no new step starts once one has failed.
            wire = req.getObject()?.toJavaScript() ?? {};
          } else if (custom && type === PLUGIN_PROVIDER_TYPE) {
            ({ id, wire } = await engine.limiter.run(() => engine.registerProvider(mode, steps, urn, name, req.getObject()?.toJavaScript() ?? {})));
          } else if (!custom || !doorOf(type)) {
            wire = req.getObject()?.toJavaScript() ?? {};
          } else {
            const provider: string = req.getProvider();
            const result = await engine.limiter.run(() =>
              engine.register(mode, steps, {
                urn,
                type,
                name,
                raw: req.getObject()?.toJavaScript() ?? {},
                additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
                deleteBeforeReplace: req.getDeletebeforereplace(),
                replaceOnChanges: req.getReplaceonchangesList(),
                ignoreChanges: req.getIgnorechangesList(),
                dependencies: dependenciesOf(req),
                importId: req.getImportid() || undefined,
                options: {
                  protect: req.getProtect() || undefined,
                  retainOnDelete: req.getRetainondelete() || undefined,
                  deletedWith: req.getDeletedwith() || undefined,
                  ignoreChanges: req.getIgnorechangesList().length ? req.getIgnorechangesList() : undefined,
                  provider: provider && doorOf(type) === "plugin" ? providerUrnOf(provider) : undefined,
                },
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
          const raw: Props = req.getProperties()?.toJavaScript() ?? {};
          const provider = req.getProvider() && doorOf(type) === "plugin" ? providerUrnOf(req.getProvider()) : undefined;
          const host = await engine.hostOf({ type, provider });
          const plugin = doorOf(type) === "plugin";
          const props = plugin ? raw : stripSecrets(raw);
          const read = await engine.limiter.run(() => engine.step("read", urn, type, name, () => host.read(urn, req.getId(), props, props)));
          if (!read.id) throw new Error(`${urn}: no object with ID "${req.getId()}" exists`);
          // Engine rules readExternal and secretOutputs.
          const secretOutputs = withAdditionalSecrets(secretKeysOf(read.properties), req.getAdditionalsecretoutputsList());
          engine.state.set(urn, { urn, type, name, id: read.id, inputs: stripSecrets(props), outputs: stripSecrets(read.properties), secretOutputs, external: true, provider });
          steps.push({ op: "read", urn, type, name });
          const wire = wrapSecrets(stripSecrets(read.properties), secretOutputs);
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

      invoke(req: any, callback: (err: unknown, resp?: unknown) => void) {
        const token: string = req.getTok();
        if (doorOf(token) !== "plugin") return super.invoke(req, callback);
        (async () => {
          const provider = req.getProvider() ? providerUrnOf(req.getProvider()) : undefined;
          const host = await engine.plugin(provider);
          const { result, failures } = await engine.limiter.run(() => host.invoke(token, req.getArgs()?.toJavaScript() ?? {}));
          if (failures.length) throw new Error(`${token}: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
          const resp = new rt.resproto.ResourceInvokeResponse();
          resp.setReturn(rt.structproto.Struct.fromJavaScript(result));
          return resp;
        })().then(
          (resp) => callback(null, resp),
          // The SDK reads a failed invoke's message from the gRPC error's details, as the engine sends it.
          (e: Error) => callback(Object.assign(e, { details: e.message })),
        );
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
      // The monitor stays in the store until the next run: not the answers it gave.
      pending.length = 0;
    } finally {
      await stopCatching();
    }

    // Engine rules deletes and pendingDelete: objects in state that the program no longer declares
    // are deleted, dependents first, and so are the objects earlier replacements left behind (which a
    // preview does not show). Engine rule readExternal: one read with `get` only leaves the state.
    if (!errors.length) {
      const gone = [...this.state.values()].filter((r) => !registered.has(r.urn) && !r.pendingDelete);
      for (const r of gone) if (r.external && !preview) this.state.delete(r.urn);
      const managed = gone.filter((r) => !r.external);
      const leftBehind = [...this.state.values()].filter((r) => r.pendingDelete);
      const guarded = managed.filter((r) => r.protect);
      if (preview && guarded.length) errors.push(...guarded.map((r) => `${r.urn}: cannot delete a protected resource: set protect: false and run up first, or remove it from the state`));
      else if (preview) managed.forEach((r) => steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name }));
      else errors.push(...(await this.deleteAll([...managed, ...leftBehind], steps)));
    }
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: stripSecrets(outputs), secretOutputs: secretKeysOf(registeredStackOutputs), diagnostics: this.diagnosticsSince(mark) };
  }

  /**
   * An explicit provider of the plugin (`pulumi:providers:keepstack`), engine rule explicitProvider:
   * its configuration checked by the plugin (`CheckConfig`, then `DiffConfig` against the state),
   * then a plugin process of its own configured with it. A changed configuration starts a new process.
   */
  private async registerProvider(mode: Mode, steps: Step[], urn: string, name: string, raw: Props): Promise<{ id: string; wire: Props }> {
    const type = PLUGIN_PROVIDER_TYPE;
    const old = this.state.get(urn);
    this.configChecker ??= ProviderHost.startPlugin({ cwd: this.options.cwd, project: this.options.project, env: this.hostEnv() }).then((host) => this.adopt(host));
    const checker = await this.configChecker;
    const oldInputs = old ? wrapSecrets(old.inputs, old.secretInputs ?? []) : {};
    const result = await checker.checkConfig(urn, oldInputs, raw);
    if (result.failures.length) throw new Error(`${urn}: invalid configuration:\n${failureLines(result.failures)}`);
    const checked = result.inputs;
    const diff = old ? await checker.diffConfig(urn, oldInputs, checked) : undefined;
    const inputs = stripSecrets(checked) as Props;
    const secretInputs = secretKeysOf(checked);
    if (old && diff?.changes === "none") {
      steps.push({ op: "same", urn, type, name, inputs });
      return { id: old.id, wire: checked };
    }
    steps.push({ op: old ? "update" : "create", urn, type, name, inputs, ...(diff ? { diffs: diff.diffs, detailedDiff: diff.detailedDiff } : {}) });
    if (mode === "preview") {
      // The preview's resources of this provider are checked by a process configured as planned.
      await this.closePlugin(urn);
      this.plannedProviders.set(urn, checked);
      return { id: old?.id ?? UNKNOWN, wire: checked };
    }
    this.plannedProviders.delete(urn);
    const id = old?.id ?? randomUUID();
    this.state.set(urn, { urn, type, name, id, inputs, outputs: inputs, secretOutputs: secretInputs, secretInputs });
    await this.closePlugin(urn);
    return { id, wire: checked };
  }

  private async register(
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
      /** The `import` option, which the harness refuses (see engine-rules.ts). */
      importId?: string;
      /** Set afresh by each registration, every key present: a removed option is off again. */
      options: Pick<StateResource, "protect" | "retainOnDelete" | "deletedWith" | "provider" | "ignoreChanges">;
    },
  ): Promise<{ id: string; wire: Props }> {
    const { urn, type, name } = reg;
    const preview = mode === "preview";
    const plugin = doorOf(type) === "plugin";
    const old = this.state.get(urn);
    if (reg.importId && !old) throw new Error(`${urn}: the import resource option is not run by this harness: run the program with the Pulumi CLI, or import with \`pulumi import\` (Engine.import)`);
    const host = await (plugin ? this.plugin(reg.options.provider) : this.provider());
    const givenSecrets = secretKeysOf(reg.raw);
    const news = stripSecrets(reg.raw) as Props;
    // Engine rule plainInputs: the plugin takes secrets marked; the dynamic host takes them plain.
    const send = (props: Props, secrets: string[] | undefined) => (plugin ? wrapSecrets(props, secrets ?? []) : props);

    // Engine rules ignoreChanges, then checkThenDiff.
    const checked = await host.check(urn, old ? send(old.inputs, old.secretInputs) : {}, send(withIgnoredChanges(news, old?.inputs, reg.ignoreChanges), givenSecrets));
    if (checked.failures.length) {
      throw new Error(`${urn}: invalid inputs:\n${failureLines(checked.failures)}`);
    }
    const inputs = stripSecrets(checked.inputs) as Props;
    const secretInputs = plugin ? secretKeysOf(checked.inputs) : givenSecrets;
    /** Engine rule secretOutputs: as the plugin marked them for the plugin, by the inputs' secrets for the dynamic host. */
    const secretsOf = (outputs: Props) => withAdditionalSecrets(plugin ? secretKeysOf(outputs) : givenSecrets, reg.additionalSecretOutputs);
    const planned = withAdditionalSecrets(givenSecrets, reg.additionalSecretOutputs);
    const answer = (id: string, outputs: Props, secretOutputs: string[]) => ({ id, wire: wrapSecrets(outputs, secretOutputs) });
    const remember = (id: string, outputs: Props, secretOutputs: string[]) =>
      this.state.set(urn, { urn, type, name, id, inputs, outputs, secretOutputs, secretInputs, dependencies: reg.dependencies, ...reg.options });

    const create = async (): Promise<{ id: string; outputs: Props; secretOutputs: string[] }> => {
      try {
        const created = await this.step("create", urn, type, name, () => host.create(urn, send(inputs, secretInputs)));
        return { id: created.id, outputs: stripSecrets(created.properties), secretOutputs: secretsOf(created.properties) };
      } catch (e) {
        // Engine rule initErrors: the object made stays in the state.
        if (e instanceof InitError) {
          this.state.set(urn, { urn, type, name, id: e.id, inputs, outputs: stripSecrets(e.properties), secretOutputs: secretsOf(e.properties), secretInputs, initErrors: e.reasons, dependencies: reg.dependencies, ...reg.options });
        }
        // The provider's message names the operation (`keep:AclPolicy "readers": create failed: ...`), as the engine shows it.
        throw new Error(`${urn}: ${(e as Error).message}`);
      }
    };

    if (!old) {
      steps.push({ op: "create", urn, type, name, inputs: withoutProvider(inputs) });
      if (preview) return answer("", inputs, planned);
      const { id, outputs, secretOutputs } = await create();
      remember(id, outputs, secretOutputs);
      return answer(id, outputs, secretOutputs);
    }

    const diff = await host.diff(urn, old.id, send(old.outputs, old.secretOutputs), send(inputs, secretInputs), send(old.inputs, old.secretInputs), reg.ignoreChanges);
    const diffs = diff.detailedDiff
      ? diff.diffs
      : Object.keys(withoutProvider({ ...old.inputs, ...inputs })).filter(
          (k) => JSON.stringify(old.outputs[k]) !== JSON.stringify(inputs[k]) || containsUnknown(inputs[k]),
        );
    // Engine rule replaceOnChanges.
    const replaces = replacingKeys(diff.replaces, diffs, reg.replaceOnChanges);
    const detail = diff.detailedDiff ? { detailedDiff: diff.detailedDiff } : {};
    // Engine rules sameStep and initErrors.
    if (diff.changes === "none" && !old.initErrors) {
      steps.push({ op: "same", urn, type, name, inputs: withoutProvider(inputs) });
      // Engine rule sameStep: the ID and outputs stay, the inputs are the program's (a refresh may have
      // left the old ones behind). A preview writes no state.
      if (!preview) this.state.set(urn, { ...old, inputs, secretInputs, secretOutputs: withAdditionalSecrets(old.secretOutputs, reg.additionalSecretOutputs), dependencies: reg.dependencies, ...reg.options });
      return answer(old.id, old.outputs, preview ? old.secretOutputs : this.state.get(urn)!.secretOutputs);
    }
    if (replaces.length) {
      // Engine rule protect: a protected resource is not replaced (its old half would be deleted).
      if (old.protect) throw new Error(`${urn}: cannot replace a protected resource (changes to ${replaces.join(", ")} replace it): set protect: false and run up first`);
      steps.push({ op: "replace", urn, type, name, diffs, replaces, ...detail, inputs: withoutProvider(inputs) });
      if (preview) return answer("", inputs, planned);
      const deleteOld = async () => {
        if (old.retainOnDelete) return;
        await this.step("delete the replaced", urn, type, name, () => host.delete(urn, old.id, send(old.outputs, old.secretOutputs), send(old.inputs, old.secretInputs))).catch((e: Error) => {
          throw new Error(`${urn}: the replaced object ${old.id}: ${e.message}`);
        });
      };
      // Engine rule replacement.
      if (diff.deleteBeforeReplace || reg.deleteBeforeReplace) {
        await deleteOld();
        this.state.delete(urn);
        const { id, outputs, secretOutputs } = await create();
        remember(id, outputs, secretOutputs);
        return answer(id, outputs, secretOutputs);
      }
      const { id, outputs, secretOutputs } = await create().catch((e: unknown) => {
        // Engine rule pendingDelete: a replacement made but failed (kept in state) marks the old
        // object for deletion; it stays in the state until the next up or destroy deletes it.
        if (this.state.get(urn) !== old) this.state.set(pendingDeleteKey(urn, old.id), { ...old, pendingDelete: true });
        throw e;
      });
      remember(id, outputs, secretOutputs);
      try {
        await deleteOld();
      } catch (e) {
        // The old object stays in the state, marked for deletion: the next up and destroy delete it.
        this.state.set(pendingDeleteKey(urn, old.id), { ...old, pendingDelete: true });
        const said = (e as Error).message.replace(`${urn}: the replaced object ${old.id}: `, "");
        throw new Error(`${urn}: the replaced object ${old.id} could not be deleted (it stays in the state, to be deleted by the next up): ${said}`);
      }
      return answer(id, outputs, secretOutputs);
    }
    steps.push({ op: "update", urn, type, name, diffs, ...detail, inputs: withoutProvider(inputs) });
    if (preview) return answer(old.id, { ...old.outputs, ...inputs }, [...new Set([...old.secretOutputs, ...planned])]);
    const updated = await this.step("update", urn, type, name, () => host.update(urn, old.id, send(old.outputs, old.secretOutputs), send(inputs, secretInputs), send(old.inputs, old.secretInputs))).catch((e: Error) => {
      throw new Error(`${urn}: ${e.message}`);
    });
    const outputs = stripSecrets(updated.properties);
    const secretOutputs = secretsOf(updated.properties);
    remember(old.id, outputs, secretOutputs);
    return answer(old.id, outputs, secretOutputs);
  }

  /**
   * What `pulumi import` does for each object (a line of its `--file`): the provider reads it by its
   * ID alone and answers its inputs, which the engine checks and diffs against what it read (any
   * difference fails the import) before it takes the object into state. The inputs are the program
   * the CLI writes (engine rule importCommand). Only the plugin can answer this: a dynamic resource
   * has no provider before it is in state.
   */
  async import(objects: ImportSpec[]): Promise<ImportResult> {
    collectIfLarge();
    const steps: Step[] = [];
    const errors: string[] = [];
    const resources: ImportResult["resources"] = [];
    const mark = this.diagnosticsMark();
    for (const object of objects) {
      // As the CLI does, an imported object's parent is the stack: its URN is the one the program's declaration gets.
      const urn = urnOf(this.options.stack, this.options.project, object.type, object.name);
      try {
        if (doorOf(object.type) !== "plugin") throw new Error(`${object.type} cannot be imported: only the ${PLUGIN} plugin's resources answer a read by ID alone`);
        if (this.state.has(urn)) throw new Error("a resource of this name is in the state already");
        const host = await this.plugin(object.provider);
        const read = await this.limiter.run(() => this.step("import", urn, object.type, object.name, () => host.read(urn, object.id, {}, {})));
        if (!read.id) throw new Error(`no object with ID "${object.id}" exists`);
        const readInputs = read.inputs ?? {};
        const checked = await host.check(urn, {}, readInputs);
        // The CLI imports what fails its check too, warning that the program needs what is missing.
        for (const f of checked.failures) steps.push({ op: "import", urn, type: object.type, name: object.name, diffs: [`${f.property}: ${f.reason}`] });
        const diff = await host.diff(urn, read.id, read.properties, checked.inputs, readInputs);
        if (diff.changes !== "none") throw new Error(`the inputs read do not match the object read (${diff.diffs.join(", ")})`);
        const inputs = stripSecrets(checked.inputs) as Props;
        const outputs = stripSecrets(read.properties) as Props;
        this.state.set(urn, {
          urn,
          type: object.type,
          name: object.name,
          id: read.id,
          inputs,
          outputs,
          secretOutputs: secretKeysOf(read.properties),
          secretInputs: secretKeysOf(checked.inputs),
          provider: object.provider,
        });
        // The CLI writes the program from the schema's input properties (engine rule importCommand): a
        // provider's hidden keys (`__address`) are state, never code.
        const code = Object.fromEntries(Object.entries(inputs).filter(([key]) => !key.startsWith("__")));
        steps.push({ op: "import", urn, type: object.type, name: object.name, inputs: code });
        resources.push({ urn, type: object.type, name: object.name, id: read.id, inputs: code, outputs });
      } catch (e) {
        errors.push(`${urn}: import failed: ${(e as Error).message}`);
      }
    }
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: {}, diagnostics: this.diagnosticsSince(mark), resources };
  }

  /** Reads every resource in state back from its service; objects that are gone leave the state (engine rule refreshStep). */
  async refresh(): Promise<RunResult> {
    collectIfLarge();
    const steps: Step[] = [];
    const errors: string[] = [];
    const mark = this.diagnosticsMark();
    await Promise.all(
      [...this.state.values()]
        .filter((r) => r.type !== PLUGIN_PROVIDER_TYPE)
        .map((r) =>
          this.limiter.run(async () => {
            const key = r.pendingDelete ? pendingDeleteKey(r.urn, r.id) : r.urn;
            try {
              const host = await this.hostOf(r);
              const plugin = doorOf(r.type) === "plugin";
              const read = await this.step("refresh", r.urn, r.type, r.name, () =>
                plugin ? host.read(r.urn, r.id, wrapSecrets(r.outputs, r.secretOutputs), wrapSecrets(r.inputs, r.secretInputs ?? [])) : host.read(r.urn, r.id, r.outputs, r.inputs),
              );
              if (!read.id) {
                this.state.delete(key);
                steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, ...(r.pendingDelete ? { pendingDelete: true } : {}) });
                return;
              }
              const outputs = stripSecrets(read.properties) as Props;
              const inputs = read.inputs ? (stripSecrets(read.inputs) as Props) : r.inputs;
              const changedOutputs = Object.keys(withoutProvider({ ...r.outputs, ...outputs })).filter((k) => JSON.stringify(r.outputs[k]) !== JSON.stringify(outputs[k]));
              const secrets = plugin ? { secretOutputs: [...new Set([...r.secretOutputs, ...secretKeysOf(read.properties)])], secretInputs: read.inputs ? secretKeysOf(read.inputs) : r.secretInputs } : {};
              this.state.set(key, { ...r, id: read.id, outputs, inputs, ...secrets });
              steps.push({ urn: r.urn, type: r.type, name: r.name, ...(await this.refreshResult(host, r, read.id, outputs, inputs, secrets, changedOutputs)) });
            } catch (e) {
              errors.push(`${r.urn}: refresh failed: ${(e as Error).message}`);
            }
          }),
        ),
    );
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: {}, diagnostics: this.diagnosticsSince(mark) };
  }

  /**
   * What a refresh step reports (engine rule refreshStep): the provider is asked for the diff an `up`
   * of an unchanged program would plan right after the refresh (the read state as the old one, the
   * inputs in state before it as the new ones), and that diff inverted is the step's. `diffs` names the
   * provider's changed properties where it answers them (the plugin), else the outputs that changed
   * (what the dynamic host cannot say; the CLI's display shows them).
   */
  private async refreshResult(
    host: ProviderHost,
    r: StateResource,
    id: string,
    outputs: Props,
    inputs: Props,
    secrets: Partial<Pick<StateResource, "secretOutputs" | "secretInputs">>,
    changedOutputs: string[],
  ): Promise<Pick<Step, "op" | "diffs" | "detailedDiff">> {
    if (r.external) return { op: changedOutputs.length ? "update" : "same", diffs: changedOutputs };
    const plugin = doorOf(r.type) === "plugin";
    const diff = plugin
      ? await host.diff(r.urn, id, wrapSecrets(outputs, secrets.secretOutputs ?? r.secretOutputs), wrapSecrets(r.inputs, r.secretInputs ?? []), wrapSecrets(inputs, secrets.secretInputs ?? []), r.ignoreChanges)
      : await host.diff(r.urn, id, outputs, r.inputs, inputs, r.ignoreChanges);
    const changed = diff.changes === "unknown" ? JSON.stringify(withoutProvider(inputs)) !== JSON.stringify(withoutProvider(r.inputs)) : diff.changes === "some";
    const detailedDiff = diff.detailedDiff && changed ? { detailedDiff: invertedDiff(diff.detailedDiff) } : {};
    return { op: changed ? "update" : "same", diffs: plugin ? (changed ? diff.diffs : []) : changedOutputs, ...detailedDiff };
  }

  /** Deletes every resource in state, dependents before what they depend on, in parallel otherwise. */
  async destroy(): Promise<RunResult> {
    collectIfLarge();
    const steps: Step[] = [];
    const mark = this.diagnosticsMark();
    for (const r of this.state.values()) if (r.external) this.state.delete(r.urn);
    const errors = await this.deleteAll([...this.state.values()], steps);
    if (errors.length) throw new EngineError(errors, steps);
    return { steps, outputs: {}, diagnostics: this.diagnosticsSince(mark) };
  }

  /**
   * Deletes `doomed` (engine rule deletes): a resource waits for every doomed resource that depends on
   * it (an explicit provider, for every resource it serves); the rest run in parallel.
   */
  private async deleteAll(doomed: StateResource[], steps: Step[]): Promise<string[]> {
    const errors: string[] = [];
    // Engine rule protect: nothing is deleted when a protected resource would have to be.
    const guarded = doomed.filter((r) => r.protect);
    if (guarded.length) return guarded.map((r) => `${r.urn}: cannot delete a protected resource: set protect: false and run up first, or remove it from the state`);
    const keyOf = (r: StateResource) => (r.pendingDelete ? pendingDeleteKey(r.urn, r.id) : r.urn);
    const order = new Map(doomed.map((r, i) => [keyOf(r), i]));
    const going = new Set(doomed.filter((r) => !r.pendingDelete).map((r) => r.urn));
    // Who depends on whom, indexed once (a scan of every resource for each would be quadratic).
    const dependents = new Map<string, StateResource[]>();
    for (const d of doomed) for (const dep of [...(d.dependencies ?? []), ...(d.provider ? [d.provider] : [])]) dependents.set(dep, [...(dependents.get(dep) ?? []), d]);
    const done = new Map<string, Promise<boolean>>();
    const remove = (r: StateResource): Promise<boolean> => {
      const key = keyOf(r);
      let p = done.get(key);
      if (!p) {
        p = (async () => {
          const waits = await Promise.all((r.pendingDelete ? [] : dependents.get(r.urn) ?? []).filter((d) => d !== r).map(remove));
          if (waits.includes(false)) return false;
          // Engine rule stateOnlyDelete.
          const stateOnly = r.retainOnDelete ? "retainOnDelete" : r.deletedWith && going.has(r.deletedWith) ? "deletedWith" : undefined;
          try {
            if (r.type === PLUGIN_PROVIDER_TYPE) await this.closePlugin(r.urn);
            else if (!stateOnly) {
              const host = await this.hostOf(r);
              const plugin = doorOf(r.type) === "plugin";
              await this.limiter.run(() =>
                this.step("delete", r.urn, r.type, r.name, () =>
                  plugin ? host.delete(r.urn, r.id, wrapSecrets(r.outputs, r.secretOutputs), wrapSecrets(r.inputs, r.secretInputs ?? [])) : host.delete(r.urn, r.id, r.outputs, r.inputs),
                ),
              );
            }
            this.state.delete(key);
            steps.push({ op: "delete", urn: r.urn, type: r.type, name: r.name, ...(r.pendingDelete ? { pendingDelete: true } : {}), ...(stateOnly ? { stateOnly } : {}) });
            return true;
          } catch (e) {
            // The provider's message names the operation and the object, as the engine shows it.
            errors.push(`${r.urn}: ${r.pendingDelete ? `the replaced object ${r.id}: ` : ""}${(e as Error).message}`);
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
    fs.rmSync(this.createJournal, { recursive: true, force: true });
    const plugins = [...this.plugins.values(), ...(this.configChecker ? [this.configChecker] : [])];
    const hosts = [this.host, ...(await Promise.all(plugins.map((p) => p.catch(() => undefined))))];
    this.host = undefined;
    this.plugins.clear();
    this.configChecker = undefined;
    this.plannedProviders.clear();
    await Promise.all(hosts.map((h) => h?.close()));
  }
}

/** Counts steps by operation, e.g. `{ create: 3 }`. */
export function summarize(steps: Step[]): Partial<Record<StepOp, number>> {
  const out: Partial<Record<StepOp, number>> = {};
  for (const s of steps) out[s.op] = (out[s.op] ?? 0) + 1;
  return out;
}

