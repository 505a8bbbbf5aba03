/**
 * Every resource type through both doors in one declared program (ARCHITECTURE.md, "The real engine is the judge"): the fault matrix's
 * samples (tests/support/samples.ts), each type once through each door (its prerequisites through
 * the dynamic one, as the matrix declares them), against an emulator of its own ("a world").
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
import { Emulator, startEmulator } from "keepstack-emulator";
import { envName } from "../../provider/config";
import { entries, Entry } from "../campaigns/cases";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { DeclaredProgram, DeclaredResource, declaredProgramFiles } from "../support/declared-program";
import { CommandRecord, ProgramRun, withoutDelays } from "../support/differential";
import { followCensus } from "../support/census";
import { pluginConfigOf, PLUGIN_SECRET_CONFIG, settingsOfDoor } from "../support/plugin-sdk";
import { Project } from "../support/real-engine";
import type { SampleEnv, SampleInputs } from "../support/samples";

/** Types that act on what a cluster has once. */
const OWN_CLUSTER = /^keep:(Replication|Rekey|Cloud|SyncConfig)/;

export type Door = "dynamic" | "plugin";

export interface Case {
  entry: Entry;
  door: Door;
  name: string;
  /** The case's own cluster, and its secondary's (replication). */
  cluster?: string;
  secondary?: string;
}

export const CASES: Case[] = (["dynamic", "plugin"] as const).flatMap((door) =>
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
export interface World {
  emu: Emulator;
  postgres: EmbeddedPostgres;
  scratch: string;
  /** What the services hold now (tests/support/census.ts). */
  census(): Promise<Set<string>>;
}

export async function startWorld(): Promise<World> {
  const emu = withoutDelays(await startEmulator({ clusters: CLUSTERS }));
  const census = followCensus({ clusters: Object.values(emu.clusters), workspaces: emu.workspaces, mesh: emu.mesh });
  return { emu, postgres: await startEmbeddedPostgres(), scratch: fs.mkdtempSync(path.join(os.tmpdir(), "every-type-")), census };
}

/** The services a case's sample sees: its own cluster as `keep` (and "main"), its secondary as "dr". */
export function envOf(world: World, c: Case): SampleEnv {
  const main = world.emu.clusters[c.cluster ?? "main"];
  const dr = world.emu.clusters[c.secondary ?? "dr"];
  return { keep: main, clusters: { main, dr }, workspaces: world.emu.workspaces, mesh: world.emu.mesh, postgresConnectionString: world.postgres.connectionString, scratch: world.scratch };
}

/** A keep resource's inputs on the case's clusters: none names its own, "dr" its secondary. */
export function onClusters(c: Case, type: string, inputs: SampleInputs): SampleInputs {
  if (!c.cluster || !type.startsWith("keep:")) return inputs;
  return { ...inputs, cluster: inputs.cluster === "dr" ? c.secondary : inputs.cluster ?? c.cluster };
}

/**
 * The stack's settings for both doors: every cluster's, the plugin's keys, and the plugin's named
 * clusters in its environment; `tuning` (such as `timeoutSeconds`) for every service through both
 * doors (a named cluster takes its service's).
 */
export function settingsOf(emu: Emulator, tuning: Record<string, string> = {}): Pick<ProgramRun, "config" | "secrets" | "env"> {
  const tuned = Object.fromEntries((["keep", "workspaces", "mesh"] as const).flatMap((service) => Object.entries(tuning).map(([setting, value]) => [`${service}:${setting}`, value])));
  const config: Record<string, string> = {
    "workspaces:address": emu.workspaces.url,
    "workspaces:token": emu.workspaces.tokens.user,
    "workspaces:organization": emu.workspaces.organization,
    "mesh:address": emu.mesh.url,
    "mesh:token": emu.mesh.rootToken,
    ...pluginConfigOf(emu),
    ...tuned,
    ...settingsOfDoor("plugin", tuned),
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

export type Stage = "prerequisites" | "create" | "change" | "replacement";

/**
 * The session's program at each stage, computed from the world it runs against (the samples read
 * its services, and the inputs name what the prerequisites made there).
 */
export function programs(world: World, cases: readonly Case[] = CASES) {
  const needed = new Map<string, DeclaredProgram>();
  const inputs = new Map<string, SampleInputs>();
  let before: Record<string, unknown> = {};
  const outputsOf = (c: Case) => Object.fromEntries(Object.entries(before).filter(([k]) => k.startsWith(`${c.name}.`)).map(([k, v]) => [k.slice(c.name.length + 1), v]));

  return async (stage: Stage, previous: CommandRecord[]): Promise<DeclaredProgram> => {
    if (stage === "prerequisites") {
      for (const c of cases) {
        const env = envOf(world, c);
        await c.entry.sample.prepare?.(env);
        const program = (await c.entry.sample.prerequisites?.(env, c.name)) ?? { resources: [] };
        needed.set(c.name, { ...program, resources: program.resources.map((r) => ({ ...r, inputs: onClusters(c, r.type, r.inputs) })) });
      }
    } else if (stage === "create") {
      before = previous[previous.length - 1].stackOutputs ?? {};
      for (const c of cases) inputs.set(c.name, onClusters(c, c.entry.type, await c.entry.sample.inputs(envOf(world, c), c.name, outputsOf(c))));
    } else {
      for (const c of cases) {
        const sample = c.entry.sample;
        const changed = stage === "change" ? sample.change && (await sample.change(inputs.get(c.name)!, envOf(world, c))) : sample.replacement && (await sample.replacement(inputs.get(c.name)!, envOf(world, c), outputsOf(c)));
        if (changed) inputs.set(c.name, onClusters(c, c.entry.type, changed));
      }
    }
    const resources: DeclaredResource[] = [];
    const outputs: Record<string, [string, string]> = {};
    for (const c of cases) {
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

export async function closeWorld(world: World): Promise<void> {
  await world.emu.close();
  await world.postgres.close();
  fs.rmSync(world.scratch, { recursive: true, force: true });
}

/**
 * A project that runs the declared program: JavaScript (the Node.js host need not load TypeScript),
 * the plugin's resources declared by token as a generated SDK would, the engine finding the plugin
 * in the package.
 */
export async function everyTypeProject(name: string): Promise<Project> {
  const project = await Project.create({ name, runtime: "nodejs", node: "typescript", checkoutSdk: true, files: declaredProgramFiles({ resources: [] }) });
  project.write(
    "Pulumi.yaml",
    `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nplugins:\n  providers:\n    - name: keepstack\n      path: ${path.join(project.dir, "node_modules", "pulumi-keepstack", "plugin")}\n`,
  );
  return project;
}
