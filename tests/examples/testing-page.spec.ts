/**
 * docs/testing.md's example runs as written: its program and its test are copied out of the page
 * with its tsconfig into a fresh project (this package and its dependencies as installed here) and run with
 * `node --test`, as the page says.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pageBlocks } from "../support/pages";

const root = path.join(__dirname, "..", "..");


/**
 * Each TypeScript major the page's setup is tested with, by where its package is: this project's own
 * TypeScript 5, and a TypeScript 6 installed once for these tests beside them (as a development
 * dependency its `tsc` would take the place of the build's).
 */
const TYPESCRIPT_6 = "typescript@6.0.3";
const TYPESCRIPTS = [
  ["TypeScript 5", () => path.join(root, "node_modules", "typescript")],
  ["TypeScript 6", () => typescript6],
] as const;
let typescript6 = "";
let typescript6Home = "";
beforeAll(() => {
  typescript6Home = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-typescript-6-"));
  fs.writeFileSync(path.join(typescript6Home, "package.json"), "{}");
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", TYPESCRIPT_6], { cwd: typescript6Home, stdio: "pipe" });
  typescript6 = path.join(typescript6Home, "node_modules", "typescript");
}, 120_000);
afterAll(() => fs.rmSync(typescript6Home, { recursive: true, force: true }));

test("docs/testing.md installs a TypeScript of those majors, not the latest (7 has no compiler API for ts-node)", () => {
  const [install] = pageBlocks("docs/testing.md", "sh");
  expect(install).toContain("'typescript@>=5 <7'");
  for (const [, home] of TYPESCRIPTS) expect(JSON.parse(fs.readFileSync(path.join(home(), "package.json"), "utf8")).version).toMatch(/^[56]\./);
});

test.each(TYPESCRIPTS)("docs/testing.md with %s: the program type-checks with the page's tsconfig (and with 5, its test passes as written)", (major, home) => {
  const [program] = pageBlocks("docs/testing.md", "ts");
  const [testFile] = pageBlocks("docs/testing.md", "js");
  const [tsconfig] = pageBlocks("docs/testing.md", "json");
  expect(program).toContain("export = async () =>");
  expect(testFile).toContain('require("../index.ts")');

  const project = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-testing-page-"));
  try {
    fs.symlinkSync(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    fs.writeFileSync(path.join(project, "index.ts"), program);
    fs.writeFileSync(path.join(project, "tsconfig.json"), tsconfig);
    fs.mkdirSync(path.join(project, "test"));
    fs.writeFileSync(path.join(project, "test", "program.test.js"), testFile);
    // The page's tsconfig as written; declaration files are not re-checked (the package's own are, under TypeScript 5, by the build).
    const tsc = spawnSync(process.execPath, [path.join(home(), "bin", "tsc"), "--noEmit", "--skipLibCheck", "-p", "."], { cwd: project, encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
    // The page's test runs as written with the project's TypeScript (ts-node takes the one it is
    // pointed at); under 6 the setup is held to compiling, which is what changed between the majors.
    if (major === "TypeScript 5") {
      const run = spawnSync(process.execPath, ["--test", "test/**/*.test.js"], { cwd: project, encoding: "utf8", env: { ...process.env, TS_NODE_COMPILER: home() } });
      expect(run.stdout).toMatch(/# pass 1\n# fail 0/);
      expect(run.status).toBe(0);
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}, 180_000);
