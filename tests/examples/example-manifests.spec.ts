/**
 * Each example is a project a user can copy out of the repository: its package.json names this
 * package by a version range the package's version satisfies, never by a path into the repository
 * (the repository's own runs resolve the package through its node_modules, where it links itself).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tscErrors, typescript5, typescriptNextToPulumi } from "../support/typescript";

const root = path.join(__dirname, "..", "..");
const version: string = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;

/** Every package.json under examples/, outside node_modules. */
function manifests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules") return [];
    const full = path.join(dir, e.name);
    return e.isDirectory() ? manifests(full) : e.name === "package.json" ? [full] : [];
  });
}

/** Whether a caret range (`^0.1.0`) admits `v`, as npm reads it (a 0.x caret stays within its minor). */
function caretAdmits(range: string, v: string): boolean {
  const [want, have] = [range.replace(/^\^/, "").split(".").map(Number), v.split(".").map(Number)];
  if (have[0] !== want[0]) return false;
  if (want[0] === 0 && have[1] !== want[1]) return false;
  return have[1] > want[1] || (have[1] === want[1] && have[2] >= want[2]);
}

test("the examples name pulumi-keepstack by a version range this package satisfies, not by a path", () => {
  const found = manifests(path.join(root, "examples")).map((file) => {
    const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
    return [path.relative(root, file), pkg.dependencies?.["pulumi-keepstack"]] as const;
  });
  expect(found.length).toBeGreaterThanOrEqual(9);
  for (const [file, range] of found) {
    expect([file, range]).toEqual([file, expect.stringMatching(/^\^\d+\.\d+\.\d+$/)]);
    expect([file, caretAdmits(range, version)]).toEqual([file, true]);
  }
});

/**
 * The examples compile, as a user copying one would compile it, under both TypeScript majors a
 * project may have (TypeScript 6 refuses `"moduleResolution": "node"`, TS5107). Their tsconfigs
 * agree on every option they share (output settings aside), so one program per major, with all
 * their options, checks them all.
 */
describe("the examples compile under TypeScript 5 and 6", () => {
  const examples = fs.readdirSync(path.join(root, "examples")).filter((e) => fs.existsSync(path.join(root, "examples", e, "tsconfig.json")));
  const OUTPUT = new Set(["outDir", "sourceMap", "declaration"]);
  const optionsOf = (e: string) =>
    Object.fromEntries(Object.entries(JSON.parse(fs.readFileSync(path.join(root, "examples", e, "tsconfig.json"), "utf8")).compilerOptions as Record<string, unknown>).filter(([k]) => !OUTPUT.has(k)));
  const allOptions = () => Object.assign({}, ...examples.map(optionsOf)) as Record<string, unknown>;

  test("the examples' tsconfigs agree on every option they share, with node16 module resolution", () => {
    expect(examples.length).toBeGreaterThanOrEqual(9);
    const all = allOptions();
    for (const e of examples) for (const [key, value] of Object.entries(optionsOf(e))) expect([e, key, value]).toEqual([e, key, all[key]]);
    for (const e of examples) expect([e, optionsOf(e)]).toEqual([e, expect.objectContaining({ module: "node16", moduleResolution: "node16" })]);
  });

  test.each([
    ["TypeScript 5", () => typescript5()],
    ["TypeScript 6", () => typescriptNextToPulumi().typescript],
  ])("%s: no error", (_major, typescript) => {
    const dir = fs.mkdtempSync(path.join(root, "examples", ".compile-"));
    try {
      const tsconfig = { compilerOptions: { ...allOptions(), noEmit: true }, files: examples.map((e) => path.join(root, "examples", e, "index.ts")) };
      fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
      expect(JSON.parse(fs.readFileSync(path.join(typescript(), "package.json"), "utf8")).version).toMatch(/^[56]\./);
      expect(tscErrors(typescript(), dir, ["-p", "."])).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
