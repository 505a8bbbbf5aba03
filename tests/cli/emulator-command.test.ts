/** `pulumi-keepstack emulator`: export lines for eval, a seed, and a clean stop on SIGINT and SIGTERM. */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const cli = path.join(__dirname, "..", "..", "dist", "cli", "main.js");

/** Starts the command in the foreground; resolves with its settings once it prints them. */
function startCommand(args: string[]) {
  const child = spawn(process.execPath, [cli, "emulator", "--keep-port", "0", "--workspaces-port", "0", "--mesh-port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
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

describe("pulumi-keepstack emulator", () => {
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
});
