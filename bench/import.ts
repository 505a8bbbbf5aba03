/**
 * Bench of `pulumi-keepstack import --all`: an emulated cluster holding N objects of every listable
 * type the package can seed here, imported by a separate process (the command's own code, from
 * dist/): wall time, requests the services received, peak memory (RSS) of the importing process, and
 * the size of the printed program.
 *
 * Objects are made through each spec's own `create` (no Pulumi engine), from one sample of inputs
 * per type; a listable type without a sample is reported as not seeded.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { mapLimited, listableSpecs } from "../cli/import-all";
import { startKeepEmulator, startMeshEmulator, startWorkspacesEmulator } from "keepstack-emulator";
import { createContext } from "../provider/context";

/** Inputs of the i-th sample object, per class path. */
const SAMPLES: Record<string, (i: number) => Record<string, unknown>> = {
  "keep.AclPolicy": (i) => ({ name: `acl-${i}`, policy: `path "secret/data/app-${i}/*" { capabilities = ["read"] }` }),
  "keep.RgpPolicy": (i) => ({ name: `rgp-${i}`, policy: "main = rule { true }", enforcementLevel: "advisory" }),
  "keep.EgpPolicy": (i) => ({ name: `egp-${i}`, policy: "main = rule { true }", enforcementLevel: "advisory", paths: [`secret/app-${i}/*`] }),
  "keep.sync.CloudASmDestination": (i) => ({ name: `a-${i}`, region: "eu-west-1", roleArn: "arn:aws:iam::123456789012:role/sync" }),
  "keep.sync.CloudBKvDestination": (i) => ({ name: `b-${i}`, keyVaultUri: "https://kv.example.net/", clientId: "c", tenantId: "t", clientSecret: "s" }),
  "keep.sync.CloudCSmDestination": (i) => ({ name: `c-${i}`, projectId: "p", credentials: "{}" }),
  "keep.sync.RepoHostDestination": (i) => ({ name: `r-${i}`, accessToken: "t", repositoryOwner: "o", repositoryName: `repo-${i}` }),
  "keep.sync.WebHostProjectDestination": (i) => ({ name: `w-${i}`, projectId: `prj_${i}`, deploymentEnvironments: ["production"], accessToken: "t" }),
  "keep.sync.Association": (i) => ({ destinationType: "cloudA-sm", destinationName: `a-${i}`, mount: "secret", secretName: `bench/s-${i}` }),
  "keep.kv.Secret": (i) => ({ path: `bench/s-${i}`, data: { value: `v-${i}` } }),
  "keep.transform.Alphabet": (i) => ({ name: `alphabet-${i}`, alphabet: "0123456789abcdef" }),
  "keep.transform.Template": (i) => ({ name: `template-${i}`, pattern: "(\\d{4})-(\\d{4})", alphabet: `alphabet-${i}` }),
  "keep.transform.Transformation": (i) => ({ name: `fpe-${i}`, type: "fpe", template: `template-${i}`, tweakSource: "internal", allowedRoles: [`role-${i}`] }),
  "keep.transform.Role": (i) => ({ name: `role-${i}`, transformations: [`fpe-${i}`] }),
  "keep.transform.Store": (i) => ({ name: `store-${i}`, driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@db:5432/t", username: "u", password: "p" }),
  "keep.cloud.Role": (i) => ({ name: `role-${i}`, credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }),
  "workspaces.Workspace": (i) => ({ name: `ws-bench-${i}`, executionMode: "local" }),
  "mesh.Partition": (i) => ({ name: `part-${i}`, description: `partition ${i}` }),
};

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
    const ctx = createContext((k) => config[k], {});
    const listable = listableSpecs();
    const seeded = listable.filter((s) => SAMPLES[s.path]);
    // Secrets before associations, destinations before associations: the sample table's order.
    const order = Object.keys(SAMPLES);
    seeded.sort((a, b) => order.indexOf(a.path) - order.indexOf(b.path));
    const started = process.hrtime.bigint();
    const byPath = new Map(seeded.map((s) => [s.path, s]));
    const kvFirst = ["keep.kv.Secret", ...order.filter((p) => p !== "keep.kv.Secret")];
    for (const p of kvFirst) {
      const s = byPath.get(p);
      if (!s) continue;
      const indexes = Array.from({ length: options.perType }, (_, i) => i);
      await mapLimited(indexes, 32, async (i) => {
        const inputs = s.spec.inputs.parse(SAMPLES[s.path](i));
        await s.spec.create(ctx, inputs);
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
      notSeeded: listable.filter((s) => !SAMPLES[s.path]).map((s) => s.path),
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
    ...(r.notSeeded.length ? [`                   not seeded (no sample yet): ${r.notSeeded.join(", ")}`] : []),
  ];
}
