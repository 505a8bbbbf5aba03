/**
 * Code blocks of the pages that run here as written (see tests/docs/code-blocks.test.ts): the
 * README's program, and the emulator page's test snippet and its no-write check in the shell.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const root = path.join(__dirname, "..", "..");

/** The page's code blocks of a language, in order. */
function blocks(page: string, language: string): string[] {
  return [...fs.readFileSync(path.join(root, page), "utf8").matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}

/** A TypeScript block as the body of an async function taking `require` (top-level await allowed). */
function runnable(block: string): (load: (name: string) => unknown) => Promise<unknown> {
  const js = ts.transpileModule(`export {};\n${block}`, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<unknown>;
  const body = new AsyncFunction("require", "exports", js);
  return (load) => body(load, {});
}

/** The package as the pages import it, from this build. */
const load = (name: string) => {
  const map: Record<string, string> = { "pulumi-keepstack": "../../index", "pulumi-keepstack/emulator": "../../emulator", "pulumi-keepstack/harness": "../../harness" };
  return require(map[name] ?? name);
};

describe("README.md", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test("the program at the top previews without a request, applies, and destroys", async () => {
    const [program] = blocks("README.md", "ts");
    const run = runnable(program);
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(() => run(load))).steps)).toEqual({ create: 1 });
    expect(stack.keep.log.count).toBe(0);
    expect(summarize((await stack.engine.up(() => run(load))).steps)).toEqual({ create: 1 });
    expect(stack.keep.getPolicy("acl", "readers")?.policy).toBe('path "secret/*" { capabilities = ["read", "list"] }');
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 1 });
  });
});

describe("docs/emulator.md", () => {
  test("the snippet for tests runs as written", async () => {
    const [snippet] = blocks("docs/emulator.md", "ts");
    expect(snippet).toContain("await emu.close();");
    await runnable(snippet)(load);
  });

  test("the shell check that a step sent no write runs as written, and fails when a step writes", () => {
    const [, check] = blocks("docs/emulator.md", "sh");
    // The emulator's files go to a temporary directory of this test's.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-page-"));
    const env = { ...process.env, TMPDIR: tmp };
    try {
      const quiet = spawnSync("bash", ["-e", "-c", check], { cwd: root, env, encoding: "utf8" });
      expect([quiet.status, quiet.stderr]).toEqual([0, expect.not.stringContaining("the step wrote")]);
      // The same lines with a write as the step: the check stops the script (the trap stops the emulator).
      const write = 'curl -s -X POST -H "X-Keep-Token: $KEEP_TOKEN" -d \'{"policy":"# w"}\' "$KEEP_ADDR/v1/sys/policies/acl/w" >/dev/null';
      const writing = check
        .replace(/^(eval .*)$/m, `$1\ntrap 'kill "$KEEPSTACK_EMULATOR_PID" 2>/dev/null || true' EXIT`)
        .replace("# ... run the step ...", write);
      const wrote = spawnSync("bash", ["-e", "-c", writing], { cwd: root, env, encoding: "utf8" });
      expect(wrote.stderr).toContain("the step wrote");
      expect(wrote.status).toBe(1);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
