/**
 * Starts the dynamic provider host that ships in `@pulumi/pulumi` (the process the engine starts as
 * `pulumi-resource-pulumi-nodejs`) and talks to it over gRPC with the SDK's generated protos, as the
 * engine does.
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";

const PACKAGE_NAME = "pulumi-keepstack";

/** Modules of the `@pulumi/pulumi` installation the program uses, so the protos match the SDK. */
function sdkModules(cwd: string) {
  const sdkRoot = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [cwd, __dirname] }));
  const load = (id: string) => require(require.resolve(id, { paths: [sdkRoot] }));
  return {
    sdkRoot,
    grpc: load("@grpc/grpc-js"),
    structproto: load("google-protobuf/google/protobuf/struct_pb"),
    provproto: require(path.join(sdkRoot, "proto/provider_pb")),
    provrpc: require(path.join(sdkRoot, "proto/provider_grpc_pb")),
    statusproto: require(path.join(sdkRoot, "proto/status_pb")),
    hostScript: path.join(sdkRoot, "cmd/dynamic-provider/index.js"),
  };
}

/**
 * The shim in state requires `pulumi-keepstack/host` from the project's node_modules, as under the
 * CLI. Checked on disk as Node would from the host's cwd (a test runner's resolver may answer otherwise).
 */
function assertPackageInstalled(cwd: string): void {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "node_modules", PACKAGE_NAME, "package.json"))) return;
    if (dir === path.dirname(dir)) break;
  }
  throw new Error(`${PACKAGE_NAME} is not installed in ${cwd} or above: the provider host could not load it`);
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

export interface CheckResult {
  inputs: Record<string, unknown>;
  failures: { property: string; reason: string }[];
}

export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
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

export class ProviderHost {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
    private readonly sdk: ReturnType<typeof sdkModules>,
    /** What the host printed on stderr (warnings of operations). */
    readonly stderr: string[],
  ) {}

  static async start(options: HostOptions): Promise<ProviderHost> {
    const sdk = sdkModules(options.cwd);
    assertPackageInstalled(options.cwd);
    const env = { ...process.env, ...options.env, PULUMI_NODEJS_PROJECT: options.project };
    // KEEPSTACK_HOST_NODE_ARGS: flags for the host's node, such as `--cpu-prof` to profile it.
    const nodeArgs = process.env.KEEPSTACK_HOST_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...nodeArgs, "-e", LIFELINE, sdk.hostScript, "127.0.0.1:0"], {
      cwd: options.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    // The host may end first (close()): a write-side error of the lifeline is no failure.
    child.stdin!.on("error", () => undefined);
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr! }).on("line", (line) => stderr.push(line));
    const port = await new Promise<string>((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout! });
      lines.once("line", (line) => resolve(line.trim()));
      child.once("exit", (code) => reject(new Error(`provider host exited with ${code}: ${stderr.join("\n")}`)));
      child.once("error", reject);
    });
    const client = new sdk.provrpc.ResourceProviderClient(`127.0.0.1:${port}`, sdk.grpc.credentials.createInsecure());
    return new ProviderHost(child, client, sdk, stderr);
  }

  /**
   * CPU time (user + system, all threads) the host process has used so far, in milliseconds, from
   * the kernel's accounting of that process (`/proc/<pid>/stat`, Linux; resolution one clock tick).
   */
  /** The host's process ID. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  cpuTimeMs(): number {
    const stat = fs.readFileSync(`/proc/${this.child.pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces; the fields after it start past its ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, the 12th and 13th after the name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond();
  }

  private struct(value: Record<string, unknown>) {
    return this.sdk.structproto.Struct.fromJavaScript(value);
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
      const status = this.sdk.statusproto.Status.deserializeBinary(new Uint8Array(raw));
      for (const any of status.getDetailsList()) {
        if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
          const detail = this.sdk.provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
          return new InitError(message, detail.getId(), detail.getProperties()?.toJavaScript() ?? {}, detail.getReasonsList());
        }
      }
    }
    return new Error(message);
  }

  async configure(config: Record<string, string>): Promise<void> {
    const req = new this.sdk.provproto.ConfigureRequest();
    req.setArgs(this.struct(config));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    await this.rpc("configure", req);
  }

  async check(urn: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<CheckResult> {
    const req = new this.sdk.provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    const resp = await this.rpc<any>("check", req);
    return {
      inputs: resp.getInputs()?.toJavaScript() ?? {},
      failures: resp.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(urn: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs: Record<string, unknown>): Promise<DiffResult> {
    const req = new this.sdk.provproto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    req.setOldInputs(this.struct(oldInputs));
    const resp = await this.rpc<any>("diff", req);
    const changes = resp.getChanges();
    const kinds = this.sdk.provproto.DiffResponse.DiffChanges;
    return {
      changes: changes === kinds.DIFF_SOME ? "some" : changes === kinds.DIFF_NONE ? "none" : "unknown",
      replaces: resp.getReplacesList(),
      deleteBeforeReplace: resp.getDeletebeforereplace(),
    };
  }

  async create(urn: string, properties: Record<string, unknown>): Promise<{ id: string; properties: Record<string, unknown> }> {
    const req = new this.sdk.provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(this.struct(properties));
    const resp = await this.rpc<any>("create", req);
    return { id: resp.getId(), properties: resp.getProperties()?.toJavaScript() ?? {} };
  }

  async read(urn: string, id: string, properties: Record<string, unknown>, inputs: Record<string, unknown>) {
    const req = new this.sdk.provproto.ReadRequest();
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

  async update(urn: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs: Record<string, unknown>) {
    const req = new this.sdk.provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(this.struct(olds));
    req.setNews(this.struct(news));
    req.setOldInputs(this.struct(oldInputs));
    const resp = await this.rpc<any>("update", req);
    return { properties: (resp.getProperties()?.toJavaScript() ?? {}) as Record<string, unknown> };
  }

  async delete(urn: string, id: string, properties: Record<string, unknown>, oldInputs: Record<string, unknown>): Promise<void> {
    const req = new this.sdk.provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(this.struct(properties));
    req.setOldInputs(this.struct(oldInputs));
    await this.rpc("delete", req);
  }

  async close(): Promise<void> {
    this.client.close();
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.kill();
      await exited;
    }
  }
}
