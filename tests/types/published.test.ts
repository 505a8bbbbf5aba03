/**
 * The declarations a program compiles against (`dist/index.d.ts`, written by the build from the
 * sources): named `<Name>Args` and `<Name>Outputs` interfaces whose properties carry the JSDoc written
 * on the schemas, nothing of the schema library, and no error under Pulumi's TypeScript template
 * with library checking on. The type tests of the sources run against them too.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { specsByClass } from "../../resources/all-specs";
import { isOperationSpec } from "../../provider/spec";

const repoRoot = path.join(__dirname, "..", "..");
const published = path.join(repoRoot, "dist", "index.d.ts");

/** Pulumi's TypeScript template (`pulumi new typescript`): no skipLibCheck, no esModuleInterop. */
const TEMPLATE: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  experimentalDecorators: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
  noEmit: true,
  types: ["node"],
  baseUrl: repoRoot,
  paths: { "pulumi-keepstack": [published] },
};

function diagnostics(files: string[], options: ts.CompilerOptions = TEMPLATE): string[] {
  const program = ts.createProgram({ rootNames: files, options });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return text;
    return `${path.relative(repoRoot, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ${text}`;
  });
}

/** Each interface of the declarations by its path (`keep.sync.ConfigArgs`): its properties and their JSDoc. */
function interfacesOf(text: string): Map<string, Map<string, string>> {
  const file = ts.createSourceFile(published, text, ts.ScriptTarget.Latest, true);
  const found = new Map<string, Map<string, string>>();
  const visit = (node: ts.Node, prefix: string) => {
    if (ts.isModuleDeclaration(node) && node.body && ts.isModuleBlock(node.body)) {
      for (const statement of node.body.statements) visit(statement, `${prefix}${node.name.text}.`);
    } else if (ts.isInterfaceDeclaration(node)) {
      const props = new Map<string, string>();
      for (const member of node.members) {
        if (!ts.isPropertySignature(member)) continue;
        const doc = ts
          .getJSDocCommentsAndTags(member)
          .map((d) => (ts.isJSDoc(d) ? ts.getTextOfJSDocComment(d.comment) ?? "" : ""))
          .join("\n");
        props.set(member.name.getText(), doc.replace(/\s+/g, " ").trim());
      }
      found.set(`${prefix}${node.name.text}`, props);
    }
  };
  file.statements.forEach((s) => visit(s, ""));
  return found;
}

const text = fs.readFileSync(published, "utf8");
const interfaces = interfacesOf(text);

test("every resource class has a named Args interface with every input, each with its doc", () => {
  const undocumented: string[] = [];
  for (const [classPath, spec] of Object.entries(specsByClass)) {
    const args = interfaces.get(`${classPath}Args`);
    expect([classPath, args !== undefined]).toEqual([classPath, true]);
    expect([classPath, interfaces.has(`${classPath}Outputs`)]).toEqual([classPath, true]);
    const expected = [...Object.keys(spec.inputs.shape), ...(isOperationSpec(spec) ? ["triggers"] : ["adopt", "takeOver"])];
    expect([classPath, [...args!.keys()].sort()]).toEqual([classPath, expected.sort()]);
    for (const [name, doc] of args!) if (doc === "") undocumented.push(`${classPath}Args.${name}`);
  }
  expect(undocumented).toEqual([]);
});

test("the docs are the ones written on the schemas", () => {
  // resources/keep/policies/acl.ts, on the `policy` property of its inputs.
  expect(interfaces.get("keep.AclPolicyArgs")!.get("policy")).toBe("Policy document (HCL or JSON), plain or base64-encoded. Read in preview as the service reads it: a document it would refuse is refused with its line and rule.");
  expect(interfaces.get("keep.AclPolicyOutputs")!.get("policy")).toBe("Policy document (HCL or JSON), plain or base64-encoded. Read in preview as the service reads it: a document it would refuse is refused with its line and rule.");
});

test("every function's arguments are a named interface", () => {
  const file = ts.createSourceFile(published, text, ts.ScriptTarget.Latest, true);
  const anonymous: string[] = [];
  const visit = (node: ts.Node, prefix: string) => {
    if (ts.isModuleDeclaration(node) && node.body && ts.isModuleBlock(node.body)) node.body.statements.forEach((s) => visit(s, `${prefix}${node.name.text}.`));
    else if (ts.isFunctionDeclaration(node) && node.parameters[0]?.type && ts.isTypeLiteralNode(node.parameters[0].type)) anonymous.push(`${prefix}${node.name!.text}`);
  };
  file.statements.forEach((s) => visit(s, ""));
  expect(anonymous).toEqual([]);
});

test("the declarations name only @pulumi/pulumi: nothing of the schema library", () => {
  const imports = [...text.matchAll(/(?:from|import\()\s*"([^"]+)"/g)].map((m) => m[1]);
  expect([...new Set(imports)]).toEqual(["@pulumi/pulumi"]);
  expect(text).not.toMatch(/zod|Zod/);
});

describe("under Pulumi's TypeScript template, library checking on", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-template-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("the type tests of the sources hold against the declarations, with no error anywhere", () => {
    const files = ["keep-policies.types.ts", "mesh.types.ts", "workspaces.types.ts"].map((f) => path.join(__dirname, f));
    expect(diagnostics(files)).toEqual([]);
  });

  test("a mistyped property is named with the Args interface", () => {
    const program = path.join(dir, "mistyped.ts");
    fs.writeFileSync(program, `import { keep } from "pulumi-keepstack";\nnew keep.AclPolicy("readers", { name: "readers", polcy: "path \\"*\\" {}" });\n`);
    const errors = diagnostics([program]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("'polcy' does not exist in type 'AclPolicyArgs'");
  });

  test("a hover over an argument shows its doc", () => {
    const program = path.join(dir, "hover.ts");
    const source = `import { keep } from "pulumi-keepstack";\nnew keep.sync.Config("sync", { disabled: false });\n`;
    fs.writeFileSync(program, source);
    const host: ts.LanguageServiceHost = {
      getCompilationSettings: () => TEMPLATE,
      getScriptFileNames: () => [program],
      getScriptVersion: () => "1",
      getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
      getCurrentDirectory: () => repoRoot,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
    };
    const info = ts.createLanguageService(host).getQuickInfoAtPosition(program, source.indexOf("disabled"));
    const doc = ts.displayPartsToString(info?.documentation);
    expect(doc.length).toBeGreaterThan(10);
    expect(doc).toBe(interfaces.get("keep.sync.ConfigArgs")!.get("disabled"));
  });
});
