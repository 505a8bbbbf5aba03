/**
 * Runs one failing program through the harness in a plain Node process (jest would swallow
 * unhandled rejections), then prints how the run ended as one JSON line. Usage:
 * `node --unhandled-rejections=strict -r ts-node/register/transpile-only throwing-program.ts <case>`.
 */
import * as path from "node:path";
// The built package, as a program would use it: the child transpiles only this file.
import { startKeepEmulator, KeepEmulator } from "keepstack-emulator";
import { Engine, EngineError, Program } from "../../dist/harness";
import { keep } from "pulumi-keepstack";

const POLICY = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

const programs: Record<string, (emu: KeepEmulator) => Program> = {
  sync: () => () => {
    throw new Error("thrown synchronously");
  },
  async: () => async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new Error("thrown asynchronously");
  },
  apply: () => () => {
    const policy = new keep.AclPolicy("applied", { name: "applied", policy: POLICY });
    policy.id.apply(() => {
      throw new Error("thrown in an apply callback");
    });
  },
  resource: (emu) => () => {
    // Every write is refused, so the create fails; a resource depending on it and an apply on its
    // output must not leave anything behind either.
    emu.faults.inject({ times: 100, status: 400, match: /^(PUT|POST) / });
    const first = new keep.AclPolicy("refused", { name: "refused", policy: POLICY });
    new keep.AclPolicy("dependent", { name: first.id.apply((id) => `${id}-dependent`), policy: POLICY });
    first.id.apply((id) => id.toUpperCase());
  },
};

/** Starts a provider host, prints its process ID, then ends the process without closing anything. */
async function exitWithoutClose(how: string): Promise<void> {
  const emu = await startKeepEmulator();
  const engine = new Engine({ project: "keepstack-harness-test", cwd: path.join(__dirname, "..", ".."), config: { "keep:address": emu.url, "keep:token": emu.rootToken } });
  await engine.preview(() => new keep.AclPolicy("p", { name: "p", policy: POLICY }));
  console.log(JSON.stringify({ hostPid: engine.hostPid }));
  if (how === "exit") process.exit(1);
  if (how === "kill") process.kill(process.pid, "SIGKILL");
  throw new Error("a failed assertion nobody catches");
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (name.startsWith("leave-")) return exitWithoutClose(name.slice("leave-".length));
  const emu = await startKeepEmulator();
  const engine = new Engine({
    project: "keepstack-harness-test",
    cwd: path.join(__dirname, "..", ".."),
    config: { "keep:address": emu.url, "keep:token": emu.rootToken },
  });
  try {
    await engine.up(programs[name](emu));
    console.log(JSON.stringify({ outcome: "succeeded" }));
  } catch (e) {
    const error = e as Error;
    console.log(
      JSON.stringify({ outcome: e instanceof EngineError ? "EngineError" : error.constructor.name, errors: (e as EngineError).errors ?? [error.message] }),
    );
  } finally {
    await engine.close();
    await emu.close();
  }
  // The run's handlers for stray errors are gone once it ended.
  const left = process.listenerCount("unhandledRejection") + process.listenerCount("uncaughtException");
  if (left > 0) console.log(JSON.stringify({ outcome: "handlers left behind", count: left }));
}

void main();
