/**
 * Each example is a project a user can copy out of the repository: its package.json names this
 * package by a version range the package's version satisfies, never by a path into the repository
 * (the repository's own runs resolve the package through its node_modules, where it links itself).
 */
import * as fs from "node:fs";
import * as path from "node:path";

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
