#!/usr/bin/env node
/**
 * `npm run quickstart`: runs examples/quickstart against the embedded local emulator (a test double
 * of the services). With the Pulumi CLI on the PATH it uses the CLI and a local file backend in a
 * temporary directory; otherwise it runs the program through the engine harness and says so.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "keepstack-emulator";
import { shortTypeOf } from "../provider/spec";
import { Engine, RunResult, summarize } from "./engine";

const repoRoot = path.resolve(__dirname, "..", "..");
const exampleDir = path.join(repoRoot, "examples", "quickstart");

function describe(label: string, result: RunResult): void {
  const counts = Object.entries(summarize(result.steps))
    .map(([op, n]) => (op === "same" ? `${n} unchanged` : `${n} to ${op}`))
    .join(", ");
  console.log(`${label}: ${counts || "nothing to do"}`);
  for (const step of result.steps) {
    const detail = step.diffs?.length ? ` (${step.diffs.join(", ")})` : "";
    console.log(`  ${step.op.padEnd(8)} ${shortTypeOf(step.type)} ${step.name}${detail}`);
  }
  if (Object.keys(result.outputs).length) console.log(`  outputs: ${JSON.stringify(result.outputs)}`);
}

function hasPulumiCli(): boolean {
  return spawnSync("pulumi", ["version"], { stdio: "ignore" }).status === 0;
}

/**
 * Runs `pulumi` and waits for it without blocking this process: the emulator the CLI's providers
 * call serves from this very process, so a synchronous wait would leave every request unanswered.
 */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  console.log(`$ pulumi ${args.join(" ")}`);
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", args, { cwd: repoRoot, env, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`pulumi ${args[0]} failed (${signal ?? `exit code ${code}`})`))));
  });
}

async function withCli(config: Record<string, string>, requests: () => number): Promise<void> {
  const backend = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-quickstart-"));
  // The stack's settings file, which the stack's removal deletes; one left by an interrupted run is of another backend.
  const stackFile = path.join(repoRoot, "Pulumi.quickstart.yaml");
  fs.rmSync(stackFile, { force: true });
  const env = { ...process.env, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "quickstart" };
  const pulumi = (...args: string[]) => run(args, env);
  try {
    await pulumi("stack", "init", "quickstart", "--non-interactive");
    await pulumi("config", "set", "keep:address", config["keep:address"]);
    await pulumi("config", "set", "--secret", "keep:token", config["keep:token"]);
    const before = requests();
    await pulumi("preview", "--non-interactive");
    console.log(`(requests sent to the service during preview: ${requests() - before})`);
    await pulumi("up", "--yes", "--skip-preview", "--non-interactive");
    await pulumi("preview", "--expect-no-changes", "--non-interactive");
    await pulumi("refresh", "--yes", "--skip-preview", "--expect-no-changes", "--non-interactive");
    await pulumi("destroy", "--yes", "--non-interactive");
    await pulumi("stack", "rm", "--yes", "--non-interactive");
  } finally {
    fs.rmSync(backend, { recursive: true, force: true });
    fs.rmSync(stackFile, { force: true });
  }
}

async function withHarness(config: Record<string, string>, requests: () => number): Promise<void> {
  console.log("The Pulumi CLI is not installed: running the program through the engine harness");
  console.log("(the real dynamic provider host of @pulumi/pulumi, driven over gRPC in the engine's order).\n");
  // The example is TypeScript, as the CLI would run it.
  require("ts-node").register({ transpileOnly: true, project: path.join(exampleDir, "tsconfig.json") });
  const program = require(path.join(exampleDir, "index.ts")) as () => Promise<unknown>;
  // Each step is reported as it starts and ends, as the CLI shows it.
  const engine = new Engine({ project: "keepstack-quickstart", stack: "quickstart", cwd: exampleDir, config, secretConfig: ["keep:token"], progress: (line) => console.log(`  | ${line}`) });
  try {
    const before = requests();
    describe("preview", await engine.preview(program));
    console.log(`  (requests sent to the service during preview: ${requests() - before})`);
    describe("up", await engine.up(program));
    describe("preview again", await engine.preview(program));
    describe("refresh", await engine.refresh());
    describe("destroy", await engine.destroy());
  } finally {
    await engine.close();
  }
}

async function main(): Promise<void> {
  const emu = await startEmulator();
  console.log(`Local emulator of the secrets service (a test double) at ${emu.keep.url}\n`);
  const config = { "keep:address": emu.keep.url, "keep:token": emu.keep.rootToken };
  try {
    if (hasPulumiCli()) await withCli(config, () => emu.keep.log.count);
    else await withHarness(config, () => emu.keep.log.count);
    console.log("\nQuickstart done.");
  } finally {
    await emu.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
