/**
 * A program module run as the Pulumi CLI runs one: its file is loaded afresh for every run (so
 * top-level statements, as `pulumi-keepstack import` writes them, declare the resources again), and
 * its exports are the stack's outputs; a module that exports a function (`export = async () => ...`)
 * has that function called and its result taken instead. A `.ts` file is compiled on the fly with
 * `ts-node` (transpile only, as the CLI's TypeScript support does), which the project installs.
 */
import * as path from "node:path";
import type { Program } from "./engine";

let typescriptRegistered = false;

/** The program of the module at `file` (relative to the current directory, or absolute). */
export function programFile(file: string): Program {
  const resolved = path.resolve(file);
  return async () => {
    if (/\.[cm]?tsx?$/.test(resolved) && !require.extensions?.[".ts"] && !typescriptRegistered) {
      require("ts-node").register({ transpileOnly: true });
      typescriptRegistered = true;
    }
    // Each run loads the module again, as each `pulumi up` does.
    delete require.cache[require.resolve(resolved)];
    const exported: unknown = require(resolved);
    if (typeof exported === "function") return await (exported as () => unknown)();
    // `export default async () => ...`, compiled to CommonJS.
    const main = (exported as { default?: unknown } | undefined)?.default;
    if (typeof main === "function") return await (main as () => unknown)();
    return exported;
  };
}
