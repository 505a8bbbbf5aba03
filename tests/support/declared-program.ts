/**
 * A program as data: resources of either door, their inputs as plain JSON, what they depend on and
 * which of their properties are the stack's outputs. The same data runs as a program in the test's
 * process (the campaigns, the harness) and, written beside this file's copy in a project, under the
 * real CLI (`DECLARED_PROGRAM_MAIN` reads `program.json`): one program for both engines, with nothing
 * in it but what the data says. The file imports only what a user's project has.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as keepstack from "pulumi-keepstack";

export interface DeclaredResource {
  /** The dynamic door (the package's class at `path`, such as `keep.kv.Secret`) or the plugin's (its token of `type`). */
  door: "dynamic" | "plugin";
  /** The short type, such as `keep:KvSecret`. */
  type: string;
  /** The class's export path (the dynamic door). */
  path?: string;
  name: string;
  inputs: Record<string, unknown>;
  /** Names of resources declared before it that it depends on. */
  dependsOn?: string[];
}

export interface DeclaredProgram {
  resources: DeclaredResource[];
  /** Stack outputs: output name → [resource name, property]. */
  outputs?: Record<string, [string, string]>;
}

interface PropertySpec {
  secret?: boolean;
}
interface SchemaResource {
  inputProperties: Record<string, PropertySpec>;
  properties: Record<string, PropertySpec>;
}

let schema: { resources: Record<string, SchemaResource> } | undefined;

/** The plugin's schema, from the package the program resolves. */
function pluginSchema(): { resources: Record<string, SchemaResource> } {
  schema ??= JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve("pulumi-keepstack/package.json")), "schema.json"), "utf8"));
  return schema!;
}

/** The class a generated SDK derives for each resource; this one takes the token as an argument. */
class GeneratedResource extends pulumi.CustomResource {
  constructor(token: string, name: string, props: Record<string, unknown>, opts: pulumi.CustomResourceOptions) {
    super(token, name, props, opts);
  }
}

/**
 * A resource of the plugin as a generated SDK declares it: every input and output property declared,
 * secret inputs wrapped as secrets, secret outputs named in `additionalSecretOutputs`. Keys the
 * schema does not have go on as given, so a check that names them can be tested.
 */
export function generatedResource(token: string, name: string, args: Record<string, unknown>, opts: pulumi.CustomResourceOptions = {}): pulumi.CustomResource {
  const spec = pluginSchema().resources[token];
  if (!spec) throw new Error(`${token} is not in schema.json`);
  const props: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) props[key] = value !== undefined && spec.inputProperties[key]?.secret ? pulumi.secret(value) : value;
  for (const key of Object.keys(spec.properties)) if (!(key in props)) props[key] = undefined;
  const secretOutputs = Object.entries(spec.properties)
    .filter(([, p]) => p.secret)
    .map(([key]) => key);
  return new GeneratedResource(token, name, props, { ...opts, additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...secretOutputs] });
}

/** Declares the program's resources in order; answers its stack outputs. */
export function declare(program: DeclaredProgram): Record<string, pulumi.Output<unknown>> {
  const declared = new Map<string, pulumi.CustomResource>();
  for (const r of program.resources) {
    const opts = { dependsOn: (r.dependsOn ?? []).map((name) => declared.get(name)!) };
    if (r.door === "plugin") declared.set(r.name, generatedResource(`keepstack:${r.type}`, r.name, r.inputs, opts));
    else {
      const Class = r.path!.split(".").reduce((o: any, key) => o[key], keepstack) as new (name: string, args: unknown, opts: unknown) => pulumi.CustomResource; // eslint-disable-line @typescript-eslint/no-explicit-any
      declared.set(r.name, new Class(r.name, r.inputs, opts));
    }
  }
  return Object.fromEntries(Object.entries(program.outputs ?? {}).map(([key, [name, property]]) => [key, (declared.get(name) as unknown as Record<string, pulumi.Output<unknown>>)[property]]));
}

/** The program file of a project that runs `program.json` (beside this module, `declared-program.js`). */
export const DECLARED_PROGRAM_MAIN = `const fs = require("node:fs");
const path = require("node:path");
const { declare } = require("./declared-program");

module.exports = () => declare(JSON.parse(fs.readFileSync(path.join(__dirname, "program.json"), "utf8")));
`;

/**
 * The files of such a project: this module compiled to JavaScript (the CLI's Node.js host then
 * runs the program without loading TypeScript), the program file and the data.
 */
export function declaredProgramFiles(program: DeclaredProgram): Record<string, string> {
  const source = fs.readFileSync(path.join(__dirname, "declared-program.ts"), "utf8");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require("typescript") as typeof import("typescript");
  const compiled = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
  return { "declared-program.js": compiled, "index.js": DECLARED_PROGRAM_MAIN, "program.json": JSON.stringify(program, null, 2) };
}
