/**
 * A program that fails makes the run reject with an EngineError and leaves nothing that would end
 * a plain Node process. Jest swallows unhandled rejections, so each program runs in a child
 * `node --unhandled-rejections=strict`, where any stray rejection would end the process with an error.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { processGone } from "../support/process-exit";

const run = promisify(execFile);
const repoRoot = path.join(__dirname, "..", "..");

async function runProgram(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ["--unhandled-rejections=strict", "-r", "ts-node/register/transpile-only", path.join(__dirname, "throwing-program.ts"), name];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: repoRoot });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("the provider host ends with the process that started it, however that process ends", () => {
  test.each(["exit", "kill"])("process %s without engine.close(): no host is left running", async (how) => {
    const result = await runProgram(`leave-${how}`);
    expect(result.code).not.toBe(0);
    const { hostPid } = JSON.parse(result.stdout.trim().split("\n")[0]) as { hostPid: number };
    expect(hostPid).toBeGreaterThan(0);
    // The host sees its lifeline end and exits; give it up to 30 s on a loaded machine.
    expect(await processGone(hostPid, 30)).toBe(true);
  });
});

describe("a program module run by its file, as the CLI runs it", () => {
  test("an imported program of top-level statements adopts with no write and plans no change again; a module's exported function gives the outputs", async () => {
    const dir = fs.mkdtempSync(path.join(repoRoot, "tests", "harness", ".program-file-"));
    try {
      const args = ["-r", "ts-node/register/transpile-only", path.join(__dirname, "program-file-run.ts"), dir];
      const { stdout } = await run(process.execPath, args, { cwd: repoRoot });
      expect(JSON.parse(stdout.trim())).toEqual({
        adopted: { create: 1 },
        writes: 0,
        again: { same: 1 },
        outputs: { name: "ops" },
        destroyed: { delete: 1 },
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a failing program", () => {
  test.each([
    ["sync", ["thrown synchronously"]],
    ["async", ["thrown asynchronously"]],
    ["apply", ["thrown in an apply callback"]],
  ])("%s: the run rejects with an EngineError and the process ends normally", async (name, errors) => {
    const result = await runProgram(name);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toEqual({ outcome: "EngineError", errors });
  });

  test("a resource the service refuses fails the run with its create error, dependents and applies included", async () => {
    const result = await runProgram("resource");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout.trim());
    expect(report.outcome).toBe("EngineError");
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatch(/keep:AclPolicy::refused: keep:AclPolicy "refused": create failed: .*POST \/v1\/sys\/policies\/acl\/refused returned 400/);
    // Said once: the provider names the operation, the engine the resource.
    expect(report.errors[0].match(/create failed/g)).toHaveLength(1);
  });
});
