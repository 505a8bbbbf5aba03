/**
 * Starts a provider plugin as the engine does and talks to it over gRPC with the SDK's generated
 * protos: the dynamic provider host that ships in `@pulumi/pulumi` (the process the engine starts as
 * `pulumi-resource-pulumi-nodejs`), or the package's own plugin, `pulumi-resource-keepstack`, run
 * from the installed package's executable. The plugin is given the address of a small engine
 * service of ours, so what it logs reaches the run's diagnostics as the engine shows it.
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { sdkModules, SdkModules } from "../provider/plugin/sdk";

const PACKAGE_NAME = "pulumi-keepstack";
/** The plugin's executable, as the package's `bin` names it. */
export const PLUGIN_EXECUTABLE = "pulumi-resource-keepstack";

/**
 * The shim in state requires `pulumi-keepstack/host` from the project's node_modules, as under the
 * CLI. Checked on disk as Node would from the host's cwd (a test runner's resolver may answer otherwise).
 */
function installedPackage(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const root = path.join(dir, "node_modules", PACKAGE_NAME);
    if (fs.existsSync(path.join(root, "package.json"))) return root;
    if (dir === path.dirname(dir)) break;
  }
  throw new Error(`${PACKAGE_NAME} is not installed in ${cwd} or above: the provider host could not load it`);
}

/** The plugin's executable of the package installed for `cwd`, as its `bin` declares it. */
export function pluginExecutable(cwd: string): string {
  const root = installedPackage(cwd);
  const bin = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).bin?.[PLUGIN_EXECUTABLE];
  if (typeof bin !== "string") throw new Error(`the ${PACKAGE_NAME} installed at ${root} has no ${PLUGIN_EXECUTABLE} executable`);
  return path.join(root, bin);
}

/**
 * The host runs on a lifeline: its standard input is a pipe from the process that started it, and
 * the end of that pipe (the starter gone, however it ended: `process.exit`, a crash, a kill) ends the
 * host too, so no host outlives its test. Then the SDK's host script runs as its main module would
 * (`process.argv` is `[node, script, address]`, as when it is run directly).
 */
const LIFELINE = [
  'process.stdin.on("end", () => process.exit(0));',
  'process.stdin.on("error", () => process.exit(0));',
  "process.stdin.resume();",
  "require(process.argv[1]);",
].join(" ");

let clockTicks: number | undefined;

/** Units of utime and stime in /proc/<pid>/stat (USER_HZ, 100 on most systems). */
function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * CPU time (user + system, all threads) a process has used so far, in milliseconds, from the kernel's
 * accounting of it (`/proc/<pid>/stat`, Linux; resolution one clock tick).
 */
export function processCpuMs(pid: number | string): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may contain spaces; the fields after it start past its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the line, the 12th and 13th after the name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond();
}

export interface CheckResult {
  inputs: Record<string, unknown>;
  failures: { property: string; reason: string }[];
}

/** The kinds of a property's change, as the engine's detailed diff names them. */
export type PropertyChange = "add" | "add-replace" | "delete" | "delete-replace" | "update" | "update-replace";

export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** The properties the provider names as changed (empty when it names none). */
  diffs: string[];
  /** Each changed property with its kind, when the provider answers a detailed diff. */
  detailedDiff?: Record<string, PropertyChange>;
}

/** A create that failed after the object was made: the engine keeps it in state. */
export class InitError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

export interface HostOptions {
  /** Project directory; the host runs there, as under the CLI. */
  cwd: string;
  project: string;
  env?: Record<string, string | undefined>;
}

type Callback<T> = (err: Error | null, value?: T) => void;

/**
 * The engine's own service, as much of it as a plugin uses: its log. What a plugin logs is kept as
 * the lines the engine would show (`warning: ...` for a warning).
 */
async function startEngineService(sdk: SdkModules, heard: (line: string) => void): Promise<{ address: string; close(): void }> {
  const server = new sdk.grpc.Server();
  const empty = () => new sdk.empty.Empty();
  const severity = sdk.engine.LogSeverity;
  server.addService(sdk.engineRpc.EngineService, {
    log: (call: any, callback: Callback<unknown>) => {
      const req = call.request;
      const level = req.getSeverity();
      const prefix = level === severity.WARNING ? "warning: " : level === severity.ERROR ? "error: " : "";
      if (level !== severity.DEBUG) heard(`${prefix}${req.getMessage()}`);
      callback(null, empty());
    },
    getRootResource: (_call: any, callback: Callback<unknown>) => callback(null, new sdk.engine.GetRootResourceResponse()),
    setRootResource: (_call: any, callback: Callback<unknown>) => callback(null, new sdk.engine.SetRootResourceResponse()),
    startDebugging: (_call: any, callback: Callback<unknown>) => callback(null, empty()),
    requirePulumiVersion: (_call: any, callback: Callback<unknown>) => callback(null, empty()),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", sdk.grpc.ServerCredentials.createInsecure(), (e: Error | null, p: number) => (e ? reject(e) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

export class ProviderHost {
  /** Told of each line the host prints or logs, as it comes (the engine's progress). */
  onLine?: (line: string) => void;

  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
    private readonly sdk: SdkModules,
    /** What the host printed on stderr and logged to the engine (warnings of operations). */
    readonly stderr: string[],
    private readonly engineService?: { close(): void },
  ) {}

  /** The dynamic provider host of `@pulumi/pulumi`, which loads the package from the project's node_modules. */
  static async start(options: HostOptions): Promise<ProviderHost> {
    const sdk = sdkModules(options.cwd);
    installedPackage(options.cwd);
    const hostScript = path.join(sdk.sdkRoot, "cmd/dynamic-provider/index.js");
    // KEEPSTACK_HOST_NODE_ARGS: flags for the host's node, such as `--cpu-prof` to profile it.
    const nodeArgs = process.env.KEEPSTACK_HOST_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    return ProviderHost.launch(sdk, options, process.execPath, [...nodeArgs, "-e", LIFELINE, hostScript, "127.0.0.1:0"], { PULUMI_NODEJS_PROJECT: options.project });
  }

  /**
   * The package's plugin, as the engine starts it: the installed package's executable with the
   * engine's address (or `command`, such as the Node.js language host's `run-plugin` of the plugin folder).
   */
  static async startPlugin(options: HostOptions & { command?: { file: string; args: string[] } }): Promise<ProviderHost> {
    const sdk = sdkModules(options.cwd);
    const stderr: string[] = [];
    let started: ProviderHost | undefined;
    // What the plugin logs to the engine is kept, and heard, as what it prints.
    const engine = await startEngineService(sdk, (line) => {
      stderr.push(line);
      started?.onLine?.(line);
    });
    const command = options.command ?? { file: pluginExecutable(options.cwd), args: [] };
    try {
      started = await ProviderHost.launch(sdk, options, command.file, [...command.args, engine.address], {}, engine, stderr);
      return started;
    } catch (e) {
      engine.close();
      throw e;
    }
  }

  private static async launch(
    sdk: SdkModules,
    options: HostOptions,
    file: string,
    args: string[],
    extraEnv: Record<string, string>,
    engineService?: { close(): void },
    stderr: string[] = [],
  ): Promise<ProviderHost> {
    const env = { ...process.env, ...options.env, ...extraEnv };
    const child = spawn(file, args, { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    // The host may end first (close()): a write-side error of the lifeline is no failure.
    child.stdin!.on("error", () => undefined);
    // Lines go to `stderr`, and to the host's listener once it has one.
    let host: ProviderHost | undefined;
    const heard = (line: string) => {
      stderr.push(line);
      host?.onLine?.(line);
    };
    readline.createInterface({ input: child.stderr! }).on("line", heard);
    const port = await new Promise<string>((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout! });
      lines.once("line", (line) => resolve(line.trim()));
      child.once("exit", (code) => reject(new Error(`provider host exited with ${code}: ${stderr.join("\n")}`)));
      child.once("error", reject);
    });
    const client = new sdk.providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, sdk.grpc.credentials.createInsecure());
    host = new ProviderHost(child, client, sdk, stderr, engineService);
    return host;
  }

  /** The host's process ID. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * CPU time (user + system, all threads) the host process has used so far, in milliseconds, from
   * the kernel's accounting of that process (`/proc/<pid>/stat`, Linux; resolution one clock tick).
   */
  cpuTimeMs(): number {
    return processCpuMs(this.child.pid!);
  }

  private struct(value: Record<string, unknown>) {
    return this.sdk.struct.Struct.fromJavaScript(value);
  }

  private rpc<T>(method: string, request: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      (this.client[method] as (req: unknown, cb: Callback<T>) => void).call(this.client, request, (err, value) => {
        if (err) reject(this.errorOf(err));
        else resolve(value as T);
      });
    });
  }

  /** Turns the host's gRPC error into an Error, unpacking a created-but-failed resource. */
  private errorOf(err: Error & { details?: string; metadata?: any }): Error {
    const message = err.details ?? err.message;
    const raw = err.metadata?.get?.("grpc-status-details-bin")?.[0];
    if (raw) {
      const status = this.sdk.status.Status.deserializeBinary(new Uint8Array(raw));
      for (const any of status.getDetailsList()) {
        if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
          const detail = this.sdk.provider.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
          return new InitError(message, detail.getId(), detail.getProperties()?.toJavaScript() ?? {}, detail.getReasonsList());
        }
      }
    }
    return new Error(message);
  }

  /** Configures the provider: `args` as the engine sends a provider's inputs (the plugin takes secrets marked). */
  async configure(args: Record<string, unknown>, variables: Record<string, string> = {}): Promise<void> {
    const req = new this.sdk.provider.ConfigureRequest();
    req.setArgs(this.struct(args));
    for (const [key, value] of Object.entries(variables)) req.getVariablesMap().set(key, value);
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    await this.rpc("configure", req);
  }

  checkConfig(urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<CheckResult> {
    return this.checkBy("checkConfig", urn, olds, news);
  }

  async diffConfig(urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<DiffResult> {
    const req = new this.sdk.provider.DiffRequest();
    req.setUrn(urn);
    req.setOlds(this.struct(olds));
    req.setOldInputs(this.struct(olds));
    req.setNews(this.struct(news));
    return this.diffOf(await this.rpc<any>("diffConfig", req));
  }

  async getSchema(): Promise<string> {
    const req = new this.sdk.provider.GetSchemaRequest();
    req.setVersion(0);
    return (await this.rpc<any>("getSchema", req)).getSchema();
  }

  async getPluginInfo(): Promise<string> {
    return (await this.rpc<any>("getPluginInfo", new this.sdk.empty.Empty())).getVersion();
  }

  check(urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<CheckResult> {
    return this.checkBy("check", urn, olds, news);
  }

  /** A check of a resource's inputs or of the provider's configuration: the same request and answer. */
  private async checkBy(method: "check" | "checkConfig", urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<CheckResult> {
    const req = new this.sdk.provider.CheckRequest();
    req.setUrn(urn);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    const resp = await this.rpc<any>(method, req);
    return {
      inputs: resp.getInputs()?.toJavaScript() ?? {},
      failures: resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  private diffOf(resp: any): DiffResult {
    const changes = resp.getChanges();
    const kinds = this.sdk.provider.DiffResponse.DiffChanges;
    const names: Record<number, PropertyChange> = { 0: "add", 1: "add-replace", 2: "delete", 3: "delete-replace", 4: "update", 5: "update-replace" };
    const detailed: Record<string, PropertyChange> = {};
    resp.getDetaileddiffMap().forEach((diff: any, key: string) => (detailed[key] = names[diff.getKind()]));
    return {
      changes: changes === kinds.DIFF_SOME ? "some" : changes === kinds.DIFF_NONE ? "none" : "unknown",
      replaces: resp.getReplacesList(),
      deleteBeforeReplace: resp.getDeletebeforereplace(),
      diffs: resp.getDiffsList(),
      ...(resp.getHasdetaileddiff() ? { detailedDiff: detailed } : {}),
    };
  }

  async diff(urn: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs: Record<string, unknown>, ignoreChanges: string[] = []): Promise<DiffResult> {
    const req = new this.sdk.provider.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    req.setOldInputs(this.struct(oldInputs));
    req.setIgnorechangesList(ignoreChanges);
    return this.diffOf(await this.rpc<any>("diff", req));
  }

  /** `preview`: as the engine asks a provider that answers Handshake during a preview. */
  async create(urn: string, properties: Record<string, unknown>, options: { preview?: boolean } = {}): Promise<{ id: string; properties: Record<string, unknown> }> {
    const req = new this.sdk.provider.CreateRequest();
    req.setUrn(urn);
    req.setProperties(this.struct(properties));
    req.setPreview(options.preview === true);
    const resp = await this.rpc<any>("create", req);
    return { id: resp.getId(), properties: resp.getProperties()?.toJavaScript() ?? {} };
  }

  async read(urn: string, id: string, properties: Record<string, unknown>, inputs: Record<string, unknown>) {
    const req = new this.sdk.provider.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(this.struct(properties));
    req.setInputs(this.struct(inputs));
    const resp = await this.rpc<any>("read", req);
    return {
      id: resp.getId() as string,
      properties: (resp.getProperties()?.toJavaScript() ?? {}) as Record<string, unknown>,
      inputs: resp.getInputs()?.toJavaScript() as Record<string, unknown> | undefined,
    };
  }

  async update(urn: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs: Record<string, unknown>, options: { preview?: boolean } = {}) {
    const req = new this.sdk.provider.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setPreview(options.preview === true);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    req.setOldInputs(this.struct(oldInputs));
    const resp = await this.rpc<any>("update", req);
    return { properties: (resp.getProperties()?.toJavaScript() ?? {}) as Record<string, unknown> };
  }

  async delete(urn: string, id: string, properties: Record<string, unknown>, oldInputs: Record<string, unknown>): Promise<void> {
    const req = new this.sdk.provider.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(this.struct(properties));
    req.setOldInputs(this.struct(oldInputs));
    await this.rpc("delete", req);
  }

  /** A function of the provider: its result as the engine returns it (secrets marked), or its failures. */
  async invoke(token: string, args: Record<string, unknown>): Promise<{ result: Record<string, unknown>; failures: { property: string; reason: string }[] }> {
    const req = new this.sdk.provider.InvokeRequest();
    req.setTok(token);
    req.setArgs(this.struct(args));
    const resp = await this.rpc<any>("invoke", req);
    return {
      result: resp.getReturn()?.toJavaScript() ?? {},
      failures: resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** Ends the host as the engine does: an interrupt, then a kill if it has not ended within a few seconds. */
  async close(): Promise<void> {
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.kill("SIGINT");
      const kill = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(kill);
    }
    this.engineService?.close();
  }
}
