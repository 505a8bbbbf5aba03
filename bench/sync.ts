#!/usr/bin/env node
/**
 * Secret sync figures against the local emulator (a test double of the service):
 *
 * - requests: HTTP requests per operation of a destination and of an association (create, refresh,
 *   delete), counted in the emulator's request log;
 * - associations: N associations of N key-value secrets with one destination, applied (`up`) and
 *   destroyed through a Pulumi program, the harness and the real provider host: seconds and requests.
 *
 * `npx tsc -p tsconfig.build.json && node dist/bench/sync.js [--associations 500] [--parallel 16] [--json]`
 */
import * as path from "node:path";
import { Command } from "commander";
import { startKeepEmulator, KeepEmulator } from "keepstack-emulator";
import { Engine } from "../harness/engine";
import { keep } from "../index";

const exampleDir = path.join(__dirname, "..", "..", "examples", "quickstart");

function engineFor(emu: KeepEmulator, parallel: number): Engine {
  return new Engine({ project: "keepstack-bench", cwd: exampleDir, parallel, config: { "keep:address": emu.url, "keep:token": emu.rootToken }, secretConfig: ["keep:token"] });
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** Requests of one operation that touch `part` of a path, as the emulator logged them. */
async function counted(emu: KeepEmulator, op: () => Promise<unknown>): Promise<(part: RegExp) => number> {
  emu.log.clear();
  await op();
  const lines = emu.log.lines();
  return (part) => lines.filter((l) => part.test(l)).length;
}

async function measureRequests(emu: KeepEmulator) {
  emu.kv.write({ path: "bench/one" }, { key: "value" });
  const engine = engineFor(emu, 16);
  const program = () => {
    const d = new keep.sync.CloudASmDestination("d", { name: "bench", region: "eu-west-1" });
    new keep.sync.Association("a", { destinationType: d.destinationType, destinationName: d.name, secretName: "bench/one" });
  };
  const destination = /\/sys\/sync\/destinations\/cloudA-sm\/bench(\?|$)/;
  const association = /\/associations/;
  try {
    const create = await counted(emu, () => engine.up(program));
    const refresh = await counted(emu, () => engine.refresh());
    const destroy = await counted(emu, () => engine.destroy());
    return {
      destination: { create: create(destination), refresh: refresh(destination), delete: destroy(destination) },
      association: { create: create(association), refresh: refresh(association), delete: destroy(association) },
    };
  } finally {
    await engine.close();
  }
}

async function measureAssociations(emu: KeepEmulator, count: number, parallel: number) {
  const names = Array.from({ length: count }, (_, i) => `bench/many/s-${i}`);
  for (const name of names) emu.kv.write({ path: name }, { key: name });
  const engine = engineFor(emu, parallel);
  const program = () => {
    const d = new keep.sync.CloudASmDestination("d", { name: "many", region: "eu-west-1" });
    names.forEach((secretName, i) => new keep.sync.Association(`a-${i}`, { destinationType: d.destinationType, destinationName: d.name, secretName }));
  };
  try {
    // Warm the provider host and the connections.
    await engine.preview(program);
    emu.log.clear();
    let start = process.hrtime.bigint();
    await engine.up(program);
    const upSeconds = seconds(start);
    const upRequests = emu.log.count;
    emu.log.clear();
    start = process.hrtime.bigint();
    await engine.destroy();
    const destroySeconds = seconds(start);
    return { associations: count, parallel, upSeconds, upRequests, destroySeconds, destroyRequests: emu.log.count };
  } finally {
    await engine.close();
  }
}

export interface SyncBench {
  requests: Awaited<ReturnType<typeof measureRequests>>;
  associations: Awaited<ReturnType<typeof measureAssociations>>;
}

export async function runSyncBench(options: { associations: number; parallel: number }): Promise<SyncBench> {
  const emu = await startKeepEmulator();
  try {
    return { requests: await measureRequests(emu), associations: await measureAssociations(emu, options.associations, options.parallel) };
  } finally {
    await emu.close();
  }
}

export function describeSyncBench(r: SyncBench): string[] {
  const ops = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v}`).join(", ");
  const a = r.associations;
  return [
    `syncRequests       destination: ${ops(r.requests.destination)}; association: ${ops(r.requests.association)}`,
    `syncAssociations   ${a.associations} associations (${a.parallel} at a time) through the provider host: up ${a.upSeconds.toFixed(2)} s / ${a.upRequests} requests, destroy ${a.destroySeconds.toFixed(2)} s / ${a.destroyRequests} requests`,
  ];
}

if (require.main === module) {
  const opts = new Command()
    .name("bench-sync")
    .option("--associations <n>", "associations applied and destroyed", "500")
    .option("--parallel <n>", "concurrent provider operations", "16")
    .option("--json", "print the figures as JSON")
    .parse()
    .opts<{ associations: string; parallel: string; json?: boolean }>();
  runSyncBench({ associations: Number(opts.associations), parallel: Number(opts.parallel) })
    .then((r) => console.log(opts.json ? JSON.stringify(r, null, 2) : describeSyncBench(r).join("\n")))
    .catch((e) => {
      console.error(e instanceof Error ? e.stack : e);
      process.exit(1);
    });
}
