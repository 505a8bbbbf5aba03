/**
 * The provider plugin's door (ARCHITECTURE.md, "Bird's eye view"): `pulumirpc.ResourceProvider` served over gRPC, each call
 * translated into the machines' own and back. The dynamic resources' host is the other door to the
 * same machines; behaviour lives there, and this file only translates:
 * - property bags: secrets unmarked on the way in and marked on the way out (a property is secret
 *   when the program gave it as one, or when its type declares it so), unknowns passed as they are;
 * - `Diff`: the machine's changed inputs as a detailed diff (each with its kind, replacing or not);
 * - `Create` and `Update` in a preview (the engine sends them once `Handshake` is answered, design
 *   §15): the machine's plan, with nothing sent;
 * - `Read`: inputs beside the outputs, so `pulumi import` writes the program and plans no change;
 * - configuration: `CheckConfig`, `DiffConfig` and `Configure` of the package's flat settings;
 * - `Invoke`: the package's functions, their secret results marked.
 */
// The output module, not the SDK's index (see provider/resource.ts).
import { Output } from "@pulumi/pulumi/output";
import { PLUGIN_PACKAGE } from "../config";
import { createContext, OperationContext } from "../context";
import type { Machine } from "../object-machine";
import { machineOf } from "../machine";
import { type AnySpec, isOperationSpec, PLUGIN_TOKEN_PREFIX, shortTypeOf } from "../spec";
import { OWNER_KEY, ownerOfUrn } from "../owner";
import { isSecretReference } from "../secret-ref";
import { isUnknown } from "../unknowns";
import { changedSettings, checkPluginConfig, configTexts, isSecretSetting, movedAddresses, pluginLookup } from "./config";
import { sdkModules, SdkModules } from "./sdk";
import type { PluginIo, RunningPlugin } from "./running";
import { markProps, Props, secretValue, unmark, unmarkProps } from "./values";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** What the plugin serves: found by token, loaded on first use. */
export interface PluginCatalog {
  /** The package's version: `GetPluginInfo` answers it, and errors about unknown tokens name it. */
  version: string;
  /** The package schema, as JSON text. */
  schema(): string;
  /** The spec of a resource type, by its token without the package (`keep:AclPolicy`). */
  resource(type: string): AnySpec | undefined;
  /** A function, by its token without the package (`keep:transformEncode`). */
  fn(name: string): ((args: unknown, ctx: OperationContext) => Promise<unknown>) | undefined;
}

type Callback = (error: unknown, value?: unknown, trailer?: unknown) => void;

/** `keep:AclPolicy` of `keepstack:keep:AclPolicy`, or undefined for another package's token. */
function ownType(token: string): string | undefined {
  return token.startsWith(PLUGIN_TOKEN_PREFIX) ? shortTypeOf(token) : undefined;
}

/** The type token of a request: its `type` field, or the last part of its URN's type. */
function tokenOf(req: { getUrn(): string; getType?(): string }): string {
  const given = req.getType?.();
  if (given) return given;
  const qualified = req.getUrn().split("::")[2] ?? "";
  return qualified.split("$").pop() ?? "";
}

/** Where warnings and information go: the engine's log when one is connected, else standard error. */
class EngineLog {
  private client: any;
  /** Messages sent and not yet acknowledged: a call is answered after its messages arrived, so they show with it. */
  private readonly pending = new Set<Promise<void>>();
  constructor(private readonly sdk: SdkModules) {}

  connect(address: string | undefined): void {
    this.client?.close();
    this.client = address ? new this.sdk.engineRpc.EngineClient(address, this.sdk.grpc.credentials.createInsecure()) : undefined;
  }

  write(severity: "warning" | "info", message: string): void {
    const fallback = () => console.error(severity === "warning" ? `warning: ${message}` : message);
    if (!this.client) return fallback();
    const req = new this.sdk.engine.LogRequest();
    req.setSeverity(severity === "warning" ? this.sdk.engine.LogSeverity.WARNING : this.sdk.engine.LogSeverity.INFO);
    req.setMessage(message);
    const sent = new Promise<void>((resolve) =>
      this.client.log(req, (error: unknown) => {
        if (error) fallback();
        resolve();
      }),
    );
    this.pending.add(sent);
    void sent.then(() => this.pending.delete(sent));
  }

  /** Resolves once every message written so far reached the engine (or fell back to standard error). */
  async delivered(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  close(): void {
    this.client?.close();
  }
}

export class PluginServer {
  private context: OperationContext;
  private readonly machines = new Map<string, { machine: Machine; spec: AnySpec }>();
  private readonly log: EngineLog;

  constructor(
    private readonly catalog: PluginCatalog,
    private readonly sdk: SdkModules = sdkModules(),
    engineAddress?: string,
  ) {
    this.log = new EngineLog(sdk);
    this.log.connect(engineAddress);
    this.context = this.contextOf({});
  }

  private contextOf(texts: Record<string, string>): OperationContext {
    const context = createContext(
      pluginLookup(texts),
      process.env,
      {
        warn: (message) => this.log.write("warning", message),
        info: (message) => this.log.write("info", message),
      },
      "plugin",
    );
    // DiffConfig answers a changed address with a replacement of the provider and its resources.
    return { ...context, addressChangeReplaces: true };
  }

  private typeOf(token: string): { machine: Machine; spec: AnySpec } {
    const type = ownType(token);
    let found = type ? this.machines.get(type) : undefined;
    if (!found) {
      const spec = type ? this.catalog.resource(type) : undefined;
      if (!type || !spec) {
        throw new Error(`${token} is not a resource type of ${PLUGIN_PACKAGE} ${this.catalog.version}: check the type token, or install the version of the package that has it`);
      }
      found = { spec, machine: machineOf(spec, () => this.context) };
      this.machines.set(type, found);
    }
    return found;
  }

  private struct(props: Props): any {
    return this.sdk.struct.Struct.fromJavaScript(props);
  }

  /**
   * The inputs of a type's object that are secret: those given as secrets, and those its type
   * declares secret (one given as a reference stays plain: it is no credential).
   */
  private secretInputs(spec: AnySpec, props: Props, given: Iterable<string>): Set<string> {
    const keys = new Set(given);
    for (const key of spec.secretInputs ?? []) if (props[key] !== undefined && !isSecretReference(props[key])) keys.add(key);
    return keys;
  }

  /** The outputs of a type's object that are secret: its secret inputs, and the outputs its type declares secret. */
  private secretKeys(spec: AnySpec, props: Props, given: Iterable<string>): Set<string> {
    return new Set([...this.secretInputs(spec, props, given), ...(spec.secretOutputs ?? [])]);
  }

  /** The inputs a program declares, of a type's outputs (what `Read` answers beside them). */
  private inputsOf(machine: Machine, outputs: Props): Props {
    const inputs: Props = {};
    for (const key of machine.inputKeys) if (outputs[key] !== undefined) inputs[key] = outputs[key];
    return inputs;
  }

  /** Answers a call, turning a thrown error into the gRPC error the engine shows (a created-but-failed object kept). */
  private answer(callback: Callback, work: () => Promise<unknown>, failed?: (e: any) => any): void {
    work().then(
      async (value) => {
        await this.log.delivered();
        callback(null, value);
      },
      async (e: any) => {
        await this.log.delivered();
        const error = failed?.(e) ?? { code: this.sdk.grpc.status.UNKNOWN, details: e instanceof Error ? e.message : String(e) };
        callback(error, null, error.metadata);
      },
    );
  }

  /** The service implementation, method by method, as `@grpc/grpc-js` takes it. */
  service(): Record<string, (call: any, callback: Callback) => void> {
    const { provider: proto, empty, plugin } = this.sdk;
    const unimplemented = (what: string) => (_call: any, callback: Callback) =>
      callback({ code: this.sdk.grpc.status.UNIMPLEMENTED, details: `${PLUGIN_PACKAGE} does not implement ${what}` });

    return {
      handshake: (call, callback) =>
        this.answer(callback, async () => {
          this.log.connect(call.request.getEngineAddress() || undefined);
          const resp = new proto.ProviderHandshakeResponse();
          resp.setAcceptSecrets(true);
          resp.setAcceptResources(false);
          resp.setAcceptOutputs(false);
          return resp;
        }),

      getPluginInfo: (_call, callback) =>
        this.answer(callback, async () => {
          const info = new plugin.PluginInfo();
          info.setVersion(this.catalog.version);
          return info;
        }),

      attach: (call, callback) =>
        this.answer(callback, async () => {
          this.log.connect(call.request.getAddress() || undefined);
          return new empty.Empty();
        }),

      cancel: (_call, callback) => callback(null, new empty.Empty()),

      getSchema: (call, callback) =>
        this.answer(callback, async () => {
          const version = call.request.getVersion();
          if (version !== 0) throw new Error(`${PLUGIN_PACKAGE} serves schema version 0, not ${version}`);
          const resp = new proto.GetSchemaResponse();
          resp.setSchema(this.catalog.schema());
          return resp;
        }),

      checkConfig: (call, callback) =>
        this.answer(callback, async () => {
          const news = unmarkProps(call.request.getNews()?.toJavaScript());
          const resp = new proto.CheckResponse();
          const secrets = [...news.secrets, ...Object.keys(news.plain).filter(isSecretSetting)];
          resp.setInputs(this.struct(markProps(news.plain, secrets)));
          resp.setFailuresList(checkPluginConfig(news.plain).map((f) => this.failure(f)));
          return resp;
        }),

      diffConfig: (call, callback) =>
        this.answer(callback, async () => {
          const olds = unmarkProps(call.request.getOldInputs()?.toJavaScript() ?? call.request.getOlds()?.toJavaScript()).plain;
          const news = unmarkProps(call.request.getNews()?.toJavaScript()).plain;
          const changed = changedSettings(olds, news);
          const unknown = Object.values(news).some(isUnknown);
          // Another cluster: the objects stay where they are, so the engine replaces them (the old
          // ones deleted with the old settings, the new ones made with the new).
          const moved = unknown ? [] : movedAddresses(olds, news);
          const resp = new proto.DiffResponse();
          resp.setChanges(changed.length || unknown ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
          resp.setDiffsList(changed);
          resp.setReplacesList(moved);
          for (const key of changed) resp.getDetaileddiffMap().set(key, this.propertyDiff(olds[key], news[key], moved.includes(key)));
          resp.setHasdetaileddiff(true);
          return resp;
        }),

      configure: (call, callback) =>
        this.answer(callback, async () => {
          const req = call.request;
          let values: Props;
          if (req.hasArgs()) values = unmarkProps(req.getArgs().toJavaScript()).plain;
          else {
            // Engines that send only variables name them `keepstack:config:<key>`.
            values = {};
            req.getVariablesMap().forEach((value: string, key: string) => (values[key.replace(/^[^:]+:config:/, "")] = value));
          }
          this.context = this.contextOf(configTexts(values));
          const resp = new proto.ConfigureResponse();
          resp.setAcceptsecrets(true);
          resp.setSupportspreview(true);
          resp.setAcceptresources(false);
          resp.setAcceptoutputs(false);
          return resp;
        }),

      check: (call, callback) =>
        this.answer(callback, async () => {
          const req = call.request;
          const { machine, spec } = this.typeOf(tokenOf(req));
          const news = unmarkProps(req.getNews()?.toJavaScript());
          const olds = unmarkProps(req.getOlds()?.toJavaScript()).plain;
          // Which stack's resource declares the object, as the dynamic class passes it (one owner).
          const owner = isOperationSpec(spec) ? undefined : ownerOfUrn(req.getUrn());
          const { inputs, failures } = await machine.check(olds, owner ? { ...news.plain, [OWNER_KEY]: owner } : news.plain);
          const resp = new proto.CheckResponse();
          resp.setInputs(this.struct(markProps(inputs, this.secretInputs(spec, inputs, news.secrets))));
          resp.setFailuresList(failures.map((f) => this.failure(f)));
          return resp;
        }),

      diff: (call, callback) =>
        this.answer(callback, async () => {
          const req = call.request;
          const { machine } = this.typeOf(tokenOf(req));
          const olds = unmarkProps(req.getOlds()?.toJavaScript()).plain;
          const oldInputs = req.hasOldInputs() ? unmarkProps(req.getOldInputs().toJavaScript()).plain : olds;
          const news = unmarkProps(req.getNews()?.toJavaScript()).plain;
          const ignored = new Set<string>(req.getIgnorechangesList());
          const result = await machine.diff(req.getId(), olds, news);
          const diffs = result.diffs.filter((k) => !ignored.has(k));
          const replaces = result.replaces.filter((k) => !ignored.has(k));
          const resp = new proto.DiffResponse();
          resp.setChanges(diffs.length ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
          resp.setDiffsList(diffs);
          resp.setReplacesList(replaces);
          resp.setStablesList(result.stables);
          resp.setDeletebeforereplace(result.deleteBeforeReplace);
          for (const key of diffs) resp.getDetaileddiffMap().set(key, this.propertyDiff(oldInputs[key], news[key], replaces.includes(key)));
          resp.setHasdetaileddiff(true);
          return resp;
        }),

      create: (call, callback) =>
        this.answer(
          callback,
          async () => {
            const req = call.request;
            const { machine, spec } = this.typeOf(tokenOf(req));
            const props = unmarkProps(req.getProperties()?.toJavaScript());
            // The engine asks a plugin that answers Handshake to create in a preview too: nothing is sent then.
            const { id, outs } = req.getPreview() ? { id: "", outs: machine.plan(props.plain) } : await machine.create(props.plain);
            const resp = new proto.CreateResponse();
            resp.setId(id);
            resp.setProperties(this.struct(markProps(outs, this.secretKeys(spec, outs, props.secrets))));
            return resp;
          },
          (e) => this.initFailure(call.request, e),
        ),

      read: (call, callback) =>
        this.answer(callback, async () => {
          const req = call.request;
          const { machine, spec } = this.typeOf(tokenOf(req));
          const props = unmarkProps(req.getProperties()?.toJavaScript());
          const inputs = unmarkProps(req.getInputs()?.toJavaScript());
          // A `get` sends inputs only; an import sends neither: the ID is all there is.
          const prior = Object.keys(props.plain).length ? props.plain : inputs.plain;
          const result = await machine.read(req.getId(), prior);
          const resp = new proto.ReadResponse();
          resp.setId(result.id);
          if (!result.id) return resp;
          const given = [...props.secrets, ...inputs.secrets];
          const read = this.inputsOf(machine, result.props);
          resp.setProperties(this.struct(markProps(result.props, this.secretKeys(spec, result.props, given))));
          resp.setInputs(this.struct(markProps(read, this.secretInputs(spec, read, given))));
          return resp;
        }),

      update: (call, callback) =>
        this.answer(
          callback,
          async () => {
            const req = call.request;
            const { machine, spec } = this.typeOf(tokenOf(req));
            const olds = unmarkProps(req.getOlds()?.toJavaScript());
            const news = unmarkProps(req.getNews()?.toJavaScript());
            const { outs } = req.getPreview() ? { outs: machine.plan(news.plain) } : await machine.update(req.getId(), olds.plain, news.plain);
            const resp = new proto.UpdateResponse();
            resp.setProperties(this.struct(markProps(outs, this.secretKeys(spec, outs, news.secrets))));
            return resp;
          },
          (e) => this.initFailure(call.request, e),
        ),

      delete: (call, callback) =>
        this.answer(callback, async () => {
          const req = call.request;
          const { machine } = this.typeOf(tokenOf(req));
          await machine.delete(req.getId(), unmarkProps(req.getProperties()?.toJavaScript()).plain);
          return new empty.Empty();
        }),

      invoke: (call, callback) =>
        this.answer(callback, async () => {
          const req = call.request;
          const token: string = req.getTok();
          const name = ownType(token);
          const fn = name ? this.catalog.fn(name) : undefined;
          if (!fn) throw new Error(`${token} is not a function of ${PLUGIN_PACKAGE} ${this.catalog.version}: check the function token, or install the version of the package that has it`);
          const args = unmark(req.getArgs()?.toJavaScript() ?? {}).plain;
          const result = await resolveOutputs(await fn(args, this.context));
          const resp = new proto.InvokeResponse();
          resp.setReturn(this.struct(resultObject(result)));
          return resp;
        }),

      parameterize: unimplemented("Parameterize"),
      call: unimplemented("Call (the package has no methods)"),
      construct: unimplemented("Construct (the package has no components)"),
      list: unimplemented("List"),
      getMapping: (_call, callback) => {
        const resp = new proto.GetMappingResponse();
        resp.setProvider("");
        resp.setData(new Uint8Array());
        callback(null, resp);
      },
      getMappings: (_call, callback) => callback(null, new proto.GetMappingsResponse()),
    };
  }

  private failure(f: { property: string; reason: string }): any {
    const failure = new this.sdk.provider.CheckFailure();
    failure.setProperty(f.property);
    failure.setReason(f.reason);
    return failure;
  }

  private propertyDiff(before: unknown, after: unknown, replaces: boolean): any {
    const { Kind } = this.sdk.provider.PropertyDiff;
    const kind = before === undefined ? (replaces ? Kind.ADD_REPLACE : Kind.ADD) : after === undefined ? (replaces ? Kind.DELETE_REPLACE : Kind.DELETE) : replaces ? Kind.UPDATE_REPLACE : Kind.UPDATE;
    const diff = new this.sdk.provider.PropertyDiff();
    diff.setKind(kind);
    diff.setInputdiff(true);
    return diff;
  }

  /** A created-but-failed object (an error with its ID and properties): the engine keeps it in state. */
  private initFailure(req: any, e: any): any {
    if (!e || typeof e !== "object" || typeof e.id !== "string" || !e.id) return undefined;
    const { grpc, provider: proto, status, any } = this.sdk;
    let secrets: Iterable<string> = [];
    let spec: AnySpec | undefined;
    try {
      spec = this.typeOf(tokenOf(req)).spec;
      secrets = this.secretKeys(spec, e.properties ?? {}, unmarkProps(req.getProperties?.()?.toJavaScript() ?? req.getNews?.()?.toJavaScript()).secrets);
    } catch {
      secrets = [];
    }
    const detail = new proto.ErrorResourceInitFailed();
    detail.setId(e.id);
    detail.setProperties(this.struct(markProps(e.properties ?? {}, secrets)));
    detail.setReasonsList(e.reasons ?? []);
    const packed = new any.Any();
    packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const message = e instanceof Error ? e.message : String(e);
    const rpcStatus = new status.Status();
    rpcStatus.setCode(grpc.status.UNKNOWN);
    rpcStatus.setMessage(message);
    rpcStatus.addDetails(packed);
    const metadata = new grpc.Metadata();
    metadata.add("grpc-status-details-bin", Buffer.from(rpcStatus.serializeBinary()));
    return { code: grpc.status.UNKNOWN, details: message, metadata };
  }

  closeLog(): void {
    this.log.close();
  }
}

/**
 * A function's result as plain values: a Pulumi output (a secret credential, a decoded value) is
 * waited for, and marked secret when it is one.
 */
async function resolveOutputs(value: unknown): Promise<unknown> {
  if (Output.isInstance(value)) {
    const output = value as unknown as { promise(): Promise<unknown>; isSecret: Promise<boolean> };
    const [inner, secret] = await Promise.all([output.promise(), output.isSecret]);
    const plain = await resolveOutputs(inner);
    return secret && plain !== undefined ? secretValue(plain) : plain;
  }
  if (Array.isArray(value)) return Promise.all(value.map(resolveOutputs));
  if (value && typeof value === "object") {
    const out: Props = {};
    for (const [k, v] of Object.entries(value)) out[k] = await resolveOutputs(v);
    return out;
  }
  return value;
}

/** A function's answer is an object; a list, a single value or nothing is answered as `result`. */
export function resultObject(result: unknown): Props {
  const plain = unmark(result).plain;
  if (plain && typeof plain === "object" && !Array.isArray(plain)) return result as Props;
  return result === undefined || result === null ? {} : { result };
}

/* eslint-enable @typescript-eslint/no-explicit-any */

/** The arguments the engine starts a plugin with: logging flags, then its own address. */
export function parsePluginArgs(args: readonly string[]): { engineAddress?: string; help: boolean; version: boolean } {
  const positional: string[] = [];
  let help = false;
  let version = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") help = true;
    else if (arg === "--version") version = true;
    // The engine may pass `--logtostderr`, `-v=<level>`, `--logflow` and `--tracing <address>`.
    else if (arg === "--tracing") i++;
    else if (arg.startsWith("-")) continue;
    else positional.push(arg);
  }
  return { engineAddress: positional[0], help, version };
}

export type { PluginIo, RunningPlugin };

const usage = (version: string) => `pulumi-resource-${PLUGIN_PACKAGE} ${version}: the ${PLUGIN_PACKAGE} resource provider plugin of Pulumi.

The Pulumi engine starts it, with the engine's address as its argument, when a program in any
language declares ${PLUGIN_PACKAGE} resources (after \`pulumi package add\`) or when \`pulumi import\`
names them. It listens on 127.0.0.1 and prints its port on the first line of standard output.

  pulumi-resource-${PLUGIN_PACKAGE} <engine-address>   serve the engine (what the engine runs)
  pulumi-resource-${PLUGIN_PACKAGE}                    serve, waiting for the engine to attach:
                                           PULUMI_DEBUG_PROVIDERS=${PLUGIN_PACKAGE}:<port> pulumi up
  pulumi-resource-${PLUGIN_PACKAGE} --version          print the version
`;

/**
 * Serves the plugin as the engine starts it: on 127.0.0.1, its port printed on the first line of
 * standard output, until the engine closes it (SIGINT or SIGTERM) or the process that started it ends.
 */
export async function servePlugin(catalog: PluginCatalog, args: readonly string[], io: PluginIo = { out: process.stdout, err: process.stderr }): Promise<RunningPlugin | undefined> {
  const parsed = parsePluginArgs(args);
  if (parsed.help) {
    io.out.write(usage(catalog.version));
    return undefined;
  }
  if (parsed.version) {
    io.out.write(`${catalog.version}\n`);
    return undefined;
  }
  const sdk = sdkModules();
  // The SDK's own limit for messages between the engine and its plugins.
  const server = new sdk.grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  const door = new PluginServer(catalog, sdk, parsed.engineAddress);
  server.addService(sdk.providerRpc.ResourceProviderService, door.service());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", sdk.grpc.ServerCredentials.createInsecure(), (error: Error | null, bound: number) => (error ? reject(error) : resolve(bound))),
  );
  io.out.write(`${port}\n`);
  if (!parsed.engineAddress) {
    io.err.write(`${usage(catalog.version)}\nListening on 127.0.0.1:${port}, for an engine to attach (PULUMI_DEBUG_PROVIDERS=${PLUGIN_PACKAGE}:${port}); Ctrl-C ends it.\n`);
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      clearInterval(watch);
      door.closeLog();
      const force = setTimeout(() => server.forceShutdown(), 5_000);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    }));
  const exit = () => void close().then(() => process.exit(0));
  process.once("SIGINT", exit);
  process.once("SIGTERM", exit);
  // The engine that started the plugin is gone (it was killed, or crashed): nothing will close it.
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) exit();
  }, 1_000);
  watch.unref();
  return { port, close };
}
