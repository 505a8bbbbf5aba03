/**
 * A project where the package is installed from `npm pack` of this checkout (the `dist/` that
 * `npm test` built): the files a user gets, and only those, under `node_modules/pulumi-keepstack`, its
 * executables made executable as npm's install does; every other package is this checkout's own
 * (linked), so nothing is downloaded. Both doors' hosts started with this project as their working
 * directory load the package from the packed files: a file left out of the package fails them.
 * Made once per process.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as tar from "tar";

const repoRoot = path.join(__dirname, "..", "..");
let made: string | undefined;

export function packedInstall(): string {
  if (made) return made;
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-packed-"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", project], { cwd: repoRoot, encoding: "utf8" }).trim().split("\n").pop()!;
  const modules = path.join(project, "node_modules");
  const installed = path.join(modules, "pulumi-keepstack");
  fs.mkdirSync(installed, { recursive: true });
  tar.x({ file: path.join(project, tarball), cwd: installed, strip: 1, sync: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as { bin: Record<string, string> };
  for (const file of Object.values(manifest.bin)) fs.chmodSync(path.join(installed, file), 0o755);
  for (const entry of fs.readdirSync(path.join(repoRoot, "node_modules"))) {
    if (entry === "pulumi-keepstack" || entry === ".bin") continue;
    fs.symlinkSync(path.join(repoRoot, "node_modules", entry), path.join(modules, entry));
  }
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "packed-install", private: true }));
  process.once("exit", () => fs.rmSync(project, { recursive: true, force: true }));
  made = project;
  return project;
}
