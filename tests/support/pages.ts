/** The README's and docs/' code blocks, for the tests that run them as written. */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const root = path.join(__dirname, "..", "..");

/** The page's code blocks of a language, in order (`page` relative to the repository). */
export function pageBlocks(page: string, language: string): string[] {
  return [...fs.readFileSync(path.join(root, page), "utf8").matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
}

/** The package as the pages import it, from this checkout. */
export function loadAsPages(name: string): unknown {
  const local: Record<string, string> = {
    "pulumi-keepstack": "../../index",
    "keepstack-emulator": "../../emulator/index",
    "pulumi-keepstack/policy": "../../policy",
  };
  return require(local[name] ?? name);
}

/**
 * Runs a TypeScript block as a module body (top-level `await` allowed), its imports through
 * `loadAsPages`; resolves with what it exports.
 */
export async function runBlock(block: string): Promise<Record<string, unknown>> {
  const js = ts.transpileModule(`export {};\n${block}`, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<unknown>;
  const exported: Record<string, unknown> = {};
  await new AsyncFunction("require", "exports", js)(loadAsPages, exported);
  return exported;
}
