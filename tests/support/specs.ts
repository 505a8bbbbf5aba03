/**
 * Runs the spec files (`*.spec.ts`) of a directory inside the calling test file, each in a describe
 * named after it. They share the test file's module registry, so the Pulumi SDK and the package
 * load once per directory instead of once per spec (that load was a second and more of CPU per
 * file). Hooks at a spec's top level stay scoped to its describe. Run one spec with `-t <name>`.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export function includeSpecs(dir: string): void {
  const specs = fs.readdirSync(dir).filter((f) => f.endsWith(".spec.ts")).sort();
  if (specs.length === 0) throw new Error(`no *.spec.ts in ${dir}`);
  for (const spec of specs) {
    describe(spec.replace(/\.spec\.ts$/, ""), () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(path.join(dir, spec));
    });
  }
}
