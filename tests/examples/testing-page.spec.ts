/**
 * docs/testing.md's setup: its program type-checks with the page's tsconfig under each TypeScript
 * major the page names, in a fresh project (this package and its dependencies as installed here).
 * Its test runs as written under the real CLI in tests/engine/testing-page.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pageBlocks } from "../support/pages";
import { typescript5, typescriptNextToPulumi } from "../support/typescript";

const root = path.join(__dirname, "..", "..");


/**
 * Each TypeScript major the page's setup is tested with, by where its package is: this project's own
 * TypeScript 5, and a TypeScript 6 installed once for these tests beside them (as a development
 * dependency its `tsc` would take the place of the build's).
 */
const TYPESCRIPTS = [
  ["TypeScript 5", () => typescript5()],
  ["TypeScript 6", () => typescript6],
] as const;
let typescript6 = "";
/** What `npm install typescript@7` says next to `@pulumi/pulumi`'s peer range. */
let refusal = "";
beforeAll(() => {
  // A plain `npm install typescript` next to the SDK's peer range (tests/support/typescript.ts).
  const { typescript, project } = typescriptNextToPulumi();
  typescript6 = typescript;
  // TypeScript 7 asked for by name, in a copy of that project: npm says it goes against the range.
  const seven = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-typescript-7-"));
  try {
    fs.cpSync(path.join(project, "peer"), path.join(seven, "peer"), { recursive: true });
    fs.copyFileSync(path.join(project, "package.json"), path.join(seven, "package.json"));
    refusal = spawnSync("npm", ["install", "typescript@7", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: seven, encoding: "utf8" }).stderr;
  } finally {
    fs.rmSync(seven, { recursive: true, force: true });
  }
}, 120_000);

test("docs/testing.md installs a TypeScript of those majors, as npm does next to @pulumi/pulumi: a plain install gives 6, and 7 goes against the peer range", () => {
  const [install] = pageBlocks("docs/testing.md", "sh");
  expect(install).toBe("npm install --save-dev keepstack-emulator 'typescript@>=5 <7'\n");
  expect(JSON.parse(fs.readFileSync(path.join(typescript6, "package.json"), "utf8")).version).toMatch(/^6\./);
  expect(refusal).toMatch(/Conflicting peer dependency|ERESOLVE/);
  for (const [, home] of TYPESCRIPTS) expect(JSON.parse(fs.readFileSync(path.join(home(), "package.json"), "utf8")).version).toMatch(/^[56]\./);
});

test.each(TYPESCRIPTS)("docs/testing.md with %s: the program type-checks with the page's tsconfig", (_major, home) => {
  const [program] = pageBlocks("docs/testing.md", "ts");
  const [tsconfig] = pageBlocks("docs/testing.md", "json");
  expect(program).toContain("export = async () =>");

  const project = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-testing-page-"));
  try {
    fs.symlinkSync(path.join(root, "node_modules"), path.join(project, "node_modules"), "dir");
    fs.writeFileSync(path.join(project, "index.ts"), program);
    fs.writeFileSync(path.join(project, "tsconfig.json"), tsconfig);
    // The page's tsconfig as written; declaration files are not re-checked (the package's own are, under TypeScript 5, by the build).
    const tsc = spawnSync(process.execPath, [path.join(home(), "bin", "tsc"), "--noEmit", "--skipLibCheck", "-p", "."], { cwd: project, encoding: "utf8" });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}, 180_000);
