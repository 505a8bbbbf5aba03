/**
 * `npm run build`: one TypeScript program over tsconfig.build.json's files, checked, emitted into
 * dist/, and walked for the package's public shape (dist/index.d.ts and schema.json, public-types.ts).
 * One program rather than `tsc` and then a second one for the walk: type-checking the sources is most
 * of the build's time, and the walk needs exactly the checker the compilation built.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { buildConfig, buildProgram, generatePublicShape, schemaText } from "./public-types";

const root = path.join(__dirname, "..");

/** The executables the package's `bin` names. */
const EXECUTABLES = ["dist/cli/main.js", "dist/cli/plugin.js"];

function main(): number {
  const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  const refuse = (diagnostics: readonly ts.Diagnostic[]) => {
    process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
    process.stderr.write(`\n${diagnostics.length} error(s): the build failed\n`);
    return 1;
  };
  const config = buildConfig();
  if (config.errors.length) return refuse(config.errors);
  const program = buildProgram(config);
  // The walk first, on a checker that has met nothing yet: a union's members (an enum's values) come in
  // the order the checker met them, so the walk sees them as it does on a program of its own.
  const { declarations, schema } = generatePublicShape(program);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length) return refuse(diagnostics);
  const emitted = program.emit();
  if (emitted.emitSkipped || emitted.diagnostics.length) return refuse(emitted.diagnostics);
  fs.writeFileSync(path.join(root, "dist", "index.d.ts"), declarations);
  fs.writeFileSync(path.join(root, "schema.json"), schemaText(schema));
  for (const file of EXECUTABLES) fs.chmodSync(path.join(root, file), 0o755);
  return 0;
}

process.exitCode = main();
