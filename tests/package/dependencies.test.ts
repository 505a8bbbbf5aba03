/**
 * A program that declares resources installs only what it loads: the product's runtime dependencies
 * are the packages its built entry points reach (the package itself and the provider host the engine
 * runs), and the emulator's package depends on exactly what its own build loads. What only the
 * harness, the bench or the tests load is a development dependency of the repository. Read from the
 * built files, so a new import anywhere on those paths is seen.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const repoRoot = path.join(__dirname, "..", "..");
const dist = path.join(repoRoot, "dist");
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const emulatorDist = path.join(repoRoot, "emulator", "dist");
const emulatorPkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "emulator", "package.json"), "utf8"));

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/** Every package but `own` that the compiled files reachable from `entries` (under `root`) load, top-level or lazily. */
function packagesReachedFrom(entries: string[], root = dist, own = "pulumi-keepstack"): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((e) => path.join(root, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = fs.readFileSync(file, "utf8");
    for (const m of code.matchAll(/require\("([^"]+)"\)/g)) {
      const specifier = m[1];
      if (specifier.startsWith(".")) {
        const target = path.resolve(path.dirname(file), specifier);
        queue.push(fs.existsSync(`${target}.js`) ? `${target}.js` : path.join(target, "index.js"));
      } else if (!specifier.startsWith("node:") && packageOf(specifier) !== own) {
        packages.add(packageOf(specifier));
      }
    }
  }
  return packages;
}

// What a Pulumi program loads: the package, and the provider host the engine starts for it.
const PROGRAM_ENTRIES = ["index.js", "resources/host.js"];

test("the runtime dependencies are exactly the packages a program and its provider host load", () => {
  const reached = [...packagesReachedFrom(PROGRAM_ENTRIES)].sort();
  expect(reached).toEqual(Object.keys(pkg.dependencies).filter((name) => name !== "commander").sort());
});

test("the command's own package is the only runtime dependency a program does not load", () => {
  const command = packagesReachedFrom(["cli/main.js"]);
  expect(command.has("commander")).toBe(true);
  expect(packagesReachedFrom(PROGRAM_ENTRIES).has("commander")).toBe(false);
});

test("the product declares no peer a program must think about: only @pulumi/policy, optional, for policy packs", () => {
  expect(pkg.peerDependencies).toEqual({ "@pulumi/policy": expect.any(String) });
  expect(pkg.peerDependenciesMeta).toEqual({ "@pulumi/policy": { optional: true } });
});

test("the emulator's package depends on exactly what its build loads, and on nothing of the product", () => {
  const reached = packagesReachedFrom(["index.js", "main.js"], emulatorDist, emulatorPkg.name);
  expect([...reached].sort()).toEqual(Object.keys(emulatorPkg.dependencies).sort());
  expect(reached.has("pulumi-keepstack")).toBe(false);
});
