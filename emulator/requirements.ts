/**
 * The emulator's own packages are not installed with the package (a program declaring resources
 * needs none of them): they are optional peer dependencies. Loaded first by the emulator's entry,
 * this names every missing one with the command that installs it, instead of the first
 * `Cannot find module` the loader would meet.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The packages the emulator loads, beyond what the package itself depends on. */
export const EMULATOR_PACKAGES = ["fastify", "pg", "openpgp", "@peculiar/x509", "reflect-metadata", "shamir-secret-sharing", "js-hcl-parser"];

/** The package's manifest: the nearest package.json above this file (the source and dist/ trees differ in depth). */
function ownManifest(): { peerDependencies?: Record<string, string> } {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8"));
  }
  return {};
}

function installed(name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    try {
      require.resolve(name);
      return true;
    } catch {
      return false;
    }
  }
}

const missing = EMULATOR_PACKAGES.filter((name) => !installed(name));
if (missing.length > 0) {
  const ranges = ownManifest().peerDependencies ?? {};
  const specs = missing.map((name) => (ranges[name] ? `${name}@${JSON.stringify(ranges[name]).slice(1, -1)}` : name));
  throw new Error(
    `the emulator needs packages a program declaring resources does not, so they are not installed with pulumi-keepstack: ` +
      `${missing.join(", ")}. Install them beside it: npm install --save-dev ${specs.map((s) => `'${s}'`).join(" ")}`,
  );
}
