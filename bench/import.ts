/**
 * Bench of `pulumi-keepstack import --all`: an emulated cluster holding N objects of every listable
 * type the package can seed here, imported by a separate process (the command's own code, from
 * dist/): wall time, requests the services received, peak memory (RSS) of the importing process, and
 * the size of the printed program.
 *
 * Objects are made through each spec's own `create` (no Pulumi engine), the i-th from its spec's
 * example `inputs(i)`; a listable type without an example is reported as not seeded.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { mapLimited, listableSpecs } from "../cli/import-all";
import { startKeepEmulator, startMeshEmulator, startWorkspacesEmulator } from "keepstack-emulator";
import { createContext } from "../provider/context";

export interface ImportBench {
  perType: number;
  seeded: string[];
  notSeeded: string[];
  objects: number;
  seedSeconds: number;
  importSeconds: number;
  requests: number;
  requestsPerObject: number;
  peakRssMB: number;
  programMB: number;
  concurrency: number;
}

export async function runImportBench(options: { perType: number; concurrency?: number }): Promise<ImportBench> {
  const concurrency = options.concurrency ?? 8;
  const keep = await startKeepEmulator();
  const workspaces = await startWorkspacesEmulator({ rateLimitPerSecond: 0 });
  const mesh = await startMeshEmulator();
  const services = [keep, workspaces, mesh];
  try {
    const config: Record<string, string> = {
      "keep:address": keep.url,
      "keep:token": keep.rootToken,
      "workspaces:address": workspaces.url,
      "workspaces:token": workspaces.tokens.user,
      "workspaces:organization": workspaces.organization,
      "mesh:address": mesh.url,
      "mesh:token": mesh.rootToken,
    };
    // The examples' secrets are references to a setting and a variable: these resolve them.
    const ctx = createContext((k) => (k === "app:secret" ? "bench-secret" : config[k]), { APP_SECRET: "bench-secret" });
    const listable = listableSpecs();
    const seeded = listable.filter((s) => s.spec.example);
    // The catalog's order (destinations before associations), the key-value secrets that
    // associations name first of all.
    seeded.sort((a, b) => Number(b.path === "keep.kv.Secret") - Number(a.path === "keep.kv.Secret"));
    const started = process.hrtime.bigint();
    for (const s of seeded) {
      const indexes = Array.from({ length: options.perType }, (_, i) => i);
      await mapLimited(indexes, 32, async (i) => {
        await s.spec.create(ctx, s.spec.inputs.parse(s.spec.example!.inputs(i)));
      });
    }
    const seedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    services.forEach((s) => s.log.clear());

    const dist = path.join(__dirname, "..");
    const script = `
      const { importAll } = require(${JSON.stringify(path.join(dist, "cli", "import-all.js"))});
      const { renderProgram } = require(${JSON.stringify(path.join(dist, "cli", "program-text.js"))});
      const config = JSON.parse(process.env.BENCH_CONFIG);
      const started = process.hrtime.bigint();
      importAll({ lookup: (k) => config[k], env: {}, concurrency: ${concurrency} }).then((objects) => {
        const text = renderProgram(objects).text;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        console.log(JSON.stringify({ seconds, objects: objects.length, maxRssKB: process.resourceUsage().maxRSS, programBytes: Buffer.byteLength(text) }));
      }).catch((e) => { console.error(e); process.exit(1); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], {
      env: { PATH: process.env.PATH, BENCH_CONFIG: JSON.stringify(config) },
      maxBuffer: 64 * 1024 * 1024,
    });
    const child = JSON.parse(stdout.trim().split("\n").pop()!) as { seconds: number; objects: number; maxRssKB: number; programBytes: number };
    const requests = services.reduce((n, s) => n + s.log.count, 0);
    return {
      perType: options.perType,
      seeded: seeded.map((s) => s.path),
      notSeeded: listable.filter((s) => !s.spec.example).map((s) => s.path),
      objects: child.objects,
      seedSeconds,
      importSeconds: child.seconds,
      requests,
      requestsPerObject: requests / child.objects,
      peakRssMB: child.maxRssKB / 1024,
      programMB: child.programBytes / 1024 / 1024,
      concurrency,
    };
  } finally {
    await Promise.all(services.map((s) => s.close()));
  }
}

export function describeImportBench(r: ImportBench): string[] {
  return [
    `import --all       ${r.objects} objects (${r.perType} of each of ${r.seeded.length} types) read in ${r.importSeconds.toFixed(2)} s, ${r.concurrency} at a time: ${r.requests} requests (${r.requestsPerObject.toFixed(2)} per object), peak RSS ${r.peakRssMB.toFixed(0)} MB, program ${r.programMB.toFixed(1)} MB`,
    ...(r.notSeeded.length ? [`                   not seeded (no example yet): ${r.notSeeded.join(", ")}`] : []),
  ];
}
