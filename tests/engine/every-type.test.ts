/**
 * Every resource type through both doors, under the real CLI and through the harness (design §15):
 * the fault matrix's programs without faults (tests/support/samples.ts), all of them in one
 * program, each type once through each door (its prerequisites through the dynamic one, as the
 * matrix declares them). The session: up of the prerequisites, up of everything (each type's
 * create), a preview and an up of each type's in-place change, an up of each type's replacement,
 * refresh, destroy. Then the same session through the harness against an emulator that starts
 * alike, and the two compared step by step (tests/support/differential.ts).
 *
 * A type that acts on what a cluster has once (its replication, its seal, its cloud engine's root
 * configuration, the sync configuration) gets a cluster of its own for each door (`cluster: "d7"`, a
 * replication type a second one for its secondary), so one program holds them all. The emulators do
 * their work at once (`withoutDelays`), so both engines meet the same answers however loaded the
 * machine is.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Emulator, startEmulator } from "../../emulator";
import { envName } from "../../provider/config";
import { isOperationSpec } from "../../provider/spec";
import { entries, Entry } from "../campaigns/cases";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { DeclaredProgram, DeclaredResource, declaredProgramFiles } from "../support/declared-program";
import { cliSession, CommandRecord, compareSessions, harnessSession, ProgramRun, recordComparison, SessionCommand, withoutDelays } from "../support/differential";
import { pluginConfigOf, PLUGIN_SECRET_CONFIG } from "../support/plugin-sdk";
import { ENGINE_TIMEOUT, Project } from "../support/real-engine";
import type { SampleEnv, SampleInputs } from "../support/samples";

/** Types that act on what a cluster has once. */
const OWN_CLUSTER = /^keep:(Replication|Rekey|Cloud|SyncConfig)/;

type Door = "dynamic" | "plugin";

interface Case {
  entry: Entry;
  door: Door;
  name: string;
  /** The case's own cluster, and its secondary's (replication). */
  cluster?: string;
  secondary?: string;
}

const CASES: Case[] = (["dynamic", "plugin"] as const).flatMap((door) =>
  entries().map((entry, i) => {
    const name = `${door[0]}t${i}`;
    return {
      entry,
      door,
      name,
      ...(OWN_CLUSTER.test(entry.type) ? { cluster: `${door[0]}${i}` } : {}),
      ...(entry.type.startsWith("keep:Replication") ? { secondary: `${door[0]}${i}-dr` } : {}),
    };
  }),
);
const CLUSTERS = ["main", "dr", ...CASES.flatMap((c) => [c.cluster, c.secondary].filter((n): n is string => !!n))];

/** The services of one engine's session: an emulator with every cluster, a PostgreSQL, a scratch folder. */
interface World {
  emu: Emulator;
  postgres: EmbeddedPostgres;
  scratch: string;
}

async function startWorld(): Promise<World> {
  const emu = withoutDelays(await startEmulator({ clusters: CLUSTERS }));
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
      env[envName("KEEP_ADDR", name)] = cluster.url;
      env[envName("KEEP_TOKEN", name)] = cluster.rootToken;
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
function programs(world: World) {
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
      resources.push({ door: c.door, type: c.entry.type, path: c.entry.path, name: c.name, inputs: inputs.get(c.name)!, dependsOn });
    }
    return { resources, outputs };
  };
}

/** The session of one world; `program.json` is written before each command from the stage's program. */
function sessionOf(world: World): SessionCommand[] {
  const at = programs(world);
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

/**
 * What format-preserving encryption makes is the service's, afresh in each run; the mesh's indexes
 * count every write the service took, so they follow the order of writes across resources, which
 * is not compared (each resource's own requests are).
 */
const OPTIONS = { generated: ["encodedValue", "createIndex", "modifyIndex"] };

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) {
    await w.emu.close();
    await w.postgres.close();
    fs.rmSync(w.scratch, { recursive: true, force: true });
  }
});

test(
  "every type through each door: create, change, replacement, refresh and destroy take the same steps, leave the same state and send the same requests",
  async () => {
    const project = await Project.create({ name: "every-type", runtime: "nodejs", node: "typescript", checkoutSdk: true, files: declaredProgramFiles({ resources: [] }) });
    // The plugin's resources are declared by token, as a generated SDK would: the engine finds the
    // plugin in the package. The program is JavaScript: the Node.js host need not load TypeScript.
    project.write(
      "Pulumi.yaml",
      `name: every-type\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nplugins:\n  providers:\n    - name: keepstack\n      path: ${path.join(project.dir, "node_modules", "pulumi-keepstack", "plugin")}\n`,
    );
    const run = async (world: World): Promise<ProgramRun> => ({ project, emu: world.emu, main: "index.js", ...settingsOf(world.emu) });

    const cliWorld = await startWorld();
    worlds.push(cliWorld);
    const cli = await cliSession(await run(cliWorld), sessionOf(cliWorld), OPTIONS);
    // The CLI's own run did what the program asks: each type made, changed, replaced where it can, and gone.
    for (const c of CASES) {
      const urn = Object.keys(cli[1].steps).find((u) => u.endsWith(`::${c.name}`))!;
      const label = `${c.entry.type} through the ${c.door} door`;
      expect([label, cli[1].steps[urn]?.op]).toEqual([label, "create"]);
      // An operation runs again on any change: a replacement.
      if (c.entry.sample.change) expect([label, cli[3].steps[urn]?.op]).toEqual([label, isOperationSpec(c.entry.spec) ? "replace" : "update"]);
      if (c.entry.sample.replacement) expect([label, cli[4].steps[urn]?.op]).toEqual([label, "replace"]);
      expect([label, cli[6].steps[urn]?.op]).toEqual([label, "delete"]);
    }
    expect(Object.values(cli[5].steps).filter((s) => s.op !== "same")).toEqual([]);

    const harnessWorld = await startWorld();
    worlds.push(harnessWorld);
    const harness = await harnessSession(await run(harnessWorld), sessionOf(harnessWorld), OPTIONS);
    const comparison = compareSessions("every type through both doors", cli, harness, OPTIONS);
    recordComparison("every type through both doors", comparison);
    expect(comparison.differences).toEqual([]);
  },
  ENGINE_TIMEOUT,
);
