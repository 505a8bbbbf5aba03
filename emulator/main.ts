#!/usr/bin/env node
/**
 * `npx keepstack-emulator` (`npm run emulator` in this repository): starts the local emulator (a
 * test double of the three services) and prints each service's address and root token. Ports:
 * --keep-port, --workspaces-port, --mesh-port. --clusters main,dr starts secrets-service clusters on
 * one replication network (the first is `keep:`, the others `keep-<name>:`). With --exports (the
 * default of `pulumi-keepstack emulator`, which hands its arguments here) standard output holds only
 * `export NAME=value` lines for `eval`, everything else goes to standard error; --detach returns once
 * the services answer, leaving them running until KEEPSTACK_EMULATOR_PID gets SIGTERM (its log file
 * goes with it). --seed sends the requests of a JSON file once the services are up.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Command } from "commander";
import { DEFAULT_MOUNTS, Emulator, startEmulator } from "./index";

/** One request of a seed file: `{ "service": "keep", "method": "POST", "path": "/v1/sys/policies/acl/ops", "body": {...} }`. */
export interface SeedRequest {
  service: "keep" | "workspaces" | "mesh";
  method?: string;
  /** Path from the service's root: `/v1/...` (secrets), `/api/v2/...` (workspaces), `/v1/...` (mesh). */
  path: string;
  body?: unknown;
  /** Secrets service: the namespace the request is made in. */
  namespace?: string;
}

/** Sends each seed request with the service's root token, in order; any answer above 299 stops the start. */
export async function seedEmulator(emu: Emulator, requests: SeedRequest[]): Promise<void> {
  for (const r of requests) {
    const service = emu[r.service];
    if (!service) throw new Error(`seed: unknown service "${String(r.service)}" (keep, workspaces or mesh)`);
    const headers: Record<string, string> = { "content-type": r.service === "workspaces" ? "application/vnd.api+json" : "application/json" };
    if (r.service === "keep") headers["x-keep-token"] = emu.keep.rootToken;
    if (r.service === "workspaces") headers.authorization = `Bearer ${emu.workspaces.tokens.user}`;
    if (r.service === "mesh") headers["x-mesh-token"] = emu.mesh.rootToken;
    if (r.namespace) headers["x-keep-namespace"] = r.namespace;
    const method = r.method ?? (r.body === undefined ? "GET" : "POST");
    const response = await fetch(`${service.url}${r.path}`, { method, headers, body: r.body === undefined ? undefined : JSON.stringify(r.body) });
    if (response.status > 299) throw new Error(`seed: ${method} ${r.path} answered ${response.status}: ${await response.text()}`);
  }
}

/** `KEEP_ADDR` of the default cluster, `KEEP_DR_ADDR` of the cluster "dr" (as the provider reads them). */
const keepVariable = (name: "ADDR" | "TOKEN", cluster?: string) => (cluster ? `KEEP_${cluster.toUpperCase().replace(/-/g, "_")}_${name}` : `KEEP_${name}`);

/** The settings a program's provider reads, as `export` lines. */
export function exportLines(emu: Emulator): string[] {
  const named = Object.values(emu.clusters).filter((c) => c !== emu.keep);
  const vars: Record<string, string> = {
    KEEP_ADDR: emu.keep.url,
    KEEP_TOKEN: emu.keep.rootToken,
    ...Object.fromEntries(named.flatMap((c) => [[keepVariable("ADDR", c.name), c.url], [keepVariable("TOKEN", c.name), c.rootToken]])),
    WORKSPACES_ADDR: emu.workspaces.url,
    WORKSPACES_TOKEN: emu.workspaces.tokens.user,
    WORKSPACES_ORGANIZATION: emu.workspaces.organization,
    MESH_HTTP_ADDR: emu.mesh.url,
    MESH_HTTP_TOKEN: emu.mesh.rootToken,
  };
  return Object.entries(vars).map(([k, v]) => `export ${k}='${v.replace(/'/g, `'\\''`)}'`);
}

interface EmulatorCliOptions {
  keepPort: string;
  workspacesPort: string;
  meshPort: string;
  keyShares: string;
  keyThreshold: string;
  storedKeys?: boolean;
  clusters: string;
  bare?: boolean;
  seed?: string;
  exports?: boolean;
  detach?: boolean;
  log?: string;
  requests?: string;
}

/** Line a detached child prints once it serves, ending its part of standard output. */
const READY = "# keepstack emulator ready";

/** The option that sets each service's port, for the advice when a port is taken. */
const PORT_OPTIONS = { keep: "--keep-port", workspaces: "--workspaces-port", mesh: "--mesh-port" } as const;

/** A start that failed because a port is taken, told with its cause and what to do. */
function startFailure(e: unknown, ports: Record<keyof typeof PORT_OPTIONS, number>): Error {
  const error = e as NodeJS.ErrnoException & { port?: number };
  if (error?.code !== "EADDRINUSE") return e instanceof Error ? e : new Error(String(e));
  const port = error.port ?? Number(/:(\d+)\s*$/.exec(error.message)?.[1]);
  const service = (Object.keys(ports) as (keyof typeof PORT_OPTIONS)[]).find((s) => ports[s] === port);
  const option = service ? PORT_OPTIONS[service] : "--keep-port, --workspaces-port or --mesh-port";
  return new Error(
    `port ${port} is already in use (${error.message}): stop what listens there, or give another port with ${option} (${option.split(",")[0]} 0 picks a free one and the export lines say which)`,
  );
}

/** Starts the emulator by command-line arguments (without the program name); `exports` is the default of --exports. */
export async function runEmulator(args: string[], defaults: { name?: string; exports?: boolean } = {}): Promise<void> {
  const program = new Command()
    .name(defaults.name ?? "keepstack-emulator")
    .description("Local emulator of the secrets, workspace and mesh services (a test double)")
    .option("--keep-port <port>", "port of the secrets service", "8200")
    .option("--workspaces-port <port>", "port of the workspace service", "8280")
    .option("--mesh-port <port>", "port of the mesh service", "8500")
    .option("--key-shares <n>", "unseal key shares of the secrets service", "5")
    .option("--key-threshold <t>", "shares needed to unseal (and to rekey)", "3")
    .option("--stored-keys", "a seal that stores the master key: one recovery key, rekeys are 1-of-1")
    .option("--clusters <names>", "secrets-service clusters on one replication network, comma-separated: the first is keep: (KEEP_ADDR), each other one keep-<name>: (KEEP_<NAME>_ADDR), on a free port", "main")
    .option("--bare", "mount no secrets engine (by default secret/, transform/ and cloudA/ are mounted)")
    .option("--seed <file>", "JSON list of requests to send once the services answer ({service, method, path, body, namespace})")
    .option("--exports", "print only `export NAME=value` lines on standard output, for eval", defaults.exports ?? false)
    .option("--no-exports", "print the addresses and tokens for people to read")
    .option("--detach", "return once the services answer, leaving them running (implies --exports); stop with kill $KEEPSTACK_EMULATOR_PID")
    .option("--log <file>", "with --detach: where the emulator's messages go (default: a file in the temporary directory, named by KEEPSTACK_EMULATOR_LOG)")
    .option("--requests <file>", "append each request the services receive to this file, one JSON object a line (with --detach by default a file in the temporary directory, named by KEEPSTACK_EMULATOR_REQUESTS)")
    .parse(args, { from: "user" });
  const opts = program.opts<EmulatorCliOptions>();
  if (opts.detach) return detach(withoutDetachOptions(args), defaults.name, opts.log, opts.requests);
  // In exports mode standard output is for `eval`: everything for people goes to standard error.
  const say = (line: string) => (opts.exports ? process.stderr : process.stdout).write(`${line}\n`);

  const seed: SeedRequest[] = opts.seed ? JSON.parse(fs.readFileSync(opts.seed, "utf8")) : [];
  const ports = { keep: Number(opts.keepPort), workspaces: Number(opts.workspacesPort), mesh: Number(opts.meshPort) };
  const clusters = opts.clusters.split(",").map((c) => c.trim()).filter(Boolean);
  const emu = await startEmulator({ ports, clusters, bare: opts.bare }).catch((e: unknown) => {
    throw startFailure(e, ports);
  });
  if (opts.requests) writeRequests(emu, opts.requests);
  // A detached emulator's log holds the root tokens: it goes when the emulator stops.
  const log = process.env.KEEPSTACK_EMULATOR_LOG_OWNED;
  const stop = () => {
    void emu.close().then(() => {
      if (log) fs.rmSync(log, { force: true });
      process.exit(0);
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    for (const cluster of Object.values(emu.clusters)) {
      await cluster.seal.initialize(opts.storedKeys ? { storedKeys: true } : { shares: Number(opts.keyShares), threshold: Number(opts.keyThreshold) });
    }
    await seedEmulator(emu, seed);
  } catch (e) {
    await emu.close();
    throw e;
  }
  say("Local emulator of the three services (a test double, not the real services):");
  for (const cluster of Object.values(emu.clusters)) {
    const name = cluster === emu.keep ? undefined : cluster.name;
    const label = name ? `secrets cluster ${name}` : "secrets service";
    say(`  ${label.padEnd(20)}${keepVariable("ADDR", name)}=${cluster.url}  ${keepVariable("TOKEN", name)}=${cluster.rootToken}`);
  }
  if (!opts.bare) say(`  engines mounted      ${DEFAULT_MOUNTS.map((m) => `${m.path}/ (${m.type})`).join(", ")}`);
  say(
    `  workspace service   WORKSPACES_ADDR=${emu.workspaces.url}  WORKSPACES_TOKEN=${emu.workspaces.tokens.user}  WORKSPACES_ORGANIZATION=${emu.workspaces.organization}`,
  );
  say(`  mesh service        MESH_HTTP_ADDR=${emu.mesh.url}  MESH_HTTP_TOKEN=${emu.mesh.rootToken}`);
  const shares = emu.keep.seal.shares();
  say(`Secrets service ${opts.storedKeys ? "recovery key" : "unseal key shares"} (${shares.threshold} of ${shares.keys.length} rebuild the master key):`);
  shares.keys.forEach((hex, i) => say(`  ${opts.storedKeys ? "Recovery Key" : "Unseal Key"} ${i + 1}: ${hex}  (base64 ${shares.keysBase64[i]})`));
  if (seed.length) say(`Seeded with ${seed.length} request${seed.length === 1 ? "" : "s"} from ${opts.seed}.`);
  say("Press Ctrl-C (or send SIGTERM) to stop.");
  if (opts.exports) process.stdout.write(`${exportLines(emu).join("\n")}\n${READY}\n`);
}

/** What a line of the `--requests` file holds: the request as the service saw it, credentials and bodies left out. */
export interface RequestLine {
  receivedAt: string;
  service: string;
  /** The secrets-service cluster, for a program with several. */
  cluster?: string;
  method: string;
  /** Path with its query string. */
  url: string;
  status: number;
  /** The namespace header of a secrets-service request. */
  namespace?: string;
  fault?: string;
}

/**
 * Appends each request every service receives to `file` as a JSON line, from now on: what a test of
 * a program run against a detached emulator reads (`grep -v '"method":"GET"'` finds the writes).
 * Bodies are left out (they carry secrets), and so are the credential headers.
 */
function writeRequests(emu: Emulator, file: string): void {
  const fd = fs.openSync(file, "a", 0o600);
  const servers: [string, { log: Emulator["keep"]["log"] }, string | undefined][] = [
    ...Object.values(emu.clusters).map((c): [string, typeof c, string | undefined] => ["keep", c, c === emu.keep ? undefined : c.name]),
    ["workspaces", emu.workspaces, undefined],
    ["mesh", emu.mesh, undefined],
  ];
  for (const [service, server, cluster] of servers) {
    server.log.onRecord((entry) => {
      const namespace = entry.headers["x-keep-namespace"];
      const line: RequestLine = {
        receivedAt: new Date(entry.receivedAt).toISOString(),
        service,
        ...(cluster ? { cluster } : {}),
        method: entry.method,
        url: entry.url,
        status: entry.status,
        ...(typeof namespace === "string" ? { namespace } : {}),
        ...(entry.fault ? { fault: entry.fault } : {}),
      };
      fs.writeSync(fd, `${JSON.stringify(line)}\n`);
    });
  }
}

/** The arguments without --detach and --log (with its value), for the detached child. */
function withoutDetachOptions(args: string[]): string[] {
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--detach" || args[i].startsWith("--log=")) continue;
    if (args[i] === "--log") {
      i++;
      continue;
    }
    rest.push(args[i]);
  }
  return rest;
}

/**
 * Runs the emulator as a detached child of the same program and prints its `export` lines, its PID
 * and its log file once it answers. The child holds none of this process's output streams (its
 * messages go to the log file), so a shell or CI step capturing them ends when this process does.
 */
async function detach(args: string[], name: string | undefined, log: string | undefined, requests: string | undefined): Promise<void> {
  const entry = process.argv[1];
  const requestsFile = path.resolve(requests ?? path.join(os.tmpdir(), `keepstack-emulator-${process.pid}.requests.jsonl`));
  const own = requests === undefined ? [...args, "--requests", requestsFile] : args;
  // Started as a subcommand (`pulumi-keepstack emulator`), the child is started the same way.
  const command = name?.endsWith(" emulator") ? [entry, "emulator", ...own, "--exports"] : [entry, ...own, "--exports"];
  const logFile = path.resolve(log ?? path.join(os.tmpdir(), `keepstack-emulator-${process.pid}.log`));
  // The log holds the root tokens and key shares: readable by this user only.
  const logFd = fs.openSync(logFile, "a", 0o600);
  const child = spawn(process.execPath, command, {
    detached: true,
    stdio: ["ignore", "pipe", logFd],
    env: { ...process.env, KEEPSTACK_EMULATOR_LOG_OWNED: logFile },
  });
  fs.closeSync(logFd);
  const lines = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(READY)) resolve(text.slice(0, text.indexOf(READY)));
    });
    child.on("exit", (code) => {
      // What the emulator said goes to this command's standard error, where a person or CI log sees it.
      const said = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").trim() : "";
      fs.rmSync(logFile, { force: true });
      reject(new Error(`the emulator stopped before it answered (exit code ${code})${said ? `: ${said}` : ""}`));
    });
    child.on("error", reject);
  });
  const quoted = (file: string) => `'${file.replace(/'/g, `'\\''`)}'`;
  process.stdout.write(
    `${lines}export KEEPSTACK_EMULATOR_PID=${child.pid}\nexport KEEPSTACK_EMULATOR_LOG=${quoted(logFile)}\nexport KEEPSTACK_EMULATOR_REQUESTS=${quoted(requestsFile)}\n`,
  );
  child.stdout!.destroy();
  child.unref();
}

/** The command (`keepstack-emulator`, `node dist/main.js`): the process's arguments, a failure told in one line. */
export function runCommand(): void {
  runEmulator(process.argv.slice(2)).catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}

if (require.main === module) runCommand();
