/**
 * Runs the compiler over the type tests (`*.types.ts`): positive assignments must compile, each
 * `@ts-expect-error` must meet an error, and each `Expect<Equal<...>>` must hold. Any diagnostic in
 * those files fails the test; diagnostics elsewhere belong to the files that hold them.
 */
import * as path from "node:path";
import * as ts from "typescript";

const configPath = path.join(__dirname, "tsconfig.json");

function diagnosticsOfTypeTests(): string[] {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const ownFiles = new Set(parsed.fileNames.map((f) => path.resolve(f)));
  const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...ts.getPreEmitDiagnostics(program)];
  return diagnostics
    .filter((d) => !d.file || ownFiles.has(path.resolve(d.file.fileName)))
    .map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
      if (!d.file || d.start === undefined) return text;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${path.relative(__dirname, d.file.fileName)}:${line + 1}: ${text}`;
    });
}

test("the type tests compile: Outputs are accepted where they should be, wrong types are refused", () => {
  expect(diagnosticsOfTypeTests()).toEqual([]);
});

test("the type tests cover every resource family", () => {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  const names = parsed.fileNames.map((f) => path.basename(f)).sort();
  expect(names).toEqual(expect.arrayContaining(["keep-policies.types.ts", "mesh.types.ts", "workspaces.types.ts"]));
});
