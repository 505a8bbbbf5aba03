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
