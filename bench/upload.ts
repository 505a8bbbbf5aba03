/**
 * Upload benchmark of configuration versions: a generated tree of `sizeMB` of incompressible files is
 * streamed as `.tar.gz` to a version's upload URL by the code `workspaces.ConfigurationVersion` uses,
 * against the local emulator (a test double). Measures this process's peak RSS growth during that
 * upload and its throughput, next to `tar -cz <dir> | curl -sS -T - <upload-url>` in the same run
 * (a fresh configuration version for each).
 */
import { spawn } from "node:child_process";
import { randomFillSync } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startWorkspacesEmulator, WorkspacesEmulator } from "keepstack-emulator";
import { resolveServiceConfig } from "../provider/config";
import { configurationVersions, workspaces } from "../provider/contracts/workspaces";
import { WorkspacesClient } from "../provider/workspaces-client";
import { uploadDirectory } from "../resources/workspaces/configuration-archive";

export interface UploadBenchOptions {
  /** Size of the generated tree in MB (the caller's default is 512). */
  sizeMB: number;
}

export interface UploadBenchResult {
  sizeMB: number;
  /** Peak growth of this process's resident memory during our upload (target <= 64). */
  rssGrowthMB: number;
  /** MB of the tree per second through our upload path. */
  throughputMBps: number;
  /** MB of the tree per second through `tar -cz | curl -T -`. */
  baselineMBps: number;
  /** throughputMBps / baselineMBps (target >= 0.8). */
  throughputRatio: number;
}

const MB = 1024 * 1024;
/** Files of at most this size, in a few directories, like a configuration with large assets. */
const FILE_MB = 8;

/** Writes `sizeMB` of random bytes (gzip cannot shrink them) in files of up to FILE_MB, chunk by chunk. */
function generateTree(directory: string, sizeMB: number): void {
  const chunk = Buffer.allocUnsafe(MB);
  let remaining = sizeMB;
  for (let index = 0; remaining > 0; index++) {
    const subdirectory = path.join(directory, `module-${index % 8}`);
    fs.mkdirSync(subdirectory, { recursive: true });
    const fileMB = Math.min(FILE_MB, remaining);
    const fd = fs.openSync(path.join(subdirectory, `asset-${index}.bin`), "w");
    try {
      for (let i = 0; i < fileMB; i++) fs.writeSync(fd, randomFillSync(chunk));
    } finally {
      fs.closeSync(fd);
    }
    remaining -= fileMB;
  }
  fs.writeFileSync(path.join(directory, "main.tf"), 'output "bench" {\n  value = true\n}\n');
}

async function newUploadUrl(client: WorkspacesClient, workspaceId: string): Promise<{ id: string; url: string }> {
  const body = { type: "configuration-versions" as const, attributes: { "auto-queue-runs": false } };
  const version = (await client.send(configurationVersions.create, { params: { workspaceId }, body })).body;
  return { id: version.id, url: String(version.attributes["upload-url"]) };
}

/** Samples RSS until stopped; returns the peak. */
function sampleRss(): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

function runBaseline(directory: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", 'set -o pipefail; tar -cz -C "$BENCH_DIR" . | curl -sS --fail -T - "$BENCH_URL"'], {
      env: { ...process.env, BENCH_DIR: directory, BENCH_URL: url },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`tar | curl exited with ${code}: ${stderr.trim()}`))));
  });
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

async function uploaded(emu: WorkspacesEmulator, id: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const status = emu.getConfigurationVersion(id)?.status;
    if (status === "uploaded") return;
    if (status === "errored") throw new Error(`configuration version ${id} errored: ${emu.getConfigurationVersion(id)?.errorMessage}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`configuration version ${id} never reached uploaded`);
}

export async function runUploadBench(options: UploadBenchOptions): Promise<UploadBenchResult> {
  const sizeMB = options.sizeMB;
  const emu = await startWorkspacesEmulator({ rateLimitPerSecond: 0, uploadDelayMs: 5 });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-upload-bench-"));
  try {
    generateTree(directory, sizeMB);
    const settings: Record<string, string> = { "workspaces:address": emu.url, "workspaces:token": emu.tokens.user };
    const client = new WorkspacesClient(resolveServiceConfig("workspaces", (key) => settings[key], {}));
    const created = { type: "workspaces" as const, attributes: { name: "upload-bench" } };
    const workspace = (await client.send(workspaces.create, { params: { organization: emu.organization }, body: created })).body;

    // Warm the path (module loading, keep-alive connection) with a one-file tree.
    const warm = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-upload-warm-"));
    fs.writeFileSync(path.join(warm, "main.tf"), "# warm\n");
    await uploadDirectory(client, (await newUploadUrl(client, workspace.id)).url, warm);
    fs.rmSync(warm, { recursive: true, force: true });

    const ours = await newUploadUrl(client, workspace.id);
    (globalThis as { gc?: () => void }).gc?.();
    const rssBefore = process.memoryUsage.rss();
    const sampler = sampleRss();
    let start = process.hrtime.bigint();
    await uploadDirectory(client, ours.url, directory);
    const ourSeconds = seconds(start);
    const rssPeak = sampler.stop();
    await uploaded(emu, ours.id);

    const baseline = await newUploadUrl(client, workspace.id);
    start = process.hrtime.bigint();
    await runBaseline(directory, baseline.url);
    const baselineSeconds = seconds(start);
    await uploaded(emu, baseline.id);

    const throughputMBps = sizeMB / ourSeconds;
    const baselineMBps = sizeMB / baselineSeconds;
    return {
      sizeMB,
      rssGrowthMB: Math.max(0, rssPeak - rssBefore) / MB,
      throughputMBps,
      baselineMBps,
      throughputRatio: throughputMBps / baselineMBps,
    };
  } finally {
    await emu.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
