/**
 * A program that declares resources installs only what it loads: the runtime dependencies are the
 * packages the built entry points reach (the package itself and the provider host the engine runs),
 * and what only the emulator, the harness or the tests load is an optional peer or a development
 * dependency. Read from the built files, so a new import anywhere on that path is seen.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const repoRoot = path.join(__dirname, "..", "..");
const dist = path.join(repoRoot, "dist");
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/** Every external package the compiled files reachable from `entries` load, top-level or lazily. */
function packagesReachedFrom(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((e) => path.join(dist, e));
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
      } else if (!specifier.startsWith("node:") && specifier !== "pulumi-keepstack" && !specifier.startsWith("pulumi-keepstack/")) {
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

test("what the emulator loads beyond that is an optional peer, never a runtime dependency", () => {
  const emulatorOnly = [...packagesReachedFrom(["emulator/index.js", "emulator/main.js"])].filter((name) => !(name in pkg.dependencies));
  expect(emulatorOnly.length).toBeGreaterThan(3);
  for (const name of emulatorOnly) {
    expect([name, pkg.peerDependenciesMeta?.[name]?.optional, name in pkg.devDependencies]).toEqual([name, true, true]);
  }
});
