/**
 * `npm run build`: the emulator's package first (emulator/tsconfig.json into emulator/dist: the
 * repository's tools load it by its name, through its declarations), then one TypeScript program over
 * tsconfig.build.json's files, checked, emitted into dist/, and walked for the package's public shape
 * (dist/index.d.ts and schema.json, public-types.ts). One program rather than `tsc` and then a second
 * one for the walk: type-checking the sources is most of the build's time, and the walk needs exactly
 * the checker the compilation built.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { buildConfig, buildProgram, generatePublicShape, schemaText } from "./public-types";

const root = path.join(__dirname, "..");

/** The executables the package's `bin` names. */
const EXECUTABLES = ["dist/cli/main.js", "dist/cli/plugin.js"];

/** Checks and emits one program; its diagnostics, none when it emitted. */
function compile(program: ts.Program): readonly ts.Diagnostic[] {
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length) return diagnostics;
  const emitted = program.emit();
  if (emitted.emitSkipped && !emitted.diagnostics.length) throw new Error("the compiler skipped the emit and said nothing");
  return emitted.diagnostics;
}

function main(): number {
  const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  const refuse = (diagnostics: readonly ts.Diagnostic[]) => {
    process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
    process.stderr.write(`\n${diagnostics.length} error(s): the build failed\n`);
    return 1;
  };
  // The emulator's package, a program of its own: it imports nothing from the product.
  const emulator = buildConfig(path.join(root, "emulator", "tsconfig.json"));
  if (emulator.errors.length) return refuse(emulator.errors);
  const emulatorErrors = compile(buildProgram(emulator));
  if (emulatorErrors.length) return refuse(emulatorErrors);
  const config = buildConfig();
  if (config.errors.length) return refuse(config.errors);
  const program = buildProgram(config);
  // The walk first, on a checker that has met nothing yet: a union's members (an enum's values) come in
  // the order the checker met them, so the walk sees them as it does on a program of its own.
  const { declarations, schema } = generatePublicShape(program);
  const errors = compile(program);
  if (errors.length) return refuse(errors);
  fs.writeFileSync(path.join(root, "dist", "index.d.ts"), declarations);
  fs.writeFileSync(path.join(root, "schema.json"), schemaText(schema));
  for (const file of EXECUTABLES) fs.chmodSync(path.join(root, file), 0o755);
  return 0;
}

process.exitCode = main();
