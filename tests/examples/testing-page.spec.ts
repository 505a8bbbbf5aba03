/**
 * docs/testing.md's example runs as written: its program and its test are copied out of the page
 * with its tsconfig into a fresh project (this package and its dependencies as installed here) and run with
 * `node --test`, as the page says.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const root = path.join(__dirname, "..", "..");

/** The page's code blocks of a language, in order. */
function blocks(page: string, language: string): string[] {
  return [...fs.readFileSync(path.join(root, page), "utf8").matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}

test("docs/testing.md: the example program and its test pass as written", () => {
  const [program] = blocks("docs/testing.md", "ts");
  const [testFile] = blocks("docs/testing.md", "js");
  const [tsconfig] = blocks("docs/testing.md", "json");
  expect(program).toContain("export = async () =>");
  expect(testFile).toContain('require("../index.ts")');

  const project = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-testing-page-"));
  try {
    fs.symlinkSync(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    fs.writeFileSync(path.join(project, "index.ts"), program);
    fs.writeFileSync(path.join(project, "tsconfig.json"), tsconfig);
    fs.mkdirSync(path.join(project, "test"));
    fs.writeFileSync(path.join(project, "test", "program.test.js"), testFile);
    const run = spawnSync(process.execPath, ["--test", "test/**/*.test.js"], { cwd: project, encoding: "utf8" });
    expect(run.stdout).toMatch(/# pass 1\n# fail 0/);
    expect(run.status).toBe(0);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}, 120_000);
