/**
 * A cluster that already holds one object of every type the plugin can import (the campaigns'
 * service samples, their prerequisites included), made through the harness, and the file
 * `pulumi import --file` takes of it, written by `pulumi-keepstack import --all --format
 * pulumi-import` with the types that cannot be listed added by ID, as docs/import.md says.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Emulator } from "keepstack-emulator";
import { Engine } from "../../harness";
import { createContext } from "../../provider/context";
import { machineOf } from "../../provider/machine";
import { ResourceSpec } from "../../provider/spec";
import { Entry, entries, pluginStepsOf } from "../campaigns/cases";
import { pluginConfigOf, pluginResource, pluginToken, PLUGIN_SECRET_CONFIG, serviceEnv } from "../support/plugin-sdk";
import { declare } from "../support/declared-program";
import { run } from "../support/real-engine";
import type { SampleEnv } from "../support/samples";

export interface ImportFile {
  resources: { type: string; name: string; id: string; provider?: string; parent?: string }[];
  nameTable?: Record<string, string>;
}

/** Every type the plugin imports: objects a service shows (no operation, nothing its spec calls unimportable). */
export const importableEntries = (): Entry[] => entries().filter((e) => pluginStepsOf(e).includes("import"));

export interface Cluster {
  /** Each type's object's natural ID, by short type. */
  ids: Map<string, string>;
  /** The inputs each type's object was made with, by short type. */
  inputs: Map<string, Record<string, unknown>>;
}

/** Makes one object of every importable type on `emu` (its `dr` cluster is the replication samples'). */
export async function makeCluster(emu: Emulator, postgresConnectionString: string): Promise<Cluster> {
  const env: SampleEnv = {
    keep: emu.keep,
    clusters: { main: emu.keep, dr: emu.clusters.dr },
    workspaces: emu.workspaces,
    mesh: emu.mesh,
    postgresConnectionString,
    scratch: fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-cluster-")),
  };
  const config = {
    ...pluginConfigOf(emu),
    "keep:address": emu.keep.url,
    "keep:token": emu.keep.rootToken,
    "workspaces:address": emu.workspaces.url,
    "workspaces:token": emu.workspaces.tokens.user,
    "workspaces:organization": emu.workspaces.organization,
    "mesh:address": emu.mesh.url,
    "mesh:token": emu.mesh.rootToken,
  };
  const maker = new Engine({ project: "made-earlier", config, secretConfig: [...PLUGIN_SECRET_CONFIG, "keep:token", "workspaces:token", "mesh:token"] });
  const ids = new Map<string, string>();
  const inputs = new Map<string, Record<string, unknown>>();
  try {
    const made = importableEntries();
    for (const entry of made) await entry.sample.prepare?.(env);
    // The objects each one needs, all in one run; then the objects themselves, through the plugin.
    const names = new Map(made.map((entry, i) => [entry.type, `imp${i}`]));
    const programs = await Promise.all(made.map(async (entry) => entry.sample.prerequisites?.(env, names.get(entry.type)!)));
    const needed = await maker.up(async () => {
      const out: Record<string, unknown> = {};
      for (const [i, program] of programs.entries()) if (program) out[made[i].type] = declare(program);
      return out;
    });
    for (const entry of made) {
      inputs.set(entry.type, await entry.sample.inputs(env, names.get(entry.type)!, (needed.outputs[entry.type] ?? {}) as Record<string, unknown>));
    }
    await maker.up(async () => {
      const out: Record<string, unknown> = {};
      for (const [i, program] of programs.entries()) if (program) out[made[i].type] = declare(program);
      for (const entry of made) pluginResource(entry.type, names.get(entry.type)!, inputs.get(entry.type)!);
      return out;
    });
    // Natural IDs as check gives them (it reads the settings, and asks no service).
    const context = createContext((key) => config[key as keyof typeof config], {}, { warn: () => undefined, info: () => undefined });
    for (const entry of made) {
      const machine = machineOf(entry.spec, () => context);
      const checked = await machine.check({}, inputs.get(entry.type)!);
      ids.set(entry.type, (entry.spec as ResourceSpec).naturalId(checked.inputs as never));
    }
  } finally {
    // The objects stay on the services; the maker's state goes.
    maker.state.clear();
    await maker.close();
  }
  return { ids, inputs };
}

/** `pulumi-keepstack import ... --format pulumi-import` of the packed checkout: the file, and what it said on standard error. */
async function importCommand(args: string[], env: Record<string, string>): Promise<{ file: ImportFile; stderr: string }> {
  const cli = path.join(__dirname, "..", "..", "dist", "cli", "main.js");
  const { stdout, stderr } = await run(process.execPath, [cli, "import", ...args, "--format", "pulumi-import"], { cwd: os.tmpdir(), env: { PATH: process.env.PATH, ...env } });
  return { file: JSON.parse(stdout) as ImportFile, stderr };
}

/**
 * The file for `pulumi import --file`, as docs/import.md makes it: `import --all`, then each type it
 * cannot list by its ID (`import <type> <id>`); with what the commands said on standard error.
 */
export async function importFileOf(emu: Emulator, ids: Map<string, string>, extraArgs: string[] = [], env = serviceEnv(emu)): Promise<{ file: ImportFile; stderr: string }> {
  const all = await importCommand(["--all", ...extraArgs], env);
  const listed = new Set(all.file.resources.map((r) => r.type));
  for (const entry of importableEntries()) {
    if (listed.has(pluginToken(entry.type)) || !ids.has(entry.type)) continue;
    const one = await importCommand([entry.type, ids.get(entry.type)!, ...extraArgs], env);
    all.file.resources.push(...one.file.resources);
    all.stderr += one.stderr;
  }
  return all;
}
