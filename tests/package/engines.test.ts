/**
 * The Node versions the package declares are the ones its dependencies support, and the suite runs
 * on one of them: `npm test` runs under the `node` development dependency's binary whatever Node
 * started npm, so what `engines` says is what is tested.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as semver from "semver";

const repoRoot = path.join(__dirname, "..", "..");
const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
const pkg = manifest(repoRoot);

test("the suite runs on a Node version the package declares", () => {
  expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  // The binary the suite runs on is the one the development dependency pins.
  expect(semver.satisfies(process.versions.node, pkg.devDependencies.node)).toBe(true);
});

test("every runtime dependency supports every Node version the package declares", () => {
  const ours = semver.minVersion(pkg.engines.node)!.version;
  const unsupported = Object.keys(pkg.dependencies)
    .map((name) => ({ name, range: manifest(path.join(repoRoot, "node_modules", name)).engines?.node as string | undefined }))
    .filter(({ range }) => range !== undefined && !semver.satisfies(ours, range))
    .map(({ name, range }) => `${name} needs ${range}`);
  expect(unsupported).toEqual([]);
});

test("the README names each EBADENGINE warning npm ci prints on Node 20: the locked packages that declare a newer Node", () => {
  // npm warns once per installed package whose `engines.node` the running Node does not satisfy:
  // the project itself, and each locked package (the project's link to itself among them).
  const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { name?: string; version?: string; engines?: { node?: string }; link?: boolean }> };
  const warned = Object.entries(lock.packages)
    .filter(([, p]) => p.engines?.node !== undefined && !semver.satisfies("20.20.2", p.engines.node))
    .map(([where, p]) => (where === "" ? pkg.name : (p.name ?? where.replace(/^.*node_modules\//, ""))));
  // The self-link (`node_modules/pulumi-keepstack`) is a link whose target is the project: npm warns for it too.
  const self = Object.entries(lock.packages).filter(([where, p]) => where.endsWith(`node_modules/${pkg.name}`) && p.link).length;
  const names = [...warned, ...Array.from({ length: self }, () => pkg.name)].sort();
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8").replace(/\s+/g, " ");
  const counts = ["zero", "one", "two", "three", "four", "five", "six"];
  expect(readme).toContain(`\`npm ci\` first prints ${counts[names.length]} \`EBADENGINE\` warnings`);
  for (const name of new Set(names)) expect(readme).toContain(`\`${name === pkg.name ? `${name}@${pkg.version}` : name}\``);
});
