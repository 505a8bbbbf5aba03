/** A workspace-service emulator and an engine harness configured against it, for lifecycle and function tests. */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Engine, EngineOptions } from "../../harness";
import { startWorkspacesEmulator, WorkspacesEmulator, WorkspacesEmulatorOptions } from "../../emulator/workspaces";
import { resolveServiceConfig } from "../../provider/config";
import { createContext, OperationContext } from "../../provider/context";
import { WorkspacesClient } from "../support/by-path";

export interface WorkspacesStack {
  emu: WorkspacesEmulator;
  engine: Engine;
  config: Record<string, string>;
  close(): Promise<void>;
}

export function workspacesConfig(emu: WorkspacesEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "workspaces:address": emu.url,
    "workspaces:token": emu.tokens.user,
    "workspaces:organization": emu.organization,
    // Retries and status polls stay fast in tests; the policy is what is under test.
    "workspaces:retryBaseDelayMs": "5",
    ...extra,
  };
}

export async function startWorkspacesStack(
  options: { emulator?: WorkspacesEmulatorOptions; engine?: Partial<EngineOptions>; config?: Record<string, string> } = {},
): Promise<WorkspacesStack> {
  // Rate limiting is switched on only by the tests about it; uploads are processed at once.
  const emu = await startWorkspacesEmulator({ rateLimitPerSecond: 0, uploadDelayMs: 5, ...options.emulator });
  const config = workspacesConfig(emu, options.config);
  const engine = new Engine({ project: "ws-test", config, secretConfig: ["workspaces:token"], ...options.engine });
  return {
    emu,
    engine,
    config,
    close: async () => {
      await engine.close();
      await emu.close();
    },
  };
}

/** The context functions get in a program, built from the same configuration (for calls outside a program). */
export function contextFor(config: Record<string, string>): OperationContext {
  return createContext((key) => config[key], {});
}

export function clientFor(config: Record<string, string>): WorkspacesClient {
  return new WorkspacesClient(resolveServiceConfig("workspaces", (key) => config[key], {}));
}

/** Writes a tree of files (relative path → content) into a new temporary directory. */
export async function makeTree(files: Record<string, string | Buffer>, parent?: string): Promise<string> {
  const root = await mkdtemp(path.join(parent ?? os.tmpdir(), "ws-tree-"));
  await writeTree(root, files);
  return root;
}

export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

export const removeTree = (root: string) => rm(root, { recursive: true, force: true });
