/** The generated tables: the README's configuration from `SETTINGS`, docs/resources.md's resources from the registry. */
import * as fs from "node:fs";
import { SETTINGS } from "../../provider/config";
import { tokenOf } from "../../provider/spec";
import { registeredResources } from "../../resources/all-specs";
import * as path from "node:path";
import { configurationTable, GENERATED_PAGES, replaceSection, resourceTable, splitDoc } from "../../scripts/readme-tables";

/** The first line that differs, to show where the README drifted. */
function firstDifference(a: string, b: string): string {
  const left = a.split("\n");
  const right = b.split("\n");
  const i = left.findIndex((line, n) => line !== right[n]);
  const at = i < 0 ? left.length : i;
  return `line ${at + 1}:\n  the page:     ${left[at] ?? "(end)"}\n  npm run docs: ${right[at] ?? "(end)"}`;
}

test.each(GENERATED_PAGES.map((p) => [path.basename(p.path), p] as const))("%s holds the tables `npm run docs` writes", (name, page) => {
  const current = fs.readFileSync(page.path, "utf8");
  const expected = page.generate(current);
  if (current !== expected) {
    throw new Error(`${name} differs from what \`npm run docs\` writes: run \`npm run docs\` and commit it.\n${firstDifference(current, expected)}`);
  }
});

test("the configuration table has one row per setting, with its key, the plugin's key, variable and default", () => {
  const rows = configurationTable().split("\n").slice(2);
  expect(rows).toHaveLength(Object.values(SETTINGS).flat().length);
  expect(rows).toContain(
    "| `keep:maxRetries` | `keepstack:keepMaxRetries` | `KEEP_MAX_RETRIES` | `4` | retries of 412 and 5xx answers, resets and timeouts (429 answers have their own budget of at least 30) |",
  );
});

test("the resource table has one row per registered resource: class, both doors' tokens, ID form", () => {
  const rows = resourceTable().split("\n").slice(2);
  expect(rows).toHaveLength(registeredResources.length);
  for (const [i, { path, spec }] of registeredResources.entries()) {
    expect(rows[i].startsWith(`| \`${path}\` |`)).toBe(true);
    expect(rows[i]).toContain(`| \`${tokenOf(spec)}\` |`);
  }
  expect(rows[0]).toBe(
    "| `keep.AclPolicy` | An ACL policy of the secrets service. | `pulumi-nodejs:dynamic/keep:AclPolicy` | `keepstack:keep:AclPolicy` | the name, or `<namespace>:<name>` | `name`, `namespace`, `cluster` | read first; refused | no room in the API: the create journal | none |",
  );
});

test("a class's JSDoc gives the ID form (the sentence after `ID:`) and the description (the rest)", () => {
  expect(splitDoc("A workspace. ID: `ws-…`. Adoption finds it by name.")).toEqual({ description: "A workspace. Adoption finds it by name.", id: "`ws-…`" });
  expect(splitDoc("A policy. ID: the name, or `<namespace>:<name>`.")).toEqual({ description: "A policy.", id: "the name, or `<namespace>:<name>`" });
  expect(splitDoc("A run of an operation.")).toEqual({ description: "A run of an operation." });
});

test("a section is replaced between its markers, and a missing section is an error", () => {
  const text = "before\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nafter";
  expect(replaceSection(text, "x", "new")).toBe(
    "before\n<!-- generated:x -->\n<!-- written by `npm run docs`; edit the sources, not this table -->\n\nnew\n\n<!-- /generated:x -->\nafter",
  );
  expect(() => replaceSection("no markers", "x", "new")).toThrow("the page has no <!-- generated:x --> … <!-- /generated:x --> section");
});

test("figures that change with every commit are not written in the pages: no test count, no suite time", () => {
  const root = path.join(__dirname, "..", "..");
  const pages = ["README.md", ...fs.readdirSync(path.join(root, "docs")).map((f) => path.join("docs", f))];
  const written = pages.flatMap((page) =>
    [...fs.readFileSync(path.join(root, page), "utf8").matchAll(/\b\d[\d,]* tests\b|\b\d+ min \d+ s of jest/g)].map((m) => `${page}: ${m[0]}`),
  );
  expect(written).toEqual([]);
});

test("the code cites ARCHITECTURE.md by headings it has, and no design document outside the repository", () => {
  const root = path.join(__dirname, "..", "..");
  const headings = new Set([...fs.readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8").matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]));
  const files = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const at = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "node_modules" || e.name === "dist" ? [] : files(at);
      return /\.(ts|js|md)$/.test(e.name) ? [at] : [];
    });
  const sources = ["provider", "resources", "cli", "policy", "moved", "emulator", "harness", "bench", "scripts", "tests", "docs", "examples"].flatMap(files);
  const problems: string[] = [];
  let citations = 0;
  // This file names the forms it looks for.
  for (const file of [...sources, "README.md", "index.ts"].filter((f) => f !== path.join("tests", "docs", "readme.test.ts"))) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    if (/design §\d/.test(text)) problems.push(`${file}: cites "design §N", a document outside the repository`);
    for (const [, heading] of text.matchAll(/ARCHITECTURE\.md`?, "([^"]+)"/g)) {
      citations++;
      if (!headings.has(heading)) problems.push(`${file}: cites ARCHITECTURE.md, "${heading}", which has no such heading`);
    }
  }
  expect(problems).toEqual([]);
  expect(citations).toBeGreaterThan(10);
});
