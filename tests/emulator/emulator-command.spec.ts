/**
 * `keepstack-emulator`, the emulator package's command (the product's `pulumi-keepstack emulator`
 * hands its arguments to it, with --exports its default): export lines for eval, a seed, every engine mounted, a second cluster
 * for replication, a taken port told with what to do, a detached emulator whose log goes with it,
 * and a clean stop on SIGINT and SIGTERM.
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { processGone } from "../support/process-exit";

/** The command as the emulator's package names it (`bin` of emulator/package.json). */
const command = path.join(__dirname, "..", "..", "emulator", "bin", "keepstack-emulator.js");

/** Starts the command in the foreground; resolves with its settings once it prints them. */
function startCommand(args: string[]) {
  const child = spawn(process.execPath, [command, "--exports", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (!stdout.includes("# keepstack emulator ready")) return;
      const vars: Record<string, string> = {};
      for (const m of stdout.matchAll(/^export (\w+)='([^']*)'$/gm)) vars[m[1]] = m[2];
      resolve(vars);
    });
    void exited.then(() => reject(new Error(`the command ended before it answered: ${stderr}`)));
  });
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

describe("keepstack-emulator", () => {
  test("prints only export lines on standard output, sends the seed, and stops on SIGINT", async () => {
    const seedFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-seed-")), "seed.json");
    fs.writeFileSync(
      seedFile,
      JSON.stringify([
        { service: "keep", method: "POST", path: "/v1/sys/namespaces/team-a" },
        { service: "keep", method: "POST", path: "/v1/sys/policies/acl/ops", namespace: "team-a", body: { policy: 'path "sys/*" { capabilities = ["read"] }' } },
      ]),
    );
    const run = startCommand(["--seed", seedFile]);
    const vars = await run.ready;
    expect(Object.keys(vars).sort()).toEqual(["KEEP_ADDR", "KEEP_TOKEN", "MESH_HTTP_ADDR", "MESH_HTTP_TOKEN", "WORKSPACES_ADDR", "WORKSPACES_ORGANIZATION", "WORKSPACES_TOKEN"]);
    // Everything for people (addresses, key shares) is on standard error.
    expect(run.output().stdout.split("\n").filter((l) => l && !l.startsWith("export ") && !l.startsWith("#"))).toEqual([]);
    expect(run.output().stderr).toContain("Seeded with 2 requests");

    const answer = await fetch(`${vars.KEEP_ADDR}/v1/sys/policies/acl/ops`, { headers: { "x-keep-token": vars.KEEP_TOKEN, "x-keep-namespace": "team-a" } });
    expect(answer.status).toBe(200);

    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await expect(fetch(`${vars.KEEP_ADDR}/v1/sys/health`)).rejects.toThrow();
    fs.rmSync(path.dirname(seedFile), { recursive: true, force: true });
  });

  test("a seed request the service refuses stops the start with its answer", async () => {
    const seedFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-seed-")), "seed.json");
    fs.writeFileSync(seedFile, JSON.stringify([{ service: "keep", method: "POST", path: "/v1/sys/policies/acl/bad", body: {} }]));
    const run = startCommand(["--seed", seedFile]);
    await expect(run.ready).rejects.toThrow(/seed: POST \/v1\/sys\/policies\/acl\/bad answered 400/);
    expect((await run.exited).code).toBe(1);
    fs.rmSync(path.dirname(seedFile), { recursive: true, force: true });
  });

  test("stops on SIGTERM", async () => {
    const run = startCommand([]);
    await run.ready;
    run.child.kill("SIGTERM");
    expect(await run.exited).toEqual({ code: 0, signal: null });
  });

  test("--clusters main,dr: a second cluster with its export lines; both answer the replication routes", async () => {
    const run = startCommand(["--clusters", "main,dr"]);
    const vars = await run.ready;
    expect(Object.keys(vars).filter((k) => k.startsWith("KEEP_")).sort()).toEqual(["KEEP_ADDR", "KEEP_DR_ADDR", "KEEP_DR_TOKEN", "KEEP_TOKEN"]);
    expect(vars.KEEP_DR_ADDR).not.toBe(vars.KEEP_ADDR);
    for (const [address, token] of [[vars.KEEP_ADDR, vars.KEEP_TOKEN], [vars.KEEP_DR_ADDR, vars.KEEP_DR_TOKEN]]) {
      const status = await fetch(`${address}/v1/sys/replication/performance/status`, { headers: { "x-keep-token": token } });
      expect(status.status).toBe(200);
      expect(((await status.json()) as { data: { mode: string } }).data.mode).toBe("disabled");
    }
    expect(run.output().stderr).toMatch(/secrets cluster dr\s+KEEP_DR_ADDR=/);
    run.child.kill("SIGTERM");
    expect(await run.exited).toEqual({ code: 0, signal: null });
  });

  test("every engine is mounted at its conventional path, unless --bare; a path with no engine names sys/mounts", async () => {
    const mounts = async (vars: Record<string, string>) => {
      const answer = await fetch(`${vars.KEEP_ADDR}/v1/sys/mounts`, { headers: { "x-keep-token": vars.KEEP_TOKEN } });
      const body = (await answer.json()) as { data: Record<string, { type: string }> };
      return Object.entries(body.data)
        .filter(([, m]) => !["system", "cubbyhole", "identity", "token"].includes(m.type))
        .map(([p, m]) => `${p} ${m.type}`)
        .sort();
    };
    const full = startCommand([]);
    expect(await mounts(await full.ready)).toEqual(["cloudA/ cloudA", "secret/ kv", "transform/ transform"]);
    full.child.kill("SIGTERM");
    await full.exited;

    const bare = startCommand(["--bare"]);
    const vars = await bare.ready;
    expect(await mounts(vars)).toEqual([]);
    const missing = await fetch(`${vars.KEEP_ADDR}/v1/transform/alphabet/hex-upper`, { headers: { "x-keep-token": vars.KEEP_TOKEN } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { errors: string[] }).errors[0]).toMatch(/no secrets engine is mounted at "transform\/"; GET sys\/mounts lists the mounts/);
    bare.child.kill("SIGTERM");
    await bare.exited;
  });

  /** A port something else listens on. */
  async function takenPort(): Promise<{ port: number; close(): void }> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
  }

  const ADVICE = /port (\d+) is already in use \(listen EADDRINUSE[^)]*\): stop what listens there, or give another port with --keep-port \(--keep-port 0 picks a free one/;

  test("a port in use stops the command with the cause and the advice on standard error", async () => {
    const taken = await takenPort();
    try {
      const child = spawn(process.execPath, [command, "--keep-port", String(taken.port), "--workspaces-port", "0", "--mesh-port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      let stdout = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(ADVICE);
      expect(stderr).toContain(`port ${taken.port} `);
      expect(stdout).toBe("");
    } finally {
      taken.close();
    }
  });

  const runCli = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [command, ...args], (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })),
    );

  test("--detach: a port in use is told on standard error; a running one's log goes when it stops", async () => {
    const taken = await takenPort();
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-log-"));
    try {
      const failed = await runCli(["--detach", "--keep-port", String(taken.port), "--workspaces-port", "0", "--mesh-port", "0", "--log", path.join(logDir, "failed.log")]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(ADVICE);
      expect(fs.readdirSync(logDir)).toEqual([]);

      const log = path.join(logDir, "running.log");
      const started = await runCli(["--detach", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0", "--log", log]);
      expect(started.code).toBe(0);
      const pid = Number(/^export KEEPSTACK_EMULATOR_PID=(\d+)$/m.exec(started.stdout)![1]);
      expect(fs.statSync(log).mode & 0o777).toBe(0o600);
      process.kill(pid, "SIGTERM");
      expect(await processGone(pid)).toBe(true);
      expect(fs.existsSync(log)).toBe(false);
    } finally {
      taken.close();
      fs.rmSync(logDir, { recursive: true, force: true });
    }
  });

  test("--detach: the requests the services receive are a file of JSON lines, named by KEEPSTACK_EMULATOR_REQUESTS", async () => {
    const started = await runCli(["--detach", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0"]);
    expect(started.code).toBe(0);
    const vars = Object.fromEntries([...started.stdout.matchAll(/^export (\w+)='?([^'\n]*)'?$/gm)].map((m) => [m[1], m[2]]));
    const pid = Number(vars.KEEPSTACK_EMULATOR_PID);
    try {
      const headers = { "x-keep-token": vars.KEEP_TOKEN, "x-keep-namespace": "team-a", "content-type": "application/json" };
      await fetch(`${vars.KEEP_ADDR}/v1/sys/policies/acl/readers`, { headers });
      await fetch(`${vars.KEEP_ADDR}/v1/sys/policies/acl/readers`, { method: "POST", headers: { "x-keep-token": vars.KEEP_TOKEN }, body: JSON.stringify({ policy: "# r" }) });
      await fetch(`${vars.WORKSPACES_ADDR}/api/v2/organizations/${vars.WORKSPACES_ORGANIZATION}/workspaces`, { headers: { authorization: `Bearer ${vars.WORKSPACES_TOKEN}` } });
      // A request is written once its answer is sent, which may come after the client has it.
      const read = () => fs.readFileSync(vars.KEEPSTACK_EMULATOR_REQUESTS, "utf8").trim().split("\n").filter(Boolean);
      await waitUntil(() => read().length >= 3);
      const lines = read().map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.service, l.method, l.url, l.status, l.namespace])).toEqual([
        ["keep", "GET", "/v1/sys/policies/acl/readers", 404, "team-a"],
        ["keep", "POST", "/v1/sys/policies/acl/readers", 204, undefined],
        ["workspaces", "GET", `/api/v2/organizations/${vars.WORKSPACES_ORGANIZATION}/workspaces`, 200, undefined],
      ]);
      expect(lines.every((l) => typeof l.receivedAt === "string")).toBe(true);
      // No credential and no body is written there.
      expect(fs.readFileSync(vars.KEEPSTACK_EMULATOR_REQUESTS, "utf8")).not.toContain(vars.KEEP_TOKEN);
      expect(fs.readFileSync(vars.KEEPSTACK_EMULATOR_REQUESTS, "utf8")).not.toContain("# r");
    } finally {
      process.kill(pid, "SIGTERM");
      expect(await processGone(pid)).toBe(true);
      fs.rmSync(vars.KEEPSTACK_EMULATOR_REQUESTS, { force: true });
    }
  });

  test("the product's `pulumi-keepstack emulator` hands its arguments to this command, detached as before", async () => {
    const product = path.join(__dirname, "..", "..", "dist", "cli", "main.js");
    const started = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(process.execPath, [product, "emulator", "--detach", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0"], (error, stdout) => resolve({ code: error ? 1 : 0, stdout })),
    );
    expect(started.code).toBe(0);
    const pid = Number(/^export KEEPSTACK_EMULATOR_PID=(\d+)$/m.exec(started.stdout)![1]);
    try {
      expect(started.stdout).toMatch(/^export KEEP_ADDR='http:\/\/127\.0\.0\.1:\d+'$/m);
    } finally {
      process.kill(pid, "SIGTERM");
      expect(await processGone(pid)).toBe(true);
    }
  });

  test("--help names the command as users type it", async () => {
    const help = await runCli(["--help"]);
    expect(help.stdout).toMatch(/^Usage: keepstack-emulator \[options\]/);
    expect(help.stdout).toContain("--clusters <names>");
  });
});

/** Polls `done` until it holds; the process's exit is the event waited for, not a time. */
async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}
