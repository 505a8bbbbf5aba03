/**
 * Every resource type through both doors, under the real CLI and through the harness (design §15):
 * the fault matrix's programs without faults (tests/support/samples.ts), all types in one program
 * per door, each type's resource through the door under test and its prerequisites through the
 * dynamic one, as the matrix declares them. The session: up of the prerequisites, up of everything
 * (each type's create), a preview and an up of each type's in-place change, an up of each type's
 * replacement, refresh, destroy. Then the same session through the harness against an emulator that
 * starts alike, and the two compared step by step (tests/support/differential.ts).
 *
 * A type that acts on what a cluster has once (its replication, its seal, its cloud engine's root
 * configuration) gets a cluster of its own (`cluster: "t7"`, a replication type a second one for its
 * secondary), so one program holds them all. The emulators do their work at once (uploads, partition
 * deletion, the cloud's consistency), so both engines meet the same answers however loaded the machine is.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Emulator, startEmulator } from "../../emulator";
import { cloudCredentialsAccess } from "../../emulator/keep/cloud-credentials";
import { isOperationSpec } from "../../provider/spec";
import { entries, Entry } from "../campaigns/cases";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { DeclaredProgram, DeclaredResource, declaredProgramFiles } from "../support/declared-program";
import { cliSession, CommandRecord, compareSessions, harnessSession, ProgramRun, recordComparison, SessionCommand } from "../support/differential";
import { pluginConfigOf, PLUGIN_SECRET_CONFIG } from "../support/plugin-sdk";
import { ENGINE_TIMEOUT, Project } from "../support/real-engine";
import type { SampleEnv, SampleInputs } from "../support/samples";

/** Types that act on what a cluster has once. */
const OWN_CLUSTER = /^keep:(Replication|Rekey|Cloud)/;

interface Case {
  entry: Entry;
  name: string;
  /** The type's own cluster, and its secondary's (replication). */
  cluster?: string;
  secondary?: string;
}

const CASES: Case[] = entries().map((entry, i) => ({
  entry,
  name: `dt${i}`,
  ...(OWN_CLUSTER.test(entry.type) ? { cluster: `t${i}` } : {}),
  ...(entry.type.startsWith("keep:Replication") ? { secondary: `t${i}-dr` } : {}),
}));
const CLUSTERS = ["main", "dr", ...CASES.flatMap((c) => [c.cluster, c.secondary].filter((n): n is string => !!n))];

/** The services of one engine's session: an emulator with every cluster, a PostgreSQL, a scratch folder. */
interface World {
  emu: Emulator;
  postgres: EmbeddedPostgres;
  scratch: string;
}

async function startWorld(): Promise<World> {
  const emu = await startEmulator({ clusters: CLUSTERS });
  emu.workspaces.setUploadDelay(0);
  emu.workspaces.setRateLimit(0);
  emu.mesh.setDeletionDelay(0);
  for (const cluster of Object.values(emu.clusters)) cloudCredentialsAccess(cluster.state).settings.consistencyWindowMs = 0;
  return { emu, postgres: await startEmbeddedPostgres(), scratch: fs.mkdtempSync(path.join(os.tmpdir(), "every-type-")) };
}

/** The services a case's sample sees: its own cluster as `keep` (and "main"), its secondary as "dr". */
function envOf(world: World, c: Case): SampleEnv {
  const main = world.emu.clusters[c.cluster ?? "main"];
  const dr = world.emu.clusters[c.secondary ?? "dr"];
  return { keep: main, clusters: { main, dr }, workspaces: world.emu.workspaces, mesh: world.emu.mesh, postgresConnectionString: world.postgres.connectionString, scratch: world.scratch };
}

/** A keep resource's inputs on the case's clusters: none names its own, "dr" its secondary. */
function onClusters(c: Case, type: string, inputs: SampleInputs): SampleInputs {
  if (!c.cluster || !type.startsWith("keep:")) return inputs;
  return { ...inputs, cluster: inputs.cluster === "dr" ? c.secondary : inputs.cluster ?? c.cluster };
}

/** The stack's settings for both doors: every cluster's, the plugin's keys, and the plugin's named clusters in its environment. */
function settingsOf(emu: Emulator): Pick<ProgramRun, "config" | "secrets" | "env"> {
  const config: Record<string, string> = {
    "workspaces:address": emu.workspaces.url,
    "workspaces:token": emu.workspaces.tokens.user,
    "workspaces:organization": emu.workspaces.organization,
    "mesh:address": emu.mesh.url,
    "mesh:token": emu.mesh.rootToken,
    ...pluginConfigOf(emu),
  };
  const env: Record<string, string> = {};
  for (const [name, cluster] of Object.entries(emu.clusters)) {
    const prefix = name === "main" ? "keep" : `keep-${name}`;
    config[`${prefix}:address`] = cluster.url;
    config[`${prefix}:token`] = cluster.rootToken;
    if (name !== "main") {
      const variable = `KEEP_${name.toUpperCase().replace(/-/g, "_")}`;
      env[`${variable}_ADDR`] = cluster.url;
      env[`${variable}_TOKEN`] = cluster.rootToken;
    }
  }
  const secrets = [...Object.keys(config).filter((k) => k.endsWith(":token")), ...PLUGIN_SECRET_CONFIG];
  return { config, secrets, env };
}

type Stage = "prerequisites" | "create" | "change" | "replacement";

/**
 * The session's program at each stage, computed from the world it runs against (the samples read
 * its services, and the inputs name what the prerequisites made there).
 */
function programs(world: World, door: "dynamic" | "plugin") {
  const needed = new Map<string, DeclaredProgram>();
  const inputs = new Map<string, SampleInputs>();
  let before: Record<string, unknown> = {};
  const outputsOf = (c: Case) => Object.fromEntries(Object.entries(before).filter(([k]) => k.startsWith(`${c.name}.`)).map(([k, v]) => [k.slice(c.name.length + 1), v]));

  return async (stage: Stage, previous: CommandRecord[]): Promise<DeclaredProgram> => {
    if (stage === "prerequisites") {
      for (const c of CASES) {
        const env = envOf(world, c);
        await c.entry.sample.prepare?.(env);
        const program = (await c.entry.sample.prerequisites?.(env, c.name)) ?? { resources: [] };
        needed.set(c.name, { ...program, resources: program.resources.map((r) => ({ ...r, inputs: onClusters(c, r.type, r.inputs) })) });
      }
    } else if (stage === "create") {
      before = previous[previous.length - 1].stackOutputs ?? {};
      for (const c of CASES) inputs.set(c.name, onClusters(c, c.entry.type, await c.entry.sample.inputs(envOf(world, c), c.name, outputsOf(c))));
    } else {
      for (const c of CASES) {
        const sample = c.entry.sample;
        const changed = stage === "change" ? sample.change && (await sample.change(inputs.get(c.name)!, envOf(world, c))) : sample.replacement && (await sample.replacement(inputs.get(c.name)!, envOf(world, c), outputsOf(c)));
        if (changed) inputs.set(c.name, onClusters(c, c.entry.type, changed));
      }
    }
    const resources: DeclaredResource[] = [];
    const outputs: Record<string, [string, string]> = {};
    for (const c of CASES) {
      const program = needed.get(c.name)!;
      resources.push(...program.resources);
      for (const [key, target] of Object.entries(program.outputs ?? {})) outputs[`${c.name}.${key}`] = target;
      if (stage === "prerequisites") continue;
      const dependsOn = [...new Set(Object.values(program.outputs ?? {}).map(([resource]) => resource))];
      resources.push({ door, type: c.entry.type, path: c.entry.path, name: c.name, inputs: inputs.get(c.name)!, dependsOn });
    }
    return { resources, outputs };
  };
}

/** The session of one world; `program.json` is written before each command from the stage's program. */
function sessionOf(world: World, door: "dynamic" | "plugin"): SessionCommand[] {
  const at = programs(world, door);
  const stage = (s: Stage) => async (previous: CommandRecord[]) => ({ "program.json": declaredProgramFiles(await at(s, previous))["program.json"] });
  return [
    { command: "up", files: stage("prerequisites") },
    { command: "up", files: stage("create") },
    { command: "preview", files: stage("change") },
    { command: "up" },
    { command: "up", files: stage("replacement") },
    { command: "refresh" },
    { command: "destroy" },
  ];
}

/** What format-preserving encryption makes is the service's, afresh in each run. */
const OPTIONS = { generated: ["encodedValue"] };

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) {
    await w.emu.close();
    await w.postgres.close();
    fs.rmSync(w.scratch, { recursive: true, force: true });
  }
});

describe.each(["dynamic", "plugin"] as const)("every resource type through the %s door, by the real CLI and by the harness", (door) => {
  test(
    "create, change, replacement, refresh and destroy of each type: the same steps, state and requests",
    async () => {
      const project = await Project.create({ name: `every-type-${door}`, runtime: "nodejs", node: "typescript", checkoutSdk: true, files: declaredProgramFiles({ resources: [] }) });
      // The plugin's resources are declared by token, as a generated SDK would: the engine finds the plugin in the package.
      project.write("Pulumi.yaml", `name: every-type-${door}\nruntime: nodejs\nplugins:\n  providers:\n    - name: keepstack\n      path: ${path.join(project.dir, "node_modules", "pulumi-keepstack", "plugin")}\n`);
      const run = async (world: World): Promise<ProgramRun> => ({ project, emu: world.emu, main: "index.ts", ...settingsOf(world.emu) });

      const cliWorld = await startWorld();
      worlds.push(cliWorld);
      const cli = await cliSession(await run(cliWorld), sessionOf(cliWorld, door), OPTIONS);
      // The CLI's own run did what the program asks: each type made, changed, replaced where it can, and gone.
      const urnOf = (c: Case) => Object.keys(cli[1].steps).find((urn) => urn.endsWith(`::${c.name}`));
      for (const c of CASES) {
        const urn = urnOf(c)!;
        expect([c.name, c.entry.type, cli[1].steps[urn]?.op]).toEqual([c.name, c.entry.type, "create"]);
        // An operation runs again on any change: a replacement.
        if (c.entry.sample.change) expect([c.entry.type, cli[3].steps[urn]?.op]).toEqual([c.entry.type, isOperationSpec(c.entry.spec) ? "replace" : "update"]);
        if (c.entry.sample.replacement) expect([c.entry.type, cli[4].steps[urn]?.op]).toEqual([c.entry.type, "replace"]);
        expect([c.entry.type, cli[6].steps[urn]?.op]).toEqual([c.entry.type, "delete"]);
      }
      expect(Object.values(cli[5].steps).filter((s) => s.op !== "same")).toEqual([]);

      const harnessWorld = await startWorld();
      worlds.push(harnessWorld);
      const harness = await harnessSession(await run(harnessWorld), sessionOf(harnessWorld, door), OPTIONS);
      const comparison = compareSessions(`every type, ${door} door`, cli, harness, OPTIONS);
      recordComparison(`every type, ${door} door`, comparison);
      expect(comparison.differences).toEqual([]);
    },
    ENGINE_TIMEOUT,
  );
});
