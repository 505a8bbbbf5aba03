/**
 * Code blocks of the pages that run here as written (see tests/docs/code-blocks.test.ts): the
 * README's program, and the emulator page's test snippet and its no-write check in the shell.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";
import { pageBlocks, runBlock } from "../support/pages";

const root = path.join(__dirname, "..", "..");

describe("README.md", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test("the program at the top previews without a request, applies, and destroys", async () => {
    const [program] = pageBlocks("README.md", "ts");
    const run = () => runBlock(program);
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(run)).steps)).toEqual({ create: 1 });
    expect(stack.keep.log.count).toBe(0);
    expect(summarize((await stack.engine.up(run)).steps)).toEqual({ create: 1 });
    expect(stack.keep.getPolicy("acl", "readers")?.policy).toBe('path "secret/*" { capabilities = ["read", "list"] }');
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 1 });
  });
});

describe("docs/emulator.md", () => {
  test("the snippet for tests runs as written", async () => {
    const [snippet] = pageBlocks("docs/emulator.md", "ts");
    expect(snippet).toContain("await emu.close();");
    await runBlock(snippet);
  });

  test("the shell check that a step sent no write runs as written, and fails when a step writes", () => {
    const [, check] = pageBlocks("docs/emulator.md", "sh");
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
      expect([wrote.status, wrote.stderr]).toEqual([1, expect.stringContaining("the step wrote")]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
