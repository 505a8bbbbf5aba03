/**
 * The TypeScript majors a user's project may have beside this package: the repository's own
 * TypeScript 5, and a TypeScript 6 as npm installs it next to `@pulumi/pulumi` (a plain
 * `npm install typescript` in a project whose one dependency declares the SDK's peer range for
 * TypeScript). Installed once per process, on first use; removed when the process ends.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const root = path.join(__dirname, "..", "..");

export const typescript5 = (): string => path.join(root, "node_modules", "typescript");

let home: string | undefined;

/** The folder where `npm install typescript` put TypeScript next to the SDK's peer range, and that folder's project. */
export function typescriptNextToPulumi(): { typescript: string; project: string } {
  if (!home) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-typescript-6-"));
    const range = JSON.parse(fs.readFileSync(path.join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).peerDependencies.typescript as string;
    fs.mkdirSync(path.join(dir, "peer"));
    fs.writeFileSync(path.join(dir, "peer", "package.json"), JSON.stringify({ name: "peer", version: "1.0.0", peerDependencies: { typescript: range } }));
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "typescript-6", private: true, dependencies: { peer: "file:./peer" } }));
    const install = spawnSync("npm", ["install", "typescript", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: dir, encoding: "utf8" });
    if (install.status !== 0) throw new Error(`npm install typescript failed: ${install.stderr}`);
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    home = dir;
  }
  return { typescript: path.join(home, "node_modules", "typescript"), project: home };
}

/** `tsc` of a TypeScript folder over a project; its error lines. */
export function tscErrors(typescript: string, cwd: string, args: string[]): string[] {
  const run = spawnSync(process.execPath, [path.join(typescript, "bin", "tsc"), ...args], { cwd, encoding: "utf8" });
  return `${run.stdout}${run.stderr}`.split("\n").filter((line) => /error TS|error:/.test(line));
}
