/**
 * Each resource's example in the schema, in TypeScript, Python, Go and YAML: the spec's first example
 * (`example` beside its inputs, the values the registry-wide tests run) written out by type, the
 * schema telling how each language spells a value (an enum's constant, an object's argument class, a
 * Go input type). The build appends it to the resource's description in Pulumi's examples
 * shortcodes; each SDK's generator keeps the block in its own language, so a user meets it in the
 * SDK's doc comments. tests/engine/plugin-*.test.ts compile or run each block from the SDK that
 * `pulumi package add` generated (YAML's from the schema, previewed through the plugin).
 */
import { PLUGIN_PACKAGE } from "../provider/config";
import { capitalize, type PackageSchema, type TypeSpec } from "./package-schema";

/** The width of the examples' lines. */
export const LINE = 100;

const NAME = /^[A-Za-z_$][\w$]*$/;

/** A value as TypeScript source, as a formatter writes it: on one line where it fits, else one property or item a line. */
export function literal(value: unknown, indent: string, room: number): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (!entries.length) return `${open}${close}`;
  const key = (k: string | undefined) => (k === undefined ? "" : `${NAME.test(k) ? k : JSON.stringify(k)}: `);
  const inner = entries.map(([k, v]) => `${key(k)}${literal(v, indent, Infinity)}`).join(", ");
  const flat = Array.isArray(value) ? `[${inner}]` : `{ ${inner} }`;
  if (flat.length <= room && !flat.includes("\n")) return flat;
  const deeper = `${indent}  `;
  const lines = entries.map(([k, v]) => `${deeper}${key(k)}${literal(v, deeper, LINE - deeper.length - key(k).length - 1)},`);
  return `${open}\n${lines.join("\n")}\n${indent}${close}`;
}

/** What a value's schema type is, with references followed. */
type Shape =
  | { kind: "string" | "boolean" | "integer" | "number" | "any" }
  | { kind: "enum"; token: string; names: Map<string, string> }
  | { kind: "array"; items: Shape }
  | { kind: "map"; values: Shape }
  | { kind: "object"; token: string; properties: Record<string, TypeSpec> }
  | { kind: "union"; members: Shape[] };

/** A resource's example, with what the languages need of the schema. */
interface Example {
  /** `keepstack:keep:AclPolicy` */
  token: string;
  inputs: Record<string, unknown>;
  properties: Record<string, TypeSpec>;
  schema: PackageSchema;
}

function shapeOf(spec: TypeSpec, schema: PackageSchema): Shape {
  if (spec.oneOf) return { kind: "union", members: (spec.oneOf as TypeSpec[]).map((m) => shapeOf(m, schema)) };
  if (spec.$ref === "pulumi.json#/Any") return { kind: "any" };
  if (typeof spec.$ref === "string") {
    const token = spec.$ref.replace(/^#\/types\//, "");
    const type = schema.types[token];
    if (!type) throw new Error(`the schema has no type ${token}`);
    if (type.enum) return { kind: "enum", token, names: new Map((type.enum as { name: string; value: string }[]).map((e) => [e.value, e.name])) };
    return { kind: "object", token, properties: type.properties ?? {} };
  }
  if (spec.type === "array") return { kind: "array", items: shapeOf(spec.items, schema) };
  if (spec.type === "object") return { kind: "map", values: spec.additionalProperties ? shapeOf(spec.additionalProperties, schema) : { kind: "any" } };
  if (["string", "boolean", "integer", "number"].includes(spec.type)) return { kind: spec.type };
  throw new Error(`no example can be written of the schema type ${JSON.stringify(spec)}`);
}

/** The member of a union that a value is. */
function memberFor(shape: Shape, value: unknown): Shape {
  if (shape.kind !== "union") return shape;
  const fits = (m: Shape) =>
    m.kind === "any" ||
    (typeof value === "string" && (m.kind === "string" || m.kind === "enum")) ||
    (typeof value === "number" && (m.kind === "number" || m.kind === "integer")) ||
    (typeof value === "boolean" && m.kind === "boolean") ||
    (Array.isArray(value) && m.kind === "array") ||
    (!!value && typeof value === "object" && !Array.isArray(value) && (m.kind === "object" || m.kind === "map"));
  const member = shape.members.find(fits);
  if (!member) throw new Error(`the example's value ${JSON.stringify(value)} is none of its union's types`);
  return memberFor(member, value);
}

const enumName = (shape: Shape & { kind: "enum" }, value: unknown): string => {
  const name = shape.names.get(String(value));
  if (!name) throw new Error(`${JSON.stringify(value)} is not a value of the enum ${shape.token}`);
  return name;
};

/** `keepstack:keep:AclPolicy` → `keep`, `AclPolicy` */
const moduleAndName = (token: string) => {
  const [, module, name] = token.split(":");
  return { module, name };
};
const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z])([A-Z][a-z])/g, "$1_$2");
const snake = (name: string) => words(name).toLowerCase();
/** A name in lower case, words joined by hyphens (`SyncCloudASmDestination` → `sync-cloud-a-sm-destination`). */
export const kebab = (name: string) => snake(name).replace(/_/g, "-");
const camel = (name: string) => name[0].toLowerCase() + name.slice(1);
/** The resource's name in the program: its type in lower case, words joined by hyphens (`sync-cloud-a-sm-destination`). */
const logicalName = (token: string) => kebab(moduleAndName(token).name);

function typescript(example: Example): string {
  const { module, name } = moduleAndName(example.token);
  const head = `const ${camel(name)} = new keepstack.${module}.${name}(${JSON.stringify(logicalName(example.token))}`;
  const args = Object.keys(example.inputs).length ? `, ${literal(example.inputs, "", LINE - head.length - 4)}` : "";
  return [`import * as keepstack from "@keepstack/pulumi-keepstack";`, "", `${head}${args});`].join("\n");
}

function python(example: Example): string {
  const { module, name } = moduleAndName(example.token);
  const value = (shape: Shape, v: unknown, indent: string): string => {
    const deeper = `${indent}    `;
    const block = (open: string, items: string[], close: string) => {
      const flat = `${open}${items.join(", ")}${close}`;
      return indent.length + 30 + flat.length <= LINE && !flat.includes("\n") ? flat : `${open}\n${items.map((i) => `${deeper}${i},`).join("\n")}\n${indent}${close}`;
    };
    const shape1 = memberFor(shape, v);
    switch (shape1.kind) {
      case "enum":
        return `keepstack.${moduleAndName(shape1.token).module}.${moduleAndName(shape1.token).name}.${words(enumName(shape1, v)).toUpperCase()}`;
      case "object": {
        const { module: m, name: n } = moduleAndName(shape1.token);
        const fields = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${snake(k)}=${value(shapeOf(shape1.properties[k], example.schema), x, deeper)}`);
        return block(`keepstack.${m}.${n}Args(`, fields, ")");
      }
      case "array":
        return block("[", (v as unknown[]).map((x) => value(shape1.items, x, deeper)), "]");
      case "map":
        return block("{", Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}: ${value(shape1.values, x, deeper)}`), "}");
      case "any":
        return pythonLiteral(v, indent);
      case "boolean":
        return v ? "True" : "False";
      default:
        return JSON.stringify(v);
    }
  };
  const args = Object.entries(example.inputs).map(([k, v]) => `    ${snake(k)}=${value(shapeOf(example.properties[k], example.schema), v, "    ")},`);
  const call = `keepstack.${module}.${name}(${JSON.stringify(logicalName(example.token))}`;
  return ["import pulumi_keepstack as keepstack", "", `${snake(name)} = ${args.length ? `${call},\n${args.join("\n")}\n)` : `${call})`}`].join("\n");
}

/** A value of no declared type as Python source: JSON's literals with Python's words. */
function pythonLiteral(v: unknown, indent: string): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v !== "object") return JSON.stringify(v);
  const deeper = `${indent}    `;
  if (Array.isArray(v)) return `[\n${v.map((x) => `${deeper}${pythonLiteral(x, deeper)},`).join("\n")}\n${indent}]`;
  return `{\n${Object.entries(v).map(([k, x]) => `${deeper}${JSON.stringify(k)}: ${pythonLiteral(x, deeper)},`).join("\n")}\n${indent}}`;
}

/** The Go SDK's import path of a module. */
const GO_MODULE = "github.com/keepstack/pulumi-keepstack/sdk/go/keepstack";

function go(example: Example): string {
  const { module, name } = moduleAndName(example.token);
  const imports = new Set([`${GO_MODULE}/${module}`, "github.com/pulumi/pulumi/sdk/v3/go/pulumi"]);
  const typeIn = (token: string) => {
    const m = moduleAndName(token);
    imports.add(`${GO_MODULE}/${m.module}`);
    return `${m.module}.${m.name}`;
  };
  /** Key-value lines as gofmt aligns them: the values of a run of one-line entries start in one column. */
  const keyed = (entries: [string, string][], indent: string): string[] => {
    const lines: string[] = [];
    let run: [string, string][] = [];
    const flush = () => {
      const width = Math.max(...run.map(([k]) => k.length));
      for (const [k, v] of run) lines.push(`${indent}${k}:${" ".repeat(width - k.length + 1)}${v},`);
      run = [];
    };
    for (const [k, v] of entries) {
      if (v.includes("\n")) {
        if (run.length) flush();
        lines.push(`${indent}${k}: ${v},`);
      } else run.push([k, v]);
    }
    if (run.length) flush();
    return lines;
  };
  const composite = (type: string, lines: string[], indent: string) => `${type}{\n${lines.join("\n")}\n${indent}}`;
  const scalar: Record<string, string> = { string: "String", boolean: "Bool", integer: "Int", number: "Float64" };
  /** A value as the Go SDK's input of its shape. */
  const input = (shape: Shape, v: unknown, indent: string): string => {
    const deeper = `${indent}\t`;
    const shape1 = memberFor(shape, v);
    switch (shape1.kind) {
      case "enum":
        return `${typeIn(shape1.token)}${enumName(shape1, v)}`;
      case "object":
        return composite(`${typeIn(shape1.token)}Args`, keyed(Object.entries(v as Record<string, unknown>).map(([k, x]) => [capitalize(k), input(shapeOf(shape1.properties[k], example.schema), x, deeper)]), deeper), indent);
      case "array": {
        const items = shape1.items;
        const type = items.kind === "enum" ? `${typeIn(items.token)}Array` : items.kind in scalar ? `pulumi.${scalar[items.kind]}Array` : undefined;
        if (!type) throw new Error(`no Go example of an array of ${items.kind}`);
        return composite(type, (v as unknown[]).map((x) => `${deeper}${input(items, x, deeper)},`), indent);
      }
      case "map": {
        const values = shape1.values;
        if (!(values.kind in scalar)) throw new Error(`no Go example of a map of ${values.kind}`);
        return composite(`pulumi.${scalar[values.kind]}Map`, keyed(Object.entries(v as Record<string, unknown>).map(([k, x]) => [JSON.stringify(k), input(values, x, deeper)]), deeper), indent);
      }
      case "any":
        return `pulumi.Any(${goLiteral(v, indent)})`;
      case "union":
        throw new Error("unreachable: a union's member is never a union");
      default:
        return `pulumi.${scalar[shape1.kind]}(${JSON.stringify(v)})`;
    }
  };
  const fields = keyed(Object.entries(example.inputs).map(([k, v]) => [capitalize(k), input(shapeOf(example.properties[k], example.schema), v, "\t\t\t")]), "\t\t\t");
  const args = fields.length ? composite(`&${module}.${name}Args`, fields, "\t\t") : "nil";
  const body = [
    "func main() {",
    "\tpulumi.Run(func(ctx *pulumi.Context) error {",
    `\t\t_, err := ${module}.New${name}(ctx, ${JSON.stringify(logicalName(example.token))}, ${args})`,
    "\t\treturn err",
    "\t})",
    "}",
  ];
  return ["package main", "", "import (", ...[...imports].sort().map((i) => `\t"${i}"`), ")", "", ...body].join("\n");
}

/** A value of no declared type as Go source (`map[string]interface{}`, `[]interface{}`). */
function goLiteral(v: unknown, indent: string): string {
  if (v === null) return "nil";
  if (typeof v !== "object") return JSON.stringify(v);
  const deeper = `${indent}\t`;
  if (Array.isArray(v)) return `[]interface{}{\n${v.map((x) => `${deeper}${goLiteral(x, deeper)},`).join("\n")}\n${indent}}`;
  const entries = Object.entries(v);
  const width = Math.max(...entries.map(([k]) => JSON.stringify(k).length));
  return `map[string]interface{}{\n${entries.map(([k, x]) => `${deeper}${JSON.stringify(k)}:${" ".repeat(width - JSON.stringify(k).length + 1)}${goLiteral(x, deeper)},`).join("\n")}\n${indent}}`;
}

function yaml(example: Example): string {
  // js-yaml comes with @pulumi/pulumi.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { dump } = require("js-yaml") as { dump(value: unknown, options: { lineWidth: number }): string };
  const properties = Object.keys(example.inputs).length ? { properties: example.inputs } : {};
  return dump({ resources: { [logicalName(example.token)]: { type: example.token, ...properties } } }, { lineWidth: LINE }).trimEnd();
}

/**
 * Example inputs as a program of the plugin gives them. The plugin sees only its own configuration
 * (docs/plugin.md, "Secrets by reference"), so a stack config reference names a `keepstack:` key:
 * `{ fromConfig: "app:secret" }` becomes `{ fromConfig: "keepstack:appSecret" }`.
 */
export function pluginInputs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(pluginInputs) as T;
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const reference = k === "fromConfig" && typeof v === "string" && /^[^:]+:[^:]+$/.exec(v);
      if (!reference || v.startsWith(`${PLUGIN_PACKAGE}:`)) return [k, pluginInputs(v)];
      const [namespace, key] = v.split(":");
      return [k, `${PLUGIN_PACKAGE}:${camel(namespace)}${capitalize(key)}`];
    }),
  ) as T;
}

/** The languages of the examples, as the SDKs' generators name them in a fence. */
export const EXAMPLE_LANGUAGES = { typescript, python, go, yaml } as const;

/** A resource's description followed by its example in every language, in Pulumi's examples shortcodes. */
export function withExample(description: string, token: string, inputs: Record<string, unknown>, schema: PackageSchema): string {
  const properties = schema.resources[token]?.inputProperties as Record<string, TypeSpec> | undefined;
  if (!properties) throw new Error(`the schema has no resource ${token}`);
  for (const key of Object.keys(inputs)) if (!properties[key]) throw new Error(`${token}'s example sets ${key}, which is not one of its inputs`);
  const example: Example = { token, inputs: pluginInputs(inputs), properties, schema };
  const blocks = Object.entries(EXAMPLE_LANGUAGES).map(([language, write]) => ["```" + language, write(example), "```"].join("\n"));
  return [description, "", "{{% examples %}}", "## Example Usage", "", "{{% example %}}", "### Basic usage", "", blocks.join("\n\n"), "{{% /example %}}", "{{% /examples %}}"].join("\n");
}
