/**
 * Runs the compiler over the type tests (`*.types.ts`): positive assignments must compile, each
 * `@ts-expect-error` must meet an error, and each `Expect<Equal<...>>` must hold. Any diagnostic in
 * those files fails the test; diagnostics elsewhere belong to the files that hold them. The program of
 * every type's example in docs/resources.md compiles with them, as the page shows it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const configPath = path.join(__dirname, "tsconfig.json");

/** docs/resources.md's program of every type's example, as the page shows it (scripts/readme-tables.ts writes it). */
const EXAMPLES_PAGE = path.join(__dirname, "..", "..", "docs", "resources.md");
const EXAMPLES_FILE = path.join(__dirname, "docs-resources-examples.types.ts");

function examplesOfPage(): string {
  const page = fs.readFileSync(EXAMPLES_PAGE, "utf8");
  const section = page.slice(page.indexOf("<!-- generated:examples -->"), page.indexOf("<!-- /generated:examples -->"));
  const block = /```ts\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error("docs/resources.md has no examples program");
  return block[1];
}

function diagnosticsOfTypeTests(): string[] {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  // The page's program is one more file of the type tests, read from the page as it is.
  const host = ts.createCompilerHost(parsed.options);
  const examples = examplesOfPage();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) => (path.resolve(file) === EXAMPLES_FILE ? ts.createSourceFile(file, examples, language) : getSourceFile(file, language, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => path.resolve(file) === EXAMPLES_FILE || fileExists(file);
  const rootNames = [...parsed.fileNames, EXAMPLES_FILE];
  const program = ts.createProgram({ rootNames, options: parsed.options, host });
  const ownFiles = new Set(rootNames.map((f) => path.resolve(f)));
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

test("the type tests and docs/resources.md's examples program compile: Outputs are accepted where they should be, wrong types are refused", () => {
  expect(diagnosticsOfTypeTests()).toEqual([]);
});

test("the type tests cover every resource family", () => {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath));
  const names = parsed.fileNames.map((f) => path.basename(f)).sort();
  expect(names).toEqual(expect.arrayContaining(["keep-policies.types.ts", "mesh.types.ts", "workspaces.types.ts"]));
});
