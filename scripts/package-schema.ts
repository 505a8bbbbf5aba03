/**
 * The package schema of the provider plugin (Pulumi's package metaschema, `pkg/codegen/schema/pulumi.json`),
 * written by the same walk over the package's exports that writes the public declarations
 * (public-types.ts): the types and the JSDoc come from the sources' schemas through the checker, the
 * facts a type does not carry (secrets, what replaces, whole numbers, the settings) from the specs.
 *
 * How TypeScript types read as schema types:
 * - `string`, `number`, `boolean` as such (a whole number where the spec's schema says so);
 * - a union of string literals as an enum type; `true | false` as a boolean;
 * - an object with named properties as an object type of the module (`keepstack:workspaces:WorkspaceVcsRepo`),
 *   an object with an index signature as a map, `unknown` as `pulumi.json#/Any`;
 * - a union of other types as `oneOf`, its object members merged into one object type whose
 *   properties are all optional (a secret given by reference is one of `fromConfig`, `fromEnv`, `fromFile`);
 *   a union holding a list as the list (`string | string[]`) or as any value (Python's SDK sends no
 *   list typed as a union);
 * - a Pulumi output inside a function's result as a secret property.
 */
import * as ts from "typescript";
import { PLUGIN_PACKAGE, pluginSettingName, SETTINGS, ServiceModule } from "../provider/config";

/* eslint-disable @typescript-eslint/no-explicit-any */
export type TypeSpec = Record<string, any>;

export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  publisher: string;
  meta: { moduleFormat: string };
  config: { variables: Record<string, TypeSpec>; defaults?: string[] };
  provider: TypeSpec;
  types: Record<string, TypeSpec>;
  resources: Record<string, TypeSpec>;
  functions: Record<string, TypeSpec>;
  language: Record<string, unknown>;
}

/** Names of object types a union merges into, by their properties: one name however many inputs use them. */
const KNOWN_OBJECTS: Record<string, string> = {
  "fingerprint,fromConfig,fromEnv,fromFile": "SecretReference",
};

export const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

export interface SchemaFacts {
  /** The property's doc, from its declaration or the shape it came from. */
  docOf(prop: ts.Symbol, shape?: ts.Type): string;
  /** The T of a `pulumi.Output<T>`, if the type is one. */
  outputOf(type: ts.Type): ts.Type | undefined;
  /** The public name of a type the package exports (`CaRoot`). */
  publicName(type: ts.Type): string | undefined;
}

export class SchemaWriter {
  readonly types: Record<string, TypeSpec> = {};
  readonly resources: Record<string, TypeSpec> = {};
  readonly functions: Record<string, TypeSpec> = {};

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly facts: SchemaFacts,
  ) {}

  private token(module: string, name: string): string {
    return `${PLUGIN_PACKAGE}:${module}:${name}`;
  }

  /** Whether a property may be left out or hold nothing (`undefined`, also inside a Pulumi output). */
  mayBeAbsent(prop: ts.Symbol): boolean {
    if (prop.flags & ts.SymbolFlags.Optional) return true;
    const type = this.checker.getTypeOfSymbol(prop);
    const inner = this.facts.outputOf(type) ?? type;
    return (inner.isUnion() ? inner.types : [inner]).some((t) => t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
  }

  /** Whether an object type is a map: an index signature and no named properties. */
  isMap(type: ts.Type): boolean {
    return this.checker.getPropertiesOfType(type).length === 0 && this.checker.getIndexInfosOfType(type).length > 0;
  }

  private withoutNullish(type: ts.Type): ts.Type[] {
    return (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)));
  }

  /**
   * Registers a named type. An object type met again (an input's and an output's side of one
   * object) is one type: a property is required when both sides require it; its type must agree.
   */
  private define(token: string, spec: TypeSpec): { $ref: string } {
    const existing = this.types[token];
    if (existing && JSON.stringify(existing) !== JSON.stringify(spec)) {
      const sameShape = (a: TypeSpec, b: TypeSpec) => JSON.stringify({ ...a, description: undefined }) === JSON.stringify({ ...b, description: undefined });
      if (existing.type !== "object" || spec.type !== "object") throw new Error(`schema: two different types would be named ${token}`);
      const properties = { ...existing.properties };
      for (const [key, value] of Object.entries(spec.properties as Record<string, TypeSpec>)) {
        if (properties[key] && !sameShape(properties[key], value)) throw new Error(`schema: ${token}.${key} has two different types`);
        properties[key] ??= value;
      }
      const required = ((existing.required ?? []) as string[]).filter((k) => (spec.required ?? []).includes(k));
      this.types[token] = { type: "object", properties, ...(required.length ? { required } : {}) };
    } else this.types[token] = spec;
    return { $ref: `#/types/${token}` };
  }

  /**
   * The schema type of a TypeScript type; `hint` names an object or enum type made for it
   * (`WorkspaceVcsRepo`). `secret` is set when the type was a Pulumi output (a secret result).
   */
  typeOf(type: ts.Type, module: string, hint: string, integer = false): { spec: TypeSpec; secret: boolean } {
    return this.typeOfAny([type], module, hint, integer);
  }

  /** The schema type of a value of any of `types` (their union). */
  typeOfAny(types: ts.Type[], module: string, hint: string, integer = false): { spec: TypeSpec; secret: boolean } {
    const inners = types.map((t) => this.facts.outputOf(t));
    if (inners.every((i) => i !== undefined)) return { spec: this.typeOfAny(inners as ts.Type[], module, hint, integer).spec, secret: true };
    const members = [...new Set(types.flatMap((t) => this.withoutNullish(t)))];
    if (members.length === 0) return { spec: { $ref: "pulumi.json#/Any" }, secret: false };
    if (members.length > 1) return { spec: this.unionOf(members, module, hint), secret: false };
    const t = members[0];
    const f = t.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { spec: { $ref: "pulumi.json#/Any" }, secret: false };
    if (f & (ts.TypeFlags.String | ts.TypeFlags.StringLiteral | ts.TypeFlags.TemplateLiteral)) return { spec: { type: "string" }, secret: false };
    if (f & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) return { spec: { type: integer ? "integer" : "number" }, secret: false };
    if (f & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { spec: { type: "boolean" }, secret: false };
    if (this.checker.isArrayType(t) || this.checker.isTupleType(t)) {
      const element = this.checker.getTypeArguments(t as ts.TypeReference)[0];
      const item = this.typeOf(element, module, hint);
      return { spec: { type: "array", items: item.spec }, secret: item.secret };
    }
    if (f & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return { spec: this.objectOf([t], module, hint), secret: false };
    throw new Error(`schema: no schema type for ${this.checker.typeToString(t)} (${hint})`);
  }

  private unionOf(members: ts.Type[], module: string, hint: string): TypeSpec {
    if (members.every((m) => m.flags & ts.TypeFlags.BooleanLiteral)) return { type: "boolean" };
    if (members.every((m) => m.flags & ts.TypeFlags.StringLiteral)) {
      const values = members.map((m) => (m as ts.StringLiteralType).value);
      return this.define(this.token(module, hint), { type: "string", enum: values.map((value) => ({ name: enumName(value), value })) });
    }
    const objects = members.filter((m) => m.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && !this.checker.isArrayType(m) && !this.checker.isTupleType(m));
    const others = members.filter((m) => !objects.includes(m));
    // `true | false` of a wider boolean arrive as two literals: one boolean.
    const specs: TypeSpec[] = [];
    const add = (spec: TypeSpec) => {
      if (!specs.some((s) => JSON.stringify(s) === JSON.stringify(spec))) specs.push(spec);
    };
    for (const m of others) add(this.typeOf(m, module, hint).spec);
    if (objects.length) add(this.objectOf(objects, module, hint));
    if (specs.length === 1) return specs[0];
    // Python's SDK cannot send a list where the type is a union holding a list ("Expected 'list' got
    // 'typing.Union[...]'"): a value or a list of such values is declared as the list; a list among
    // other kinds of value as any value, which every SDK sends as given (the description says which).
    const list = specs.find((spec) => spec.type === "array");
    if (list) {
      const rest = specs.filter((spec) => spec !== list);
      return rest.every((spec) => JSON.stringify(spec) === JSON.stringify(list.items)) ? list : { $ref: "pulumi.json#/Any" };
    }
    return { oneOf: specs };
  }

  /** One object type of several object types (a union's members), named in the module; a map when it has no named properties. */
  private objectOf(members: ts.Type[], module: string, hint: string): TypeSpec {
    const { name, spec } = this.objectSpec(members, module, hint);
    return name ? this.define(this.token(module, name), spec) : spec;
  }

  /**
   * The object type of several object types (a union's members): a property is required when every
   * member requires it. `name` is undefined for a map (an object with an index signature only).
   */
  objectSpec(members: ts.Type[], module: string, hint: string): { name?: string; spec: TypeSpec } {
    const first = members[0];
    const indexes = this.checker.getIndexInfosOfType(first);
    const props = new Map<string, { symbols: ts.Symbol[] }>();
    for (const m of members) {
      for (const p of this.checker.getPropertiesOfType(m)) {
        const entry = props.get(p.name) ?? { symbols: [] };
        entry.symbols.push(p);
        props.set(p.name, entry);
      }
    }
    if (props.size === 0) {
      const value = indexes[0]?.type;
      return { spec: { type: "object", additionalProperties: value ? this.typeOf(value, module, `${hint}Value`).spec : { $ref: "pulumi.json#/Any" } } };
    }
    const named = members.length === 1 ? this.facts.publicName(first) : undefined;
    const known = KNOWN_OBJECTS[[...props.keys()].sort().join(",")];
    const name = known ?? named ?? hint;
    const properties: Record<string, TypeSpec> = {};
    const required: string[] = [];
    for (const [key, { symbols }] of props) {
      const optional = symbols.length < members.length || symbols.some((s) => this.mayBeAbsent(s));
      const { spec, secret } = this.typeOfAny(
        symbols.map((s) => this.checker.getTypeOfSymbol(s)),
        module,
        `${name}${capitalize(key)}`,
      );
      const description = symbols.map((s) => this.facts.docOf(s)).find(Boolean);
      properties[key] = { ...spec, ...(description ? { description } : {}), ...(secret ? { secret: true } : {}) };
      if (!optional) required.push(key);
    }
    return { name, spec: { type: "object", properties, ...(required.length ? { required } : {}) } };
  }
}

/** The provider's configuration: one flat key per setting of each service, typed, with its environment variable and default. */
export function providerConfig(): { variables: Record<string, TypeSpec>; inputProperties: Record<string, TypeSpec> } {
  const variables: Record<string, TypeSpec> = {};
  for (const service of Object.keys(SETTINGS) as ServiceModule[]) {
    for (const s of SETTINGS[service]) {
      const type = s.type ?? "string";
      const spec: TypeSpec = {
        type,
        description: `${capitalize(s.description)} (\`${service}:${s.key}\` of the dynamic resources).`,
        ...(s.default !== undefined ? { default: type === "boolean" ? s.default === "true" : type === "string" ? s.default : Number(s.default) } : {}),
        ...(s.env ? { defaultInfo: { environment: [s.env] } } : {}),
        ...(s.secret ? { secret: true } : {}),
      };
      variables[pluginSettingName(service, s.key)] = spec;
    }
  }
  return { variables, inputProperties: variables };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * The name of an enum value in the generated SDKs, PascalCase of its words (`soft-mandatory` is
 * `SoftMandatory`, `assumed_role` `AssumedRole`): without one each generator makes its own from the
 * value, and a value with a dash reads otherwise than one without (`..._Soft_Mandatory` beside
 * `...Advisory` in Go).
 */
export function enumName(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join("");
}
