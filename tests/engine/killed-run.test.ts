/**
 * A killed run, under the real CLI (ARCHITECTURE.md, "One owner"): `pulumi up` of a program through both
 * doors is killed, its whole process group at once, while some creates are under way: the services
 * act on them after the kill (their requests are held until the connection ends), so those objects
 * exist while no answer reached the engine. The recovery the docs give ("Large stacks") is then run
 * as written: `pulumi cancel`, `npx pulumi-keepstack recover`, `pulumi up`. After it every object of
 * the program is in the state once, no pending create is left, a preview plans nothing, and destroy
 * leaves none of them on the services. With checkpoints the state holds the creates under way
 * (pending creates, which `recover` settles); without (`PULUMI_SKIP_CHECKPOINTS`) it holds nothing
 * of the killed run, and `up` takes back what the run made (the owner the service records, or the
 * create journal). A kill while the file backend rewrites the stack's `.attrs` sidecar, which it
 * writes in place, leaves the stack unreadable until the sidecar is removed, as the docs say.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Emulator, startEmulator } from "keepstack-emulator";
import { pageBlocks } from "../support/pages";
import { cli, ENGINE_TIMEOUT, Project, stepsOf } from "../support/real-engine";
import { pluginSettings, typescriptSdkProject } from "./plugin-door";

const DOORS = ["dyn", "plug"] as const;
const POLICY = 'path "secret/*" { capabilities = ["read"] }';

/** Per door: policies (one held, one after it), a key-value secret, partitions (one held), a workspace. */
function program(): string {
  const body = (door: string, ns: string) =>
    [
      `const ${door}Held = new ${ns}.keep.AclPolicy("${door}-held", { name: "${door}-held", policy: POLICY });`,
      `new ${ns}.keep.AclPolicy("${door}-after", { name: "${door}-after", policy: POLICY }, { dependsOn: ${door}Held });`,
      `for (let i = 0; i < 6; i++) new ${ns}.keep.AclPolicy(\`${door}-p\${i}\`, { name: \`${door}-p\${i}\`, policy: POLICY });`,
      door === "dyn" ? `new dynamic.keep.kv.Secret("dyn-s", { path: "dyn-s", data: { a: "1" } });` : `new plugin.keep.KvSecret("plug-s", { path: "plug-s", data: { a: "1" } });`,
      `new ${ns}.mesh.Partition("${door}-part", { name: "${door}-part" });`,
      `new ${ns}.mesh.Partition("${door}-held-part", { name: "${door}-held-part" });`,
      `new ${ns}.workspaces.Workspace("${door}-ws", { name: "${door}-ws" });`,
    ].join("\n");
  return [
    'import * as dynamic from "pulumi-keepstack";',
    'import * as plugin from "@keepstack/pulumi-keepstack";',
    `const POLICY = ${JSON.stringify(POLICY)};`,
    body("dyn", "dynamic"),
    body("plug", "plugin"),
    "",
  ].join("\n");
}
/** What the program declares, by resource name. */
const DECLARED = DOORS.flatMap((d) => [`${d}-held`, `${d}-after`, ...[0, 1, 2, 3, 4, 5].map((i) => `${d}-p${i}`), `${d}-s`, `${d}-part`, `${d}-held-part`, `${d}-ws`]);

function settings(e: Emulator): { config: Record<string, string>; secrets: string[] } {
  const plugin = pluginSettings(e);
  return {
    config: {
      ...plugin.config,
      "keep:address": e.keep.url,
      "keep:token": e.keep.rootToken,
      "workspaces:address": e.workspaces.url,
      "workspaces:token": e.workspaces.tokens.user,
      "workspaces:organization": e.workspaces.organization,
      "mesh:address": e.mesh.url,
      "mesh:token": e.mesh.rootToken,
    },
    secrets: [...plugin.secrets, "keep:token", "workspaces:token", "mesh:token"],
  };
}

/** What the services hold of the program's objects, by kind. */
function held(e: Emulator) {
  const policies = DOORS.flatMap((d) => [`${d}-held`, `${d}-after`, ...[0, 1, 2, 3, 4, 5].map((i) => `${d}-p${i}`)]).filter((n) => e.keep.getPolicy("acl", n));
  const partitions = DOORS.flatMap((d) => [`${d}-part`, `${d}-held-part`]).filter((n) => e.mesh.getPartition(n));
  const workspaces = DOORS.map((d) => `${d}-ws`).filter((n) => e.workspaces.findWorkspace(e.workspaces.organization, n));
  return { policies: policies.length, partitions: partitions.length, workspaces: workspaces.length };
}

/** The stack's files in the project's file backend: `<stack>.json` and what the backend keeps beside it. */
function stackFile(project: Project, stack: string, suffix = ""): string {
  const root = path.join(project.env.PULUMI_BACKEND_URL!.replace(/^file:\/\//, ""), ".pulumi", "stacks");
  const found = fs.readdirSync(root, { recursive: true, encoding: "utf8" }).find((f) => path.basename(f) === `${stack}.json`);
  if (!found) throw new Error(`no state file of stack ${stack} under ${root}`);
  return path.join(root, `${found}${suffix}`);
}

/** The creates of the program the services answered: all but the held ones and the policies after them. */
const ANSWERED = DECLARED.length - 6;

/** The program's resources the stack file holds (0 while it cannot be read). */
function inState(project: Project, stack: string): number {
  try {
    const checkpoint = JSON.parse(fs.readFileSync(stackFile(project, stack), "utf8")) as { checkpoint?: { latest?: { resources?: { urn: string }[] } } };
    return (checkpoint.checkpoint?.latest?.resources ?? []).filter((r) => DECLARED.includes(r.urn.split("::").pop()!)).length;
  } catch {
    return 0;
  }
}

/**
 * Starts `pulumi up` in a process group of its own, and kills the whole group once the services
 * hold the held creates (each door's held policy and held partition), then every other process of
 * the project: the CLI, its language host and its providers all end at once, as a CI job's
 * cancellation ends them. With checkpoints, the kill waits until the stack file holds every answered
 * create: a kill while the file backend rewrites the stack's `.attrs` sidecar (written in place)
 * leaves the stack unreadable, which the last test of this file covers on its own.
 */
async function killedUp(project: Project, e: Emulator, env: Record<string, string>, stack: string): Promise<string> {
  e.keep.faults.clear();
  e.mesh.faults.clear();
  e.keep.faults.heldCount = 0;
  e.mesh.faults.heldCount = 0;
  e.keep.faults.inject({ times: 2, match: /^(PUT|POST) \/v1\/sys\/policies\/acl\/(dyn|plug)-held$/, holdUntilAborted: true });
  e.mesh.faults.inject({ times: 2, match: /^PUT \/v1\/partition$/, holdUntilAborted: true });
  const child = spawn(cli().bin, ["up", "--yes", "--skip-preview", "--non-interactive"], { cwd: project.dir, env: { ...project.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d));
  child.stderr!.on("data", (d: Buffer) => (output += d));
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // Polled: the condition is the services' own, never a timing.
  const checkpoints = !env.PULUMI_SKIP_CHECKPOINTS;
  while (e.keep.faults.heldCount < 2 || e.mesh.faults.heldCount < 2 || (checkpoints && inState(project, stack) < ANSWERED)) {
    if (child.exitCode !== null) throw new Error(`the up ended before its creates were held:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.kill(-child.pid!, "SIGKILL");
  await exited;
  // The CLI starts its plugins in process groups of their own: they are ended too, as a CI job's
  // cancellation ends every process of the job (found by the project's folder in their command lines).
  await new Promise<void>((resolve) => spawn("pkill", ["-KILL", "-f", project.dir], { stdio: "ignore" }).once("close", () => resolve()));
  // The services act on the held creates once their connections end (each is logged as "held" then).
  const heldLogged = (service: { log: { entries: { fault?: string }[] } }) => service.log.entries.filter((r) => r.fault === "held").length;
  while (heldLogged(e.keep) < 2 || heldLogged(e.mesh) < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  await e.keep.faults.settled();
  await e.mesh.faults.settled();
  e.keep.faults.clear();
  e.mesh.faults.clear();
  return output;
}

let emu: Emulator;
let project: Project;

beforeAll(async () => {
  project = await typescriptSdkProject("keepstack-killed", program());
}, ENGINE_TIMEOUT);
// Each case meets services of its own.
beforeEach(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterEach(() => emu?.close());

describe.each([
  ["with checkpoints", {}],
  ["without checkpoints (PULUMI_SKIP_CHECKPOINTS)", { PULUMI_SKIP_CHECKPOINTS: "true" }],
] as const)("an up killed mid-run, %s", (label, env) => {
  test(
    "the documented recovery puts every object in the state once; a preview plans nothing; destroy leaves none",
    async () => {
      const stack = label.startsWith("with checkpoints") ? "checkpoints" : "no-checkpoints";
      const { config, secrets } = settings(emu);
      await project.stack(stack, config, secrets);
      await killedUp(project, emu, env, stack);
      // The held creates were made, though no answer reached the engine.
      expect([emu.keep.getPolicy("acl", "dyn-held") !== undefined, emu.keep.getPolicy("acl", "plug-held") !== undefined]).toEqual([true, true]);
      expect(held(emu).partitions).toBeGreaterThanOrEqual(2);

      // The CLI says the stack is locked, and how to unlock it.
      const locked = await project.pulumi(["up", "--yes", "--skip-preview"], { env, expect: "failure" });
      expect(locked.output).toMatch(/pulumi cancel/);

      // The recovery, as docs/resources.md gives it.
      const block = pageBlocks("docs/resources.md", "sh").find((b) => b.includes("pulumi-keepstack recover"))!;
      const commands = block.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
      expect(commands).toEqual(["pulumi cancel --yes", "npx pulumi-keepstack recover", "pulumi up --yes"]);
      await project.pulumi(["cancel", "--yes"], { env });
      await project.exec("npx", ["pulumi-keepstack", "recover"], { env });
      const up = await project.pulumi(["up", "--yes", "--skip-preview", "--json"], { env });
      expect(stepsOf(up).filter((s) => s.op !== "same" && s.op !== "create")).toEqual([]);

      // Every object once; no pending create; nothing more on the services.
      const state = (await project.exportStack()).deployment as { resources?: { urn: string }[]; pending_operations?: unknown[] };
      const names = (state.resources ?? []).map((r) => r.urn.split("::").pop()!).filter((n) => DECLARED.includes(n));
      expect(names.sort()).toEqual([...DECLARED].sort());
      expect(state.pending_operations ?? []).toEqual([]);
      expect(held(emu)).toEqual({ policies: 16, partitions: 4, workspaces: 2 });
      const preview = await project.pulumi(["preview", "--json", "--expect-no-changes"], { env });
      expect(stepsOf(preview).filter((s) => s.op !== "same")).toEqual([]);

      await project.pulumi(["destroy", "--yes", "--skip-preview"], { env });
      expect(held(emu)).toEqual({ policies: 0, partitions: 0, workspaces: 0 });
      await project.pulumi(["stack", "rm", "--yes"], { env });
    },
    ENGINE_TIMEOUT,
  );
});

test(
  "a kill while the file backend rewrote the stack's .attrs sidecar: every command fails with failed to load checkpoint: EOF until the sidecar is removed, as docs/resources.md says",
  async () => {
    const { config, secrets } = settings(emu);
    await project.stack("sidecar", config, secrets);
    project.write("index.ts", 'import * as dynamic from "pulumi-keepstack";\nnew dynamic.keep.AclPolicy("sidecar", { name: "sidecar", policy: \'path "secret/*" { capabilities = ["read"] }\' });\n');
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    // What the kill leaves: the sidecar created again (emptied) and not yet written.
    fs.writeFileSync(stackFile(project, "sidecar", ".attrs"), "");
    const broken = await project.pulumi(["preview"], { expect: "failure" });
    expect(broken.output).toContain("failed to load checkpoint: EOF");
    expect(fs.readFileSync(path.join(__dirname, "..", "..", "docs", "resources.md"), "utf8")).toContain("`failed to load checkpoint: EOF`");
    fs.rmSync(stackFile(project, "sidecar", ".attrs"));
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(emu.keep.getPolicy("acl", "sidecar")).toBeUndefined();
    await project.pulumi(["stack", "rm", "--yes"]);
    project.write("index.ts", program());
  },
  ENGINE_TIMEOUT,
);
