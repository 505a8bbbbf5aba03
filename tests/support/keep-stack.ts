/** A secrets-service emulator and an engine harness configured against it, for lifecycle tests. */
import { Engine, EngineOptions } from "../../harness";
import { KeepEmulator, KeepEmulatorOptions, startKeepEmulator } from "../../emulator/keep";

export interface KeepStack {
  keep: KeepEmulator;
  engine: Engine;
  close(): Promise<void>;
}

export function keepConfig(keep: KeepEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "keep:address": keep.url,
    "keep:token": keep.rootToken,
    // Retries stay fast in tests; the policy (which statuses, how many) is what is under test.
    "keep:retryBaseDelayMs": "5",
    ...extra,
  };
}

export async function startKeepStack(
  options: { emulator?: KeepEmulatorOptions; engine?: Partial<EngineOptions>; config?: Record<string, string> } = {},
): Promise<KeepStack> {
  const keep = await startKeepEmulator(options.emulator);
  const engine = new Engine({
    project: "keep-test",
    config: keepConfig(keep, options.config),
    secretConfig: ["keep:token"],
    ...options.engine,
  });
  return {
    keep,
    engine,
    close: async () => {
      await engine.close();
      await keep.close();
    },
  };
}
