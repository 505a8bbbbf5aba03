#!/usr/bin/env node
/**
 * `npm run bench`: figures of the package against the local emulator (a test double of the
 * services), printed, or written as one JSON object with `--json [file]`.
 *
 * - shimBytes: size of the provider text (`__provider`) each resource carries in state;
 * - requests: HTTP requests per operation of one policy (preview, create, update, refresh, delete);
 * - applyRatio: time to create and destroy N policies through the real provider host (driven over
 *   gRPC with the engine's calls: Check and Create, then Delete), divided by the time of the same
 *   HTTP calls made directly with the same concurrency;
 * - hostCpuMsPerOperation: CPU time of the provider host process (user + system, from the kernel's
 *   accounting of that process) per gRPC operation (Check, Create, Delete) during the applyRatio
 *   measurement, best round;
 * - hostStartMs, bareHostStartMs: from the provider host's start to its first Check answered (the
 *   package's modules for that type loaded), ours and the bare provider's, median of three;
 * - hostCpuOverBare, bareHostCpuMsPerOperation, bareApplyRatio: the same run by a bare provider (the
 *   same requests with `http.request`, nothing else) in its own host: the floor the host itself sets,
 *   and how far above it the package is (best round over best round); hostCpuOverBarePaired, the
 *   median of the two hosts' ratio round by round, which a busy machine moves less;
 * - pluginHostCpuMsPerOperation, pluginHostCpuOverBare, pluginApplyRatio: the same run through the
 *   provider plugin (`pulumi-resource-keepstack`, the plugin door to the same machines), in the same
 *   rounds as the dynamic host and the bare provider; pluginRequests: HTTP requests per operation of
 *   one policy declared with the plugin's token (preview, create, update, refresh, delete);
 * - programApplyRatio: the same, but running a Pulumi program through the whole harness (the SDK's
 *   runtime registering each resource, then the host): what a user's `up` + `destroy` costs here;
 * - upload: streaming upload of a configuration version (peak RSS growth, throughput next to
 *   `tar -cz | curl -T -`).
 *
 * `--scale 1000,5000` is the scale mode instead: a program of that many resources through the harness
 * (up, refresh, destroy), its process's peak memory, and the times against the first count's.
 *
 * `--engine 200,1000` is the engine mode instead: programs of that many resources through each door
 * under the pulumi CLI on the PATH, beside the engine's floor (bench/engine.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Command } from "commander";
import { startKeepEmulator, KeepEmulator } from "keepstack-emulator";
import { Engine } from "../harness/engine";
import { ProviderHost } from "../harness/provider-host";
import { resolveServiceConfig } from "../provider/config";
import { KeepClient } from "../provider/keep-client";
import { keep } from "../index";
import { bareProviderText } from "./bare-provider";

const exampleDir = path.join(__dirname, "..", "..", "examples", "quickstart");
const POLICY = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

function pluginEngineFor(emu: KeepEmulator): Engine {
  return new Engine({
    project: "keepstack-bench",
    cwd: exampleDir,
    config: { "keepstack:keepAddress": emu.url, "keepstack:keepToken": emu.rootToken },
    secretConfig: ["keepstack:keepToken"],
  });
}

function engineFor(emu: KeepEmulator, parallel: number): Engine {
  return new Engine({
    project: "keepstack-bench",
    cwd: exampleDir,
    parallel,
    config: { "keep:address": emu.url, "keep:token": emu.rootToken },
    secretConfig: ["keep:token"],
  });
}

/** A policy declared with the plugin's token, as an SDK generated from the plugin's schema declares it. */
class PluginAclPolicy extends pulumi.CustomResource {
  constructor(name: string, args: { name: string; policy: string }) {
    super("keepstack:keep:AclPolicy", name, { ...args, namespace: undefined, cluster: undefined, adopt: undefined });
  }
}

async function measureRequests(emu: KeepEmulator, door: "dynamic" | "plugin" = "dynamic") {
  const engine = door === "plugin" ? pluginEngineFor(emu) : engineFor(emu, 16);
  const program = (policy: string) => () => {
    if (door === "plugin") new PluginAclPolicy("bench", { name: "bench", policy });
    else new keep.AclPolicy("bench", { name: "bench", policy });
  };
  const count = async (op: () => Promise<unknown>) => {
    emu.log.clear();
    await op();
    return emu.log.count;
  };
  try {
    const requests = {
      preview: await count(() => engine.preview(program(POLICY))),
      create: await count(() => engine.up(program(POLICY))),
      update: await count(() => engine.up(program(POLICY.replace("read", "list")))),
      refresh: await count(() => engine.refresh()),
      delete: await count(() => engine.destroy()),
    };
    await engine.up(program(POLICY));
    const provider = String([...engine.state.values()][0].outputs.__provider ?? "");
    await engine.destroy();
    return { requests, shimBytes: Buffer.byteLength(provider, "utf8"), providerText: provider };
  } finally {
    await engine.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function measureProgramApplyRatio(emu: KeepEmulator, count: number, parallel: number, rounds: number) {
  const names = Array.from({ length: count }, (_, i) => `bench-${i}`);
  const engine = engineFor(emu, parallel);
  const program = () => {
    for (const name of names) new keep.AclPolicy(name, { name, policy: POLICY });
  };
  const client = new KeepClient(resolveServiceConfig("keep", (k) => ({ "keep:address": emu.url, "keep:token": emu.rootToken })[k], {}));
  let provider = Infinity;
  let direct = Infinity;
  try {
    // Warm both paths (provider host start, module loading, keep-alive connections).
    await engine.up(program);
    await engine.destroy();
    await pool(names, parallel, (n) => client.request("POST", `sys/policies/acl/${n}`, { policy: POLICY }));
    await pool(names, parallel, (n) => client.request("DELETE", `sys/policies/acl/${n}`));
    for (let round = 0; round < rounds; round++) {
      let start = process.hrtime.bigint();
      await engine.up(program);
      await engine.destroy();
      provider = Math.min(provider, seconds(start));
      start = process.hrtime.bigint();
      await pool(names, parallel, (n) => client.request("POST", `sys/policies/acl/${n}`, { policy: POLICY }));
      await pool(names, parallel, (n) => client.request("DELETE", `sys/policies/acl/${n}`));
      direct = Math.min(direct, seconds(start));
    }
  } finally {
    await engine.close();
  }
  return { policies: count, parallel, programSeconds: provider, directSeconds: direct, ratio: provider / direct };
}

/**
 * N policies created (Check, Create) and destroyed (Delete) through the host, as the engine calls it,
 * by the package's provider and by the bare provider (the floor: the same requests, nothing else),
 * each in its own host, alternating round by round; and the same HTTP calls made directly.
 */
async function measureHostApplyRatio(emu: KeepEmulator, count: number, parallel: number, rounds: number, providerText: string) {
  const names = Array.from({ length: count }, (_, i) => `bench-${i}`);
  const config = { "keep:address": emu.url, "keep:token": emu.rootToken };
  const client = new KeepClient(resolveServiceConfig("keep", (k) => (config as Record<string, string>)[k], {}));
  const dynamicUrn = (name: string) => `urn:pulumi:bench::keepstack-bench::pulumi-nodejs:dynamic/keep:AclPolicy::${name}`;
  const pluginUrn = (name: string) => `urn:pulumi:bench::keepstack-bench::keepstack:keep:AclPolicy::${name}`;
  const path = (host: ProviderHost, text: string | undefined, urn: (name: string) => string) => ({ host, text, urn, seconds: Infinity, cpuMs: Infinity, rounds: [] as number[] });
  const hosts = {
    ours: path(await ProviderHost.start({ cwd: exampleDir, project: "keepstack-bench" }), providerText, dynamicUrn),
    bare: path(await ProviderHost.start({ cwd: exampleDir, project: "keepstack-bench" }), bareProviderText(emu.url, emu.rootToken), dynamicUrn),
    plugin: path(await ProviderHost.startPlugin({ cwd: exampleDir, project: "keepstack-bench" }), undefined, pluginUrn),
  };
  const throughHost = async ({ host, text, urn }: { host: ProviderHost; text?: string; urn: (name: string) => string }) => {
    const props = (name: string) => ({ name, policy: POLICY, ...(text ? { __provider: text } : {}) });
    await pool(names, parallel, async (n) => {
      const checked = await host.check(urn(n), {}, props(n));
      await host.create(urn(n), checked.inputs);
    });
    await pool(names, parallel, (n) => host.delete(urn(n), n, props(n), props(n)));
  };
  const direct = async () => {
    await pool(names, parallel, (n) => client.request("POST", `sys/policies/acl/${n}`, { policy: POLICY }));
    await pool(names, parallel, (n) => client.request("DELETE", `sys/policies/acl/${n}`));
  };
  // Check and Create per policy, then Delete.
  const operations = 3 * count;
  let directSeconds = Infinity;
  try {
    await hosts.ours.host.configure(config);
    await hosts.bare.host.configure(config);
    await hosts.plugin.host.configure({ keepAddress: emu.url, keepToken: emu.rootToken });
    for (let round = 0; round < rounds + 2; round++) {
      // The first two rounds warm every path (JIT, connections) and are not counted.
      for (const path of Object.values(hosts)) {
        const start = process.hrtime.bigint();
        const cpuBefore = path.host.cpuTimeMs();
        await throughHost(path);
        const cpuUsed = path.host.cpuTimeMs() - cpuBefore;
        if (round >= 2) {
          path.seconds = Math.min(path.seconds, seconds(start));
          path.cpuMs = Math.min(path.cpuMs, cpuUsed);
          path.rounds.push(cpuUsed);
        }
      }
      const start = process.hrtime.bigint();
      await direct();
      if (round >= 2) directSeconds = Math.min(directSeconds, seconds(start));
    }
  } finally {
    for (const path of Object.values(hosts)) await path.host.close();
  }
  return {
    policies: count,
    parallel,
    hostSeconds: hosts.ours.seconds,
    directSeconds,
    ratio: hosts.ours.seconds / directSeconds,
    operations,
    hostCpuMs: hosts.ours.cpuMs,
    hostCpuMsPerOperation: hosts.ours.cpuMs / operations,
    bareHostSeconds: hosts.bare.seconds,
    bareApplyRatio: hosts.bare.seconds / directSeconds,
    bareHostCpuMsPerOperation: hosts.bare.cpuMs / operations,
    hostCpuOverBare: hosts.ours.cpuMs / hosts.bare.cpuMs,
    hostCpuOverBarePaired: median(hosts.ours.rounds.map((cpu, round) => cpu / hosts.bare.rounds[round])),
    pluginHostSeconds: hosts.plugin.seconds,
    pluginApplyRatio: hosts.plugin.seconds / directSeconds,
    pluginHostCpuMsPerOperation: hosts.plugin.cpuMs / operations,
    pluginHostCpuOverBare: hosts.plugin.cpuMs / hosts.bare.cpuMs,
    pluginHostCpuOverBarePaired: median(hosts.plugin.rounds.map((cpu, round) => cpu / hosts.bare.rounds[round])),
  };
}

/**
 * The provider host's start as a program's first resource meets it: the host process started,
 * configured, and its first Check answered (which loads the package's modules for that type), for
 * our provider and for the bare one; the median of `rounds` starts each, in milliseconds.
 */
async function measureHostStart(emu: KeepEmulator, providerText: string, rounds: number) {
  const config = { "keep:address": emu.url, "keep:token": emu.rootToken };
  const urn = "urn:pulumi:bench::keepstack-bench::pulumi-nodejs:dynamic/keep:AclPolicy::start";
  const startOnce = async (text: string) => {
    const start = process.hrtime.bigint();
    const host = await ProviderHost.start({ cwd: exampleDir, project: "keepstack-bench" });
    try {
      await host.configure(config);
      await host.check(urn, {}, { name: "start", policy: POLICY, __provider: text });
      return Number(process.hrtime.bigint() - start) / 1e6;
    } finally {
      await host.close();
    }
  };
  const ours: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < rounds; round++) {
    ours.push(await startOnce(providerText));
    bare.push(await startOnce(bareProviderText(emu.url, emu.rootToken)));
  }
  return { hostStartMs: median(ours), bareHostStartMs: median(bare) };
}

/** The pulumi CLI the engine figures run: the first on the PATH. */
function pulumiOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const file = path.join(dir, "pulumi");
    if (dir && fs.existsSync(file)) return file;
  }
  return undefined;
}

const NO_CLI = "no pulumi on the PATH: put the Pulumi CLI (with its Node.js language host) on the PATH, such as the folder ../shared/engine/build.sh prints";

/** The engine figures against an emulator of their own (bench/engine.ts). */
async function engineFigures(counts: number[], rounds: number, cli: string) {
  const { runEngineBench } = await import("./engine");
  const emu = await startKeepEmulator();
  try {
    return await runEngineBench({ counts, rounds, cli, emu, log: (line) => console.error(line) });
  } finally {
    await emu.close();
  }
}

async function main(): Promise<void> {
  const opts = new Command()
    .name("bench")
    .option("--json [file]", "write the figures as one JSON object (to the file, or to stdout)")
    .option("--policies <n>", "policies created and destroyed for applyRatio", "200")
    .option("--parallel <n>", "concurrent operations, for both paths", "16")
    .option("--rounds <n>", "measured repetitions after two warm-up rounds; the best of each path counts", "5")
    .option("--upload-mb <n>", "size of the generated tree for the upload benchmark (0 skips it)", "512")
    .option("--transform-values <n>", "values encoded batched and one per request for the transform figures (0 skips them)", "100000")
    .option("--import-objects <n>", "objects of each listable type in the cluster `import --all` reads (0 skips it)", "0")
    .option("--scale <counts>", "scale mode, instead of the other figures: programs of these many resources through the harness (comma-separated, such as 1000,5000)")
    .option("--engine <counts>", "engine mode, instead of the other figures: programs of these many resources through each door under the pulumi CLI on the PATH, beside the engine's floor (comma-separated, such as 200,1000)")
    .option("--engine-counts <counts>", "the engine figures of a full run: programs of these many resources under the pulumi CLI on the PATH (0 skips them; without a CLI they are left out, saying so)", "200,1000")
    .option("--engine-rounds <n>", "times each engine program's whole life runs (preview to destroy); the median of each phase counts", "3")
    .parse()
    .opts<{ json?: string | boolean; policies: string; parallel: string; rounds: string; uploadMb: string; transformValues: string; importObjects: string; scale?: string; engine?: string; engineCounts: string; engineRounds: string }>();

  const engineRounds = Number(opts.engineRounds);
  if (!Number.isInteger(engineRounds) || engineRounds < 1) throw new Error(`--engine-rounds: a count of runs such as 3, not ${opts.engineRounds}`);
  const counts = (option: string, value: string) => {
    const parsed = value.split(",").map((n) => Number(n.trim()));
    if (parsed.length < 1 || parsed.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--${option}: counts of resources such as 200,1000, not ${value}`);
    return parsed;
  };
  const report = (key: string, value: unknown, lines: string[]) => {
    if (!opts.json) return lines.forEach((line) => console.log(line));
    const text = JSON.stringify({ [key]: value }, null, 2);
    if (typeof opts.json === "string") fs.writeFileSync(opts.json, `${text}\n`);
    else console.log(text);
  };

  if (opts.engine) {
    const { describeEngineBench } = await import("./engine");
    const cli = pulumiOnPath();
    if (!cli) throw new Error(`--engine: ${NO_CLI}`);
    const engine = await engineFigures(counts("engine", opts.engine), engineRounds, cli);
    report("engine", engine, describeEngineBench(engine));
    return;
  }

  if (opts.scale) {
    const { runScaleBench, describeScaleBench } = await import("./scale");
    const scale = await runScaleBench({ counts: counts("scale", opts.scale) });
    report("scale", scale, describeScaleBench(scale));
    return;
  }

  const emu = await startKeepEmulator();
  const result: Record<string, unknown> = {};
  try {
    const { requests, shimBytes, providerText } = await measureRequests(emu);
    const pluginRequests = (await measureRequests(emu, "plugin")).requests;
    Object.assign(result, { shimBytes, requests, pluginRequests });
    const apply = await measureHostApplyRatio(emu, Number(opts.policies), Number(opts.parallel), Number(opts.rounds), providerText);
    const start = await measureHostStart(emu, providerText, 3);
    const program = await measureProgramApplyRatio(emu, Number(opts.policies), Number(opts.parallel), Number(opts.rounds));
    Object.assign(result, {
      applyRatio: apply.ratio,
      hostCpuMsPerOperation: apply.hostCpuMsPerOperation,
      bareApplyRatio: apply.bareApplyRatio,
      bareHostCpuMsPerOperation: apply.bareHostCpuMsPerOperation,
      hostCpuOverBare: apply.hostCpuOverBare,
      hostCpuOverBarePaired: apply.hostCpuOverBarePaired,
      pluginApplyRatio: apply.pluginApplyRatio,
      pluginHostCpuMsPerOperation: apply.pluginHostCpuMsPerOperation,
      pluginHostCpuOverBare: apply.pluginHostCpuOverBare,
      pluginHostCpuOverBarePaired: apply.pluginHostCpuOverBarePaired,
      hostStartMs: start.hostStartMs,
      bareHostStartMs: start.bareHostStartMs,
      apply,
      programApplyRatio: program.ratio,
      programApply: program,
    });
  } finally {
    await emu.close();
  }
  const uploadMb = Number(opts.uploadMb);
  if (uploadMb > 0) {
    const { runUploadBench } = await import("./upload");
    result.upload = await runUploadBench({ sizeMB: uploadMb });
  }
  const transform = Number(opts.transformValues) > 0 ? await import("./transform") : undefined;
  if (transform) result.transform = await transform.runTransformBench({ values: Number(opts.transformValues) });
  const importBench = Number(opts.importObjects) > 0 ? await import("./import") : undefined;
  if (importBench) result.import = await importBench.runImportBench({ perType: Number(opts.importObjects) });
  const engineBench = opts.engineCounts !== "0" ? await import("./engine") : undefined;
  const cli = pulumiOnPath();
  if (engineBench && cli) result.engine = await engineFigures(counts("engine-counts", opts.engineCounts), engineRounds, cli);
  else if (engineBench) result.engineLeftOut = NO_CLI;

  if (opts.json) {
    const text = JSON.stringify(result, null, 2);
    if (typeof opts.json === "string") fs.writeFileSync(opts.json, `${text}\n`);
    else console.log(text);
    return;
  }
  const r = result as {
    shimBytes: number;
    requests: Record<string, number>;
    pluginRequests: Record<string, number>;
    pluginApplyRatio: number;
    pluginHostCpuMsPerOperation: number;
    pluginHostCpuOverBare: number;
    pluginHostCpuOverBarePaired: number;
    applyRatio: number;
    hostCpuMsPerOperation: number;
    bareApplyRatio: number;
    bareHostCpuMsPerOperation: number;
    hostCpuOverBare: number;
    hostCpuOverBarePaired: number;
    hostStartMs: number;
    bareHostStartMs: number;
    apply: { policies: number; parallel: number; hostSeconds: number; directSeconds: number; operations: number; hostCpuMs: number };
    programApplyRatio: number;
    programApply: { programSeconds: number; directSeconds: number };
  };
  console.log(`shimBytes          ${r.shimBytes} bytes of provider text (__provider) per resource in state (target <= 1500)`);
  console.log(`requests           ${Object.entries(r.requests).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(
    `applyRatio         ${r.applyRatio.toFixed(2)} (${r.apply.policies} policies created and destroyed, ${r.apply.parallel} at a time: ${r.apply.hostSeconds.toFixed(3)} s through the provider host, ${r.apply.directSeconds.toFixed(3)} s direct; ${(r.applyRatio / r.bareApplyRatio).toFixed(2)} times the bare provider's, target <= 1.3)`,
  );
  console.log(
    `hostCpuMsPerOperation ${r.hostCpuMsPerOperation.toFixed(3)} ms of provider host CPU per gRPC operation (${r.apply.hostCpuMs.toFixed(0)} ms for ${r.apply.operations} Check, Create and Delete calls, best round)`,
  );
  console.log(
    `hostCpuOverBare    ${r.hostCpuOverBare.toFixed(2)} (the bare provider, the same requests with nothing else, through the same host: ${r.bareHostCpuMsPerOperation.toFixed(3)} ms of CPU per operation, bareApplyRatio ${r.bareApplyRatio.toFixed(2)}; target <= 1.3; round by round, median ${r.hostCpuOverBarePaired.toFixed(2)})`,
  );
  console.log(
    `pluginHostCpuMsPerOperation ${r.pluginHostCpuMsPerOperation.toFixed(3)} ms of plugin CPU per gRPC operation, the same calls through pulumi-resource-keepstack in the same rounds (the dynamic host: ${r.hostCpuMsPerOperation.toFixed(3)}, the bare provider: ${r.bareHostCpuMsPerOperation.toFixed(3)}); pluginHostCpuOverBare ${r.pluginHostCpuOverBare.toFixed(2)} (round by round, median ${r.pluginHostCpuOverBarePaired.toFixed(2)}); pluginApplyRatio ${r.pluginApplyRatio.toFixed(2)}`,
  );
  console.log(`pluginRequests     ${Object.entries(r.pluginRequests).map(([k, v]) => `${k} ${v}`).join(", ")} (through the plugin door)`);
  console.log(
    `hostStartMs        ${r.hostStartMs.toFixed(0)} ms from the host's start to its first Check answered (median of 3; the bare provider: ${r.bareHostStartMs.toFixed(0)} ms)`,
  );
  console.log(
    `programApplyRatio  ${r.programApplyRatio.toFixed(2)} (the same through a Pulumi program and the whole harness: ${r.programApply.programSeconds.toFixed(3)} s vs ${r.programApply.directSeconds.toFixed(3)} s)`,
  );
  if (result.upload) {
    const u = result.upload as { sizeMB: number; rssGrowthMB: number; throughputMBps: number; baselineMBps: number; throughputRatio: number };
    console.log(
      `upload           ${u.sizeMB} MB: RSS growth ${u.rssGrowthMB.toFixed(1)} MB (target <= 64), ${u.throughputMBps.toFixed(1)} MB/s vs ${u.baselineMBps.toFixed(1)} MB/s for tar|curl, ratio ${u.throughputRatio.toFixed(2)} (target >= 0.8)`,
    );
  }
  if (transform && result.transform) for (const line of transform.describeTransformBench(result.transform as never)) console.log(line);
  if (importBench && result.import) for (const line of importBench.describeImportBench(result.import as never)) console.log(line);
  if (engineBench && result.engine) for (const line of engineBench.describeEngineBench(result.engine as never)) console.log(line);
  if (result.engineLeftOut) console.log(`engine figures left out: ${result.engineLeftOut}`);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
