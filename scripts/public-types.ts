/**
 * The package's public shape from the sources, in one walk over its exports:
 * - the public declarations (`dist/index.d.ts`): every resource class with a named `<Name>Args`
 *   interface and its outputs as properties, each carrying the JSDoc written on its schema; every
 *   function, error class and exported type with its types spelled out. They name only
 *   `@pulumi/pulumi` and the standard library: a program compiles against them with any tsconfig,
 *   and no schema library's declarations are checked there;
 * - the provider plugin's package schema (`schema.json`, package-schema.ts): the same resources and
 *   functions under their plugin tokens, with the same docs.
 *
 * Written by `npm run build` (scripts/build.ts, with the program that compiled the sources);
 * `tests/types/` checks the declarations, `tests/plugin/schema.spec.ts` the schema.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { PLUGIN_PACKAGE } from "../provider/config";
import { isOperationSpec } from "../provider/spec";
import type { AnySpec } from "../provider/spec";
import { functionTokenOfPath, tokenOfPath } from "../resources/catalog";
import { PackageSchema, providerConfig, SchemaWriter, TypeSpec } from "./package-schema";
import { withExample } from "./schema-examples";

const root = path.join(__dirname, "..");

/** A type printed, or the reason it cannot be (which fails the build: the declarations would lie). */
class Unprintable extends Error {}

/** The configuration `npm run build` compiles: tsconfig.build.json's files and options. */
export function buildConfig(configPath = path.join(root, "tsconfig.build.json")): ts.ParsedCommandLine {
  return ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); } })!;
}

/**
 * The program `npm run build` compiles. The walk takes it whole, never the entry alone, and before
 * anything else asks its checker: the order of a union's members (an enum's values) is the order in
 * which the checker met them, across files.
 */
export function buildProgram(config: ts.ParsedCommandLine = buildConfig()): ts.Program {
  return ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
}

/** The public shape: the declarations' text and the plugin's schema. */
export function generatePublicShape(program: ts.Program = buildProgram()): { declarations: string; schema: PackageSchema } {
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(path.join(root, "index.ts"))!;
  const entrySymbol = checker.getSymbolAtLocation(entry)!;

  const resolve = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const propType = (t: ts.Type, name: string): ts.Type | undefined => {
    const p = t.getProperty(name);
    return p ? checker.getTypeOfSymbol(p) : undefined;
  };
  const docOf = (s: ts.Symbol | undefined): string => {
    if (!s) return "";
    const text = ts.displayPartsToString(s.getDocumentationComment(checker)).trim();
    const tags = s
      .getJsDocTags(checker)
      .map((t) => `@${t.name}${t.text ? ` ${ts.displayPartsToString(t.text)}` : ""}`)
      .join("\n");
    return [text, tags].filter(Boolean).join("\n");
  };
  const jsdoc = (doc: string, indent: string): string => {
    if (!doc) return "";
    const lines = doc.replace(/\*\//g, "*\\/").split("\n");
    if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
    return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ""}`).join("\n")}\n${indent} */\n`;
  };
  const isClassFactory = (t: ts.Type) => t.getProperty("__declarationSource") !== undefined;

  // First pass: the public name of every exported type, so a reference to it prints by that name.
  const publicNames = new Map<ts.Symbol, string>();
  const collect = (moduleSymbol: ts.Symbol, prefix: string) => {
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = resolve(exported);
      const name = `${prefix}${exported.name}`;
      if (target.flags & ts.SymbolFlags.ValueModule && target.valueDeclaration && ts.isSourceFile(target.valueDeclaration)) {
        collect(target, `${name}.`);
        continue;
      }
      if (target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class)) publicNames.set(target, name);
      if (target.flags & ts.SymbolFlags.TypeAlias && !(target.flags & ts.SymbolFlags.Value)) publicNames.set(target, name);
    }
  };
  collect(entrySymbol, "");

  const libraryFile = (s: ts.Symbol | undefined) => {
    const file = s?.declarations?.[0]?.getSourceFile();
    if (!file) return undefined;
    if (program.isSourceFileDefaultLibrary(file) || /[\\/]node_modules[\\/]@types[\\/]node[\\/]/.test(file.fileName)) return "std";
    if (/[\\/]node_modules[\\/]@pulumi[\\/]pulumi[\\/]/.test(file.fileName)) return "pulumi";
    return undefined;
  };

  type Mode = "plain" | "input";
  const printing: ts.Type[] = [];

  /** A type as TypeScript text; `input` allows a Pulumi Input at every level below the top, as the classes do. */
  function print(type: ts.Type, mode: Mode, indent: string): string {
    if (printing.includes(type)) throw new Unprintable(`a recursive type (${checker.typeToString(type)})`);
    printing.push(type);
    try {
      return printUnguarded(type, mode, indent);
    } finally {
      printing.pop();
    }
  }

  function printUnion(members: ts.Type[], mode: Mode, indent: string): string {
    const hasTrue = members.some((m) => m.flags & ts.TypeFlags.BooleanLiteral && (m as unknown as { intrinsicName: string }).intrinsicName === "true");
    const hasFalse = members.some((m) => m.flags & ts.TypeFlags.BooleanLiteral && (m as unknown as { intrinsicName: string }).intrinsicName === "false");
    const parts: string[] = [];
    // undefined and null read best last.
    const rank = (t: ts.Type) => (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null) ? 1 : 0);
    for (const m of [...members].sort((a, b) => rank(a) - rank(b))) {
      if (m.flags & ts.TypeFlags.BooleanLiteral && hasTrue && hasFalse) {
        if (!parts.includes("boolean")) parts.push("boolean");
        continue;
      }
      const text = print(m, mode, indent);
      if (parts.includes(text)) continue;
      parts.push(m.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && /=>/.test(text) ? `(${text})` : text);
    }
    return parts.join(" | ");
  }

  function printUnguarded(type: ts.Type, mode: Mode, indent: string): string {
    const f = type.flags;
    if (f & ts.TypeFlags.Any) return "any";
    if (f & ts.TypeFlags.Unknown) return "unknown";
    if (f & ts.TypeFlags.Never) return "never";
    if (f & ts.TypeFlags.Void) return "void";
    if (f & ts.TypeFlags.Undefined) return "undefined";
    if (f & ts.TypeFlags.Null) return "null";
    if (f & ts.TypeFlags.String) return "string";
    if (f & ts.TypeFlags.Number) return "number";
    if (f & ts.TypeFlags.Boolean) return "boolean";
    if (f & ts.TypeFlags.BigInt) return "bigint";
    if (f & ts.TypeFlags.ESSymbol) return "symbol";
    if (f & ts.TypeFlags.StringLiteral) return JSON.stringify((type as ts.StringLiteralType).value);
    if (f & ts.TypeFlags.NumberLiteral) return String((type as ts.NumberLiteralType).value);
    if (f & ts.TypeFlags.BooleanLiteral) return (type as unknown as { intrinsicName: string }).intrinsicName;
    if (f & ts.TypeFlags.TemplateLiteral) return checker.typeToString(type);
    if (f & ts.TypeFlags.TypeParameter) return type.getSymbol()!.name;
    const output = outputOf(type);
    if (output) return `pulumi.Output<${print(output, "plain", indent)}>`;
    if (type.isUnion()) return printUnion(type.types, mode, indent);

    const named = publicNames.get(type.aliasSymbol ?? type.getSymbol()!);
    if (named && mode === "plain") return named;

    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      const args = checker.getTypeArguments(type as ts.TypeReference);
      const readonly = type.getSymbol()?.name === "ReadonlyArray" ? "readonly " : "";
      if (checker.isTupleType(type)) return `${readonly}[${args.map((a) => member(a, mode, indent)).join(", ")}]`;
      const element = member(args[0], mode, indent);
      return `${readonly}${/[|&]/.test(element) && !element.startsWith("pulumi.Input<") ? `(${element})` : element}[]`;
    }

    const symbol = type.aliasSymbol ?? type.getSymbol();
    const library = libraryFile(symbol);
    // A mapped utility (`Record<string, string>`) is spelled out for inputs: its members take Inputs too.
    const expandForInputs = mode === "input" && type.aliasSymbol !== undefined && ["Record", "Partial", "Required", "Readonly", "Pick", "Omit"].includes(type.aliasSymbol.name);
    if (library && !expandForInputs && symbol && symbol.name !== "__type" && symbol.name !== "__object") {
      const args = type.aliasSymbol ? (type.aliasTypeArguments ?? []) : type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference ? checker.getTypeArguments(type as ts.TypeReference) : [];
      const name = library === "pulumi" ? `pulumi.${pulumiName(symbol)}` : symbol.name;
      return args.length ? `${name}<${args.map((a) => print(a, "plain", indent)).join(", ")}>` : name;
    }

    if (type.getCallSignatures().length > 0 && type.getProperties().length === 0) {
      return type.getCallSignatures().map((s) => printSignature(s, indent, "=>")).join(" & ");
    }
    if (f & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return printObject(type, mode, indent);
    throw new Unprintable(`type ${checker.typeToString(type)}`);
  }

  /**
   * The T of a `pulumi.Output<T>`: the SDK declares it as `OutputInstance<T> & Lifted<T>`, which the
   * checker may spread over T's members, so each member of a union holds the same OutputInstance.
   */
  function outputOf(type: ts.Type): ts.Type | undefined {
    const instanceIn = (t: ts.Type) =>
      (t.isIntersection() ? t.types : [t]).find((m) => m.getSymbol()?.name === "OutputInstance" && libraryFile(m.getSymbol()) === "pulumi");
    const members = type.isUnion() ? type.types : [type];
    const instances = members.map(instanceIn);
    if (instances.some((i) => i === undefined)) return undefined;
    const args = instances.map((i) => checker.getTypeArguments(i as ts.TypeReference)[0]);
    return args.every((a) => a === args[0]) ? args[0] : undefined;
  }

  /** A member one level down: an Input again in input mode. */
  function member(type: ts.Type, mode: Mode, indent: string): string {
    return mode === "input" ? `pulumi.Input<${print(type, mode, indent)}>` : print(type, mode, indent);
  }

  function pulumiName(symbol: ts.Symbol): string {
    // The SDK's output types are declared as OutputInstance and friends; programs name them Output/Input.
    const renames: Record<string, string> = { OutputInstance: "Output" };
    return renames[symbol.name] ?? symbol.name;
  }

  function printObject(type: ts.Type, mode: Mode, indent: string, docsFrom?: ts.Type): string {
    const inner = `${indent}  `;
    const lines: string[] = [];
    for (const index of checker.getIndexInfosOfType(type)) {
      lines.push(`${inner}[key: ${print(index.keyType, "plain", inner)}]: ${member(index.type, mode, inner)};`);
    }
    for (const prop of checker.getPropertiesOfType(type)) lines.push(printProperty(prop, mode, inner, docsFrom));
    return lines.length ? `{\n${lines.join("\n")}\n${indent}}` : "{}";
  }

  function withoutUndefined(type: ts.Type): ts.Type[] {
    return type.isUnion() ? type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)) : [type];
  }

  function printProperty(prop: ts.Symbol, mode: Mode, indent: string, docsFrom?: ts.Type, readonly = false): string {
    const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
    const type = checker.getTypeOfSymbol(prop);
    // An optional input takes an Output that may hold undefined, as the sources' DeepInput does.
    const members = outputOf(type) ? [type] : optional && mode !== "input" ? withoutUndefined(type) : type.isUnion() ? type.types : [type];
    const printed = members.length === 1 ? print(members[0], mode, indent) : printUnion(members, mode, indent);
    const doc = docOf(prop) || docOf(docsFrom?.getProperty(prop.name));
    const key = /^[A-Za-z_$][\w$]*$/.test(prop.name) ? prop.name : JSON.stringify(prop.name);
    const value = mode === "input" ? `pulumi.Input<${printed}>` : printed;
    return `${jsdoc(doc, indent)}${indent}${readonly ? "readonly " : ""}${key}${optional ? "?" : ""}: ${value};`;
  }

  function printSignature(signature: ts.Signature, indent: string, arrow: "=>" | ":"): string {
    const params = signature.getParameters().filter((p) => !isInternalParameter(p));
    const text = params.map((p) => {
      const decl = p.valueDeclaration as ts.ParameterDeclaration | undefined;
      const optional = !!decl && (decl.questionToken !== undefined || decl.initializer !== undefined);
      const rest = !!decl?.dotDotDotToken;
      const t = checker.getTypeOfSymbol(p);
      const members = optional ? withoutUndefined(t) : [t];
      const printed = namedByDeclaration(decl?.type) ?? (members.length === 1 ? print(members[0], "plain", indent) : printUnion(members, "plain", indent));
      return `${rest ? "..." : ""}${p.name}${optional ? "?" : ""}: ${printed}`;
    });
    const returns = print(signature.getReturnType(), "plain", indent);
    const typeParameters = (signature.getTypeParameters() ?? []).map((t) => {
      const constraint = t.getConstraint();
      return `${t.getSymbol()!.name}${constraint ? ` extends ${print(constraint, "plain", indent)}` : ""}`;
    });
    return `${typeParameters.length ? `<${typeParameters.join(", ")}>` : ""}(${text.join(", ")})${arrow === "=>" ? " => " : ": "}${returns}`;
  }

  /** The public name a declared type refers to (`args: GetCredentialsArgs`), where the checker's type has lost it. */
  function namedByDeclaration(node: ts.TypeNode | undefined): string | undefined {
    if (!node || !ts.isTypeReferenceNode(node) || node.typeArguments) return undefined;
    const symbol = checker.getSymbolAtLocation(node.typeName);
    return symbol ? publicNames.get(resolve(symbol)) : undefined;
  }

  /** The operation context a function takes last is for the package's own tests: programs never pass it. */
  function isInternalParameter(p: ts.Symbol): boolean {
    const decl = p.valueDeclaration;
    return !!decl && ts.isParameter(decl) && !!decl.type && /\bOperationContext\b/.test(decl.type.getText());
  }

  /** `declare` belongs on top-level declarations only: inside a declared namespace all is ambient. */
  const declare = (indent: string) => (indent === "" ? "declare " : "");

  // The plugin's schema, written beside the declarations of each resource and function.
  const writer = new SchemaWriter(checker, {
    docOf: (p, shape) => docOf(p) || docOf(shape?.getProperty(p.name)),
    outputOf,
    // The last part of the public name: the module is in the token already.
    publicName: (t) => publicNames.get((t.aliasSymbol ?? t.getSymbol())!)?.split(".").pop(),
  });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const specs = require("../resources/all-specs").specsByClass as Record<string, AnySpec>;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { functionLoaders } = require("../resources/catalog") as { functionLoaders: Record<string, unknown> };
  const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

  /** The keys of a zod object whose schema is a whole number (the types say `number` only). */
  const wholeNumbers = (schema: { shape: Record<string, unknown> }): Set<string> => {
    const unwrap = (z: any): any => (z?.def?.innerType ? unwrap(z.def.innerType) : z?.def?.in && z?.def?.type === "pipe" ? unwrap(z.def.in) : z);
    return new Set(Object.entries(schema.shape).filter(([, z]) => unwrap(z)?.isInt === true).map(([k]) => k));
  };

  /** Each resource's example inputs, by token: written out in every language once the schema's types are all known. */
  const examples = new Map<string, Record<string, unknown>>();

  function schemaOfResource(exportPath: string, target: ts.Symbol, source: ts.Type): void {
    const spec = specs[exportPath];
    if (!spec) throw new Unprintable(`the spec of ${exportPath} (not in the catalog)`);
    const type = tokenOfPath(exportPath);
    const [module, typeName] = type.split(":");
    const internals = (schema: ts.Type, side: "input" | "output") => propType(propType(schema, "_zod")!, side)!;
    const inputs = propType(source, "inputs")!;
    const computed = propType(source, "computed")!;
    const extra = propType(source, "extra")!;
    const whole = new Set([...wholeNumbers(spec.inputs), ...wholeNumbers(spec.computed)]);
    const secretInputs = new Set<string>(spec.secretInputs ?? []);
    const secretOutputs = new Set<string>([...secretInputs, ...(spec.secretOutputs ?? [])]);
    const writeOnly = new Set<string>(isOperationSpec(spec) ? [] : (spec.writeOnly ?? []));
    // An operation runs again on any change but of its undo setting; an object replaces on the inputs its spec names.
    const replacing = (key: string) => (isOperationSpec(spec) ? key !== spec.undo?.input : (spec.replaceOnChanges ?? []).includes(key as never));
    const property = (prop: ts.Symbol, shape: ts.Type, secrets: Set<string>, replaces: boolean): TypeSpec => {
      const { spec: t, secret } = writer.typeOf(checker.getTypeOfSymbol(prop), module, `${typeName}${capital(prop.name)}`, whole.has(prop.name));
      const description = docOf(prop) || docOf(shape.getProperty(prop.name));
      return { ...t, ...(description ? { description } : {}), ...(secret || secrets.has(prop.name) ? { secret: true } : {}), ...(replaces && replacing(prop.name) ? { willReplaceOnChanges: true } : {}) };
    };
    const extras = checker.getPropertiesOfType(extra).map((prop): [string, TypeSpec] => [
      prop.name,
      { ...(prop.name === "triggers" ? { type: "array", items: { $ref: "pulumi.json#/Any" } } : { type: "boolean" }), description: docOf(prop) },
    ]);
    const inputProperties: Record<string, TypeSpec> = {};
    const requiredInputs: string[] = [];
    for (const prop of checker.getPropertiesOfType(internals(inputs, "input"))) {
      inputProperties[prop.name] = property(prop, propType(inputs, "shape")!, secretInputs, true);
      if (!writer.mayBeAbsent(prop)) requiredInputs.push(prop.name);
    }
    for (const [key, value] of extras) inputProperties[key] = { ...value, ...(key === "triggers" ? { willReplaceOnChanges: true } : {}) };
    const properties: Record<string, TypeSpec> = {};
    const required: string[] = [];
    for (const [schema, side] of [[inputs, "input"], [computed, "computed"]] as const) {
      for (const prop of checker.getPropertiesOfType(internals(schema, "output"))) {
        if (properties[prop.name]) continue;
        properties[prop.name] = property(prop, propType(schema, "shape")!, secretOutputs, side === "input");
        // A write-only input is not read back: an imported object has none until the program gives it.
        if (!writer.mayBeAbsent(prop) && !writeOnly.has(prop.name)) required.push(prop.name);
      }
    }
    for (const [key, value] of extras) properties[key] = value;
    if (spec.example) examples.set(`${PLUGIN_PACKAGE}:${type}`, spec.example.inputs(0));
    writer.resources[`${PLUGIN_PACKAGE}:${type}`] = {
      description: docOf(target) || spec.description || typeName,
      properties,
      ...(required.length ? { required } : {}),
      inputProperties,
      ...(requiredInputs.length ? { requiredInputs } : {}),
    };
  }

  function schemaOfFunction(exportPath: string, target: ts.Symbol, signatures: readonly ts.Signature[]): void {
    if (!(exportPath in functionLoaders)) return;
    const token = functionTokenOfPath(exportPath);
    const [module, name] = token.split(":");
    const hint = capital(name);
    const argTypes: ts.Type[] = [];
    const results: ts.Type[] = [];
    for (const signature of signatures) {
      const param = signature.getParameters().find((p) => !isInternalParameter(p));
      if (param) argTypes.push(...(checker.getTypeOfSymbol(param).isUnion() ? (checker.getTypeOfSymbol(param) as ts.UnionType).types : [checker.getTypeOfSymbol(param)]));
      results.push(checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType());
    }
    const objects = (types: ts.Type[]) => types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)));
    const args = objects(argTypes);
    const inputs = args.length ? writer.objectSpec(args, module, `${hint}Args`).spec : { type: "object", properties: {} };
    const flat = results.flatMap((r) => (r.isUnion() ? r.types : [r]));
    const present = objects(flat);
    const nullable = present.length < flat.length;
    const allObjects = present.length > 0 && present.every((t) => t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && !checker.isArrayType(t) && !checker.isTupleType(t) && !writer.isMap(t));
    let outputs: TypeSpec;
    if (allObjects) {
      outputs = writer.objectSpec(present, module, `${hint}Result`).spec;
      if (nullable) delete outputs.required;
    } else {
      // Answered as `result` (a list, or nothing): the plugin's answer is an object.
      const { spec: result, secret } = writer.typeOfAny(flat, module, `${hint}Result`);
      outputs = { type: "object", properties: { result: { ...result, description: "The function's answer.", ...(secret ? { secret: true } : {}) } }, ...(nullable ? {} : { required: ["result"] }) };
    }
    const doc = signatures.map((s) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim()).find(Boolean) || docOf(target);
    writer.functions[`${PLUGIN_PACKAGE}:${token}`] = { description: doc, inputs, outputs };
  }

  /** A doc as the plugin's users read it: a setting named as the dynamic resources name it (`keep:namespace`) gets the plugin's name beside it. */
  const forPlugin = (text: string): string =>
    text.replace(/`(keep|workspaces|mesh):([a-z][A-Za-z]*)`/g, (_m, service: string, key: string) => `\`${PLUGIN_PACKAGE}:${service}${capital(key)}\``);
  const rewriteDocs = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewriteDocs);
    if (!value || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "description" && typeof v === "string" ? forPlugin(v) : rewriteDocs(v)]));
  };

  function packageSchema(description: string): PackageSchema {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string; license: string };
    const { variables, inputProperties } = providerConfig();
    const sorted = (o: Record<string, TypeSpec>) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
    const schema: PackageSchema = {
      name: PLUGIN_PACKAGE,
      displayName: "keepstack",
      version: manifest.version,
      description: `${description} Served by the provider plugin of pulumi-keepstack, for programs in every Pulumi language.`,
      keywords: ["pulumi", PLUGIN_PACKAGE, "category/infrastructure", "kind/native"],
      license: manifest.license,
      publisher: "pulumi-keepstack",
      meta: { moduleFormat: "(.*)" },
      config: { variables },
      provider: {
        description: "The keepstack provider: the connection to each service. Configure it with `keepstack:` stack settings, or declare one explicitly to reach another cluster.",
        inputProperties,
      },
      types: rewriteDocs(sorted(writer.types)) as Record<string, TypeSpec>,
      resources: rewriteDocs(writer.resources) as Record<string, TypeSpec>,
      functions: rewriteDocs(writer.functions) as Record<string, TypeSpec>,
      language: {
        nodejs: { packageName: "@keepstack/pulumi-keepstack", packageDescription: "The keepstack package: resources of the secrets, workspace and mesh services.", dependencies: { "@pulumi/pulumi": "^3.0.0" } },
        python: { packageName: "pulumi_keepstack", requires: { pulumi: ">=3.0.0,<4.0.0" } },
        go: { importBasePath: "github.com/keepstack/pulumi-keepstack/sdk/go/keepstack", generateResourceContainerTypes: true },
        csharp: { packageReferences: { Pulumi: "3.*" }, namespaces: { [PLUGIN_PACKAGE]: "Keepstack", keep: "Keep", workspaces: "Workspaces", mesh: "Mesh" } },
        java: { basePackage: "com.keepstack", buildFiles: "gradle", dependencies: { "com.pulumi:pulumi": "1.0.0" } },
      },
    };
    for (const [token, inputs] of examples) schema.resources[token].description = withExample(schema.resources[token].description, token, inputs, schema);
    return schema;
  }

  // Second pass: the declarations.
  function emitResource(name: string, target: ts.Symbol, factory: ts.Type, indent: string, exportPath: string): string {
    const source = checker.getNonNullableType(propType(factory, "__declarationSource")!);
    schemaOfResource(exportPath, target, source);
    const inputs = propType(source, "inputs")!;
    const computed = propType(source, "computed")!;
    const extra = propType(source, "extra")!;
    const internals = (schema: ts.Type, side: "input" | "output") => propType(propType(schema, "_zod")!, side)!;
    const inputShape = propType(inputs, "shape")!;
    const computedShape = propType(computed, "shape")!;
    const inner = `${indent}  `;

    const args: string[] = [];
    for (const prop of checker.getPropertiesOfType(internals(inputs, "input"))) args.push(printProperty(prop, "input", inner, inputShape));
    for (const prop of checker.getPropertiesOfType(extra)) {
      const decl = prop.valueDeclaration as ts.PropertySignature;
      args.push(`${jsdoc(docOf(prop), inner)}${inner}${prop.name}?: ${decl.type!.getText()};`);
    }
    const outputs: string[] = [];
    const seen = new Set<string>();
    for (const [schema, shape] of [[inputs, inputShape], [computed, computedShape]] as const) {
      for (const prop of checker.getPropertiesOfType(internals(schema, "output"))) {
        if (seen.has(prop.name)) continue;
        seen.add(prop.name);
        const t = checker.getTypeOfSymbol(prop);
        const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
        const printed = print(t, "plain", inner) + (optional && !/\bundefined\b/.test(print(t, "plain", inner)) ? " | undefined" : "");
        const doc = docOf(prop) || docOf(shape.getProperty(prop.name));
        outputs.push(`${jsdoc(doc, inner)}${inner}readonly ${prop.name}: pulumi.Output<${printed}>;`);
      }
    }
    const doc = docOf(target);
    return [
      `${jsdoc(`The arguments of {@link ${name}}.`, indent)}${indent}export interface ${name}Args {\n${args.join("\n")}\n${indent}}`,
      `${jsdoc(`The outputs of {@link ${name}}.`, indent)}${indent}export interface ${name}Outputs {\n${outputs.join("\n")}\n${indent}}`,
      // The instance has the outputs by merging with this interface.
      `${indent}export interface ${name} extends ${name}Outputs {}`,
      `${jsdoc(doc, indent)}${indent}export ${declare(indent)}class ${name} extends pulumi.CustomResource {\n` +
        `${inner}/** The type token, as \`@pulumi/policy\` expects it. */\n${inner}static readonly __pulumiType: string;\n` +
        `${inner}static isInstance(obj: unknown): obj is ${name};\n` +
        `${inner}/** A read-only reference to an existing object, by its natural ID. */\n` +
        `${inner}static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): ${name};\n` +
        `${inner}constructor(name: string, args: ${name}Args, opts?: pulumi.CustomResourceOptions);\n${indent}}`,
    ].join("\n\n");
  }

  function emitClass(name: string, target: ts.Symbol, indent: string): string {
    const instance = checker.getDeclaredTypeOfSymbol(target) as ts.InterfaceType;
    const base = checker.getBaseTypes(instance)[0];
    const baseName = base ? (publicNames.get(base.getSymbol()!) ?? (libraryFile(base.getSymbol()) === "std" ? base.getSymbol()!.name : undefined)) : undefined;
    if (base && !baseName) throw new Unprintable(`the base class of ${name}`);
    const inherited = new Set(base ? checker.getPropertiesOfType(base).map((p) => p.name) : []);
    const inner = `${indent}  `;
    const members: string[] = [];
    for (const prop of checker.getPropertiesOfType(instance)) {
      if (inherited.has(prop.name) || (prop.valueDeclaration && ts.getCombinedModifierFlags(prop.valueDeclaration as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected))) continue;
      if (prop.flags & ts.SymbolFlags.Method) continue;
      const isReadonly = !!prop.valueDeclaration && (ts.getCombinedModifierFlags(prop.valueDeclaration as ts.Declaration) & ts.ModifierFlags.Readonly) !== 0;
      members.push(printProperty(prop, "plain", inner, undefined, isReadonly));
    }
    // Programs catch these; they do not make them, so no public constructor is declared (protected: the families' errors extend FunctionError).
    members.push(`${inner}protected constructor();`);
    return `${jsdoc(docOf(target), indent)}${indent}export ${declare(indent)}class ${name}${baseName ? ` extends ${baseName}` : ""} {\n${members.join("\n")}\n${indent}}`;
  }

  function emitFunction(name: string, target: ts.Symbol, indent: string, exportPath: string): string {
    const signatures = checker.getTypeOfSymbol(target).getCallSignatures();
    schemaOfFunction(exportPath, target, signatures);
    return signatures
      .map((s) => {
        const doc = ts.displayPartsToString(s.getDocumentationComment(checker)).trim() || docOf(target);
        return `${jsdoc(doc, indent)}${indent}export ${declare(indent)}function ${name}${printSignature(s, indent, ":")};`;
      })
      .join("\n");
  }

  function emitType(name: string, target: ts.Symbol, indent: string): string {
    const type = checker.getDeclaredTypeOfSymbol(target);
    const doc = docOf(target);
    const isObject = !type.isUnion() && type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && type.getCallSignatures().length === 0 && !checker.isArrayType(type);
    // Expanded here, not printed by its own name.
    publicNames.delete(target);
    try {
      if (isObject) return `${jsdoc(doc, indent)}${indent}export interface ${name} ${printObject(type, "plain", indent)}`;
      return `${jsdoc(doc, indent)}${indent}export type ${name} = ${print(type, "plain", indent)};`;
    } finally {
      publicNames.set(target, name);
    }
  }

  function emitModule(moduleSymbol: ts.Symbol, indent: string, prefix = ""): string[] {
    const parts: string[] = [];
    const exports = checker.getExportsOfModule(moduleSymbol);
    const classNames = new Set<string>();
    for (const exported of exports) {
      const target = resolve(exported);
      if (target.flags & ts.SymbolFlags.Value && isClassFactory(checker.getTypeOfSymbol(target))) classNames.add(exported.name);
    }
    for (const exported of exports) {
      const target = resolve(exported);
      const name = exported.name;
      try {
        if (target.flags & ts.SymbolFlags.ValueModule && target.valueDeclaration && ts.isSourceFile(target.valueDeclaration)) {
          const body = emitModule(target, `${indent}  `, `${prefix}${name}.`);
          parts.push(`${jsdoc(docOf(target), indent)}${indent}export ${declare(indent)}namespace ${name} {\n${body.join("\n\n")}\n${indent}}`);
        } else if (classNames.has(name)) {
          parts.push(emitResource(name, target, checker.getTypeOfSymbol(target), indent, `${prefix}${name}`));
        } else if (target.flags & ts.SymbolFlags.Class) {
          parts.push(emitClass(name, target, indent));
        } else if (target.flags & ts.SymbolFlags.Function || (target.flags & ts.SymbolFlags.Variable && checker.getTypeOfSymbol(target).getCallSignatures().length > 0)) {
          // A function declared on its family (`export const f = family.define({...})`) is a function to programs.
          parts.push(emitFunction(name, target, indent, `${prefix}${name}`));
        } else if (target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
          // A resource's `<Name>Args` is generated beside its class.
          if (name.endsWith("Args") && classNames.has(name.slice(0, -4))) continue;
          parts.push(emitType(name, target, indent));
        } else {
          throw new Unprintable(`an export of this kind (${ts.SymbolFlags[target.flags] ?? target.flags})`);
        }
      } catch (e) {
        if (e instanceof Unprintable) throw new Error(`public declarations: cannot write ${name}: ${e.message}`);
        throw e;
      }
    }
    return parts;
  }

  const body = emitModule(entrySymbol, "");
  const declarations = [
    "// Generated by scripts/public-types.ts from the sources; do not edit.",
    `${jsdoc(docOf(entrySymbol), "")}import * as pulumi from "@pulumi/pulumi";`,
    "",
    body.join("\n\n"),
    "",
  ].join("\n");
  return { declarations, schema: packageSchema(docOf(entrySymbol)) };
}

export function generatePublicDeclarations(): string {
  return generatePublicShape().declarations;
}

/** The schema as the build writes it: sorted keys where order carries nothing, two-space indents, a final newline. */
export function schemaText(schema: PackageSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
