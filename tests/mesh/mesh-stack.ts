/** A mesh-service emulator and an engine harness configured against it, for lifecycle and function tests. */
import { Engine, EngineOptions } from "../../harness";
import { MeshEmulator, MeshEmulatorOptions, startMeshEmulator } from "../../emulator/mesh";

export interface MeshStack {
  mesh: MeshEmulator;
  engine: Engine;
  close(): Promise<void>;
}

export function meshConfig(mesh: MeshEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "mesh:address": mesh.url,
    "mesh:token": mesh.rootToken,
    // Retries and deletion polls stay fast in tests; the policy is what is under test.
    "mesh:retryBaseDelayMs": "5",
    ...extra,
  };
}

export async function startMeshStack(
  options: { emulator?: MeshEmulatorOptions; engine?: Partial<EngineOptions>; config?: Record<string, string> } = {},
): Promise<MeshStack> {
  // The background deletion stays short so destroy's wait is short too.
  const mesh = await startMeshEmulator({ deletionDelayMs: 10, ...options.emulator });
  const engine = new Engine({
    project: "mesh-test",
    config: meshConfig(mesh, options.config),
    secretConfig: ["mesh:token"],
    ...options.engine,
  });
  return {
    mesh,
    engine,
    close: async () => {
      await engine.close();
      await mesh.close();
    },
  };
}

/** Polls a condition the test cannot await directly (a request reaching the emulator); never a timing assertion. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

/** Creates a partition directly on the emulator, as another tool would. */
export async function createPartitionOutOfBand(mesh: MeshEmulator, name: string, description = ""): Promise<void> {
  const answer = await fetch(`${mesh.url}/v1/partition`, {
    method: "PUT",
    headers: { "X-Mesh-Token": mesh.rootToken, "Content-Type": "application/json" },
    body: JSON.stringify({ Name: name, Description: description }),
  });
  if (answer.status !== 200) throw new Error(`creating partition ${name} answered ${answer.status}: ${await answer.text()}`);
}
