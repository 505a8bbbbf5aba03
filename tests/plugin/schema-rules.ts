/**
 * The rules a package schema must satisfy, restated from Pulumi's package metaschema
 * (`pkg/codegen/schema/pulumi.json`, JSON Schema 2020-12) for the parts our schema uses, and the
 * rules the schema binder adds on top of it (`pkg/codegen/schema/bind.go`). Written as our own
 * checks: each names the rule it holds, and each returns the places that break it.
 */
import { z } from "zod";

const PRIMITIVES = ["boolean", "integer", "number", "string"] as const;
const NAME = /^[a-zA-Z][-a-zA-Z0-9_]*$/;
const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** `pkg:module:Name`; the module may be empty in the metaschema, never the first character of a part a digit. */
export const TOKEN = /^[a-zA-Z][-a-zA-Z0-9_]*:([^0-9][a-zA-Z0-9._/-]*)?:[^0-9][a-zA-Z0-9._/-]*$/;

type Json = Record<string, unknown>;
/** A key the form forbids (`false` in the metaschema). */
const absent = z.undefined().optional();
const stringMap = z.record(z.string(), z.string());

/** "A type reference": exactly one of the five forms, each forbidding the others' keys. */
const typeForms: Record<string, z.ZodType> = {
  primitive: z.object({ type: z.enum(PRIMITIVES), additionalProperties: absent, items: absent, oneOf: absent, $ref: absent }),
  array: z.object({ type: z.literal("array"), items: z.lazy(() => typeSpec), additionalProperties: absent, oneOf: absent, $ref: absent }),
  map: z.object({ type: z.literal("object"), additionalProperties: z.lazy(() => typeSpec).optional(), items: absent, oneOf: absent, $ref: absent }),
  named: z.object({ $ref: z.string().min(1), type: z.string().optional(), additionalProperties: absent, items: absent, oneOf: absent }),
  union: z.object({
    oneOf: z.array(z.lazy(() => typeSpec)).min(2),
    type: z.enum(PRIMITIVES).optional(),
    discriminator: z.object({ propertyName: z.string().min(1), mapping: stringMap.optional() }).optional(),
    additionalProperties: absent,
    items: absent,
    $ref: absent,
  }),
};

/** A type reference matches exactly one form (`oneOf`), and `plain` is a boolean where given. */
const typeSpec: z.ZodType = z.custom<Json>((value) => {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  if ((value as Json).plain !== undefined && typeof (value as Json).plain !== "boolean") return false;
  return Object.values(typeForms).filter((form) => form.safeParse(value).success).length === 1;
}, "matches no form of a type reference, or more than one");

const scalar = z.union([z.boolean(), z.number(), z.string()]);

/** "Property Definition": a type reference with its description and flags. */
const propertySpec = typeSpec.and(
  z.object({
    description: z.string().optional(),
    const: scalar.optional(),
    default: scalar.optional(),
    defaultInfo: z.object({ environment: z.array(z.string()), language: z.record(z.string(), z.unknown()).optional() }).optional(),
    deprecationMessage: z.string().optional(),
    language: z.record(z.string(), z.unknown()).optional(),
    secret: z.boolean().optional(),
    replaceOnChanges: z.boolean().optional(),
    willReplaceOnChanges: z.boolean().optional(),
  }),
);

const LANGUAGES = ["nodejs", "python", "go", "csharp", "java", "yaml"] as const;

const objectTypeSpec = z.object({
  description: z.string().optional(),
  properties: z.record(z.string(), propertySpec).optional(),
  type: z.string().optional(),
  required: z.array(z.string()).optional(),
  language: z.record(z.string(), z.unknown()).optional(),
  isOverlay: z.boolean().optional(),
  overlaySupportedLanguages: z.array(z.enum(LANGUAGES)).optional(),
});

const enumTypeSpec = z.object({
  type: z.enum(PRIMITIVES),
  enum: z.array(
    z.object({
      name: z.string().optional(),
      description: z.string().optional(),
      value: scalar,
      deprecationMessage: z.string().optional(),
    }),
  ),
});

/** "Type Definition": an object type (its `type` "object") or an enum, exactly one. */
const complexTypeSpec = z.custom<Json>((value) => {
  const forms = [objectTypeSpec.and(z.object({ type: z.literal("object") })), enumTypeSpec];
  const base = z.object({ description: z.string().optional(), language: z.record(z.string(), z.unknown()).optional(), isOverlay: z.boolean().optional() });
  return base.safeParse(value).success && forms.filter((f) => f.safeParse(value).success).length === 1;
}, "is neither exactly an object type nor an enum type");

const resourceSpec = objectTypeSpec.and(
  z.object({
    description: z.string().optional(),
    inputProperties: z.record(z.string(), propertySpec).optional(),
    requiredInputs: z.array(z.string()).optional(),
    stateInputs: objectTypeSpec.optional(),
    aliases: z.array(z.union([z.string(), z.object({ type: z.string().optional() })])).optional(),
    deprecationMessage: z.string().optional(),
    isComponent: z.boolean().optional(),
    methods: stringMap.optional(),
    isOverlay: z.boolean().optional(),
  }),
);

const functionSpec = z.object({
  description: z.string().optional(),
  inputs: objectTypeSpec.optional(),
  multiArgumentInputs: z.array(z.string()).optional(),
  outputs: z.union([typeSpec, objectTypeSpec]).optional(),
  returnType: z.union([typeSpec, objectTypeSpec]).optional(),
  deprecationMessage: z.string().optional(),
  language: z.record(z.string(), z.unknown()).optional(),
  isOverlay: z.boolean().optional(),
  overlaySupportedLanguages: z.array(z.enum(LANGUAGES)).optional(),
  plain: z.boolean().optional(),
});

/** The language sections of the metaschema's `languageSpec` (only their typed fields are checked). */
const languageSpec = z.object({
  nodejs: z
    .object({ packageName: z.string().optional(), packageDescription: z.string().optional(), readme: z.string().optional(), dependencies: stringMap.optional(), devDependencies: stringMap.optional(), typescriptVersion: z.string().optional(), respectSchemaVersion: z.boolean().optional() })
    .optional(),
  python: z.object({ packageName: z.string().optional(), readme: z.string().optional(), requires: stringMap.optional(), respectSchemaVersion: z.boolean().optional() }).optional(),
  go: z.object({ importBasePath: z.string().optional(), generateResourceContainerTypes: z.boolean().optional(), generateExtraInputTypes: z.boolean().optional(), respectSchemaVersion: z.boolean().optional() }).optional(),
  csharp: z.object({ packageReferences: stringMap.optional(), namespaces: stringMap.optional(), rootNamespace: z.string().optional(), respectSchemaVersion: z.boolean().optional() }).optional(),
  java: z.object({ packages: stringMap.optional(), basePackage: z.string().optional(), buildFiles: z.string().optional(), dependencies: stringMap.optional() }).optional(),
});

const tokenMap = <T extends z.ZodType>(value: T) => z.record(z.string().regex(TOKEN, "is not a token (pkg:module:Name)"), value);

/** The package: its own keys only (`additionalProperties: false`), `name` required. */
export const packageSpec = z.strictObject({
  name: z.string().regex(NAME),
  displayName: z.string().optional(),
  version: z.string().regex(SEMVER, "is not semver").optional(),
  description: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  homepage: z.string().optional(),
  license: z.string().optional(),
  attribution: z.string().optional(),
  repository: z.string().optional(),
  logoUrl: z.string().optional(),
  pluginDownloadURL: z.string().optional(),
  configurationDocsUrl: z.string().optional(),
  validateCredentialsOnNew: z.boolean().optional(),
  publisher: z.string().optional(),
  namespace: z.string().regex(/^([a-z][a-z0-9]*)(-[a-z0-9]+)*$/).optional(),
  meta: z
    .strictObject({
      moduleFormat: z.string().refine((s) => {
        try {
          new RegExp(s);
          return true;
        } catch {
          return false;
        }
      }, "is not a regular expression"),
      supportPack: z.boolean().optional(),
    })
    .optional(),
  config: z.strictObject({ variables: z.record(z.string(), propertySpec).optional(), defaults: z.array(z.string()).optional() }).optional(),
  types: tokenMap(complexTypeSpec).optional(),
  provider: resourceSpec.optional(),
  resources: tokenMap(resourceSpec).optional(),
  functions: tokenMap(functionSpec).optional(),
  language: languageSpec.optional(),
  parameterization: z.record(z.string(), z.unknown()).optional(),
  allowedPackageNames: z.array(z.string()).optional(),
});

/** The metaschema's verdict: each problem as `path: message`. */
export function metaschemaProblems(schema: unknown): string[] {
  const result = packageSpec.safeParse(schema);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

type Props = Record<string, Json>;

/** Every property bag of the schema, with where it is: resources' inputs and outputs, types', functions', the provider's, the config's. */
export function propertyBags(schema: Json): { where: string; props: Props; resource: boolean; provider: boolean }[] {
  const bags: { where: string; props: Props; resource: boolean; provider: boolean }[] = [];
  const add = (where: string, props: unknown, resource = false, provider = false) => {
    if (props && typeof props === "object") bags.push({ where, props: props as Props, resource, provider });
  };
  for (const [token, r] of Object.entries((schema.resources ?? {}) as Record<string, Json>)) {
    add(`resources.${token}.properties`, r.properties, true);
    add(`resources.${token}.inputProperties`, r.inputProperties, true);
  }
  for (const [token, t] of Object.entries((schema.types ?? {}) as Record<string, Json>)) add(`types.${token}.properties`, t.properties);
  for (const [token, f] of Object.entries((schema.functions ?? {}) as Record<string, Json>)) {
    add(`functions.${token}.inputs`, (f.inputs as Json | undefined)?.properties);
    add(`functions.${token}.outputs`, (f.outputs as Json | undefined)?.properties);
  }
  const provider = (schema.provider ?? {}) as Json;
  add("provider.properties", provider.properties, true, true);
  add("provider.inputProperties", provider.inputProperties, true, true);
  add("config.variables", (schema.config as Json | undefined)?.variables, false, true);
  return bags;
}

/** Every `$ref` anywhere in the schema, with where it is. */
function refs(value: unknown, where: string, out: { where: string; ref: string }[] = []): { where: string; ref: string }[] {
  if (Array.isArray(value)) value.forEach((v, i) => refs(v, `${where}[${i}]`, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push({ where, ref: v });
      else refs(v, `${where}.${k}`, out);
    }
  }
  return out;
}

const BUILTIN_REFS = new Set(["pulumi.json#/Any", "pulumi.json#/Archive", "pulumi.json#/Asset", "pulumi.json#/Json"]);

/** The binder's rules: what the metaschema cannot say. Each problem names its place. */
export function binderProblems(schema: Json): string[] {
  const problems: string[] = [];
  const name = String(schema.name);
  const maps = { types: (schema.types ?? {}) as Record<string, Json>, resources: (schema.resources ?? {}) as Record<string, Json>, functions: (schema.functions ?? {}) as Record<string, Json> };
  // Every reference resolves: to a type or resource of this package, or to one of Pulumi's own.
  for (const { where, ref } of refs(schema, "")) {
    const local = /^#\/(types|resources)\/(.+)$/.exec(ref);
    if (local) {
      if (!(local[2] in maps[local[1] as "types" | "resources"])) problems.push(`${where}: $ref ${ref} resolves to nothing`);
    } else if (!BUILTIN_REFS.has(ref)) problems.push(`${where}: $ref ${ref} is not a reference the binder resolves`);
  }
  // Tokens have three parts, the first the package's name; none collide, whatever the case (file names of generated SDKs).
  const seen = new Map<string, string>();
  for (const [kind, map] of Object.entries(maps)) {
    for (const token of Object.keys(map)) {
      const parts = token.split(":");
      if (parts.length !== 3 || parts[0] !== name) problems.push(`${kind}.${token}: a token must be ${name}:<module>:<name>`);
      const key = token.toLowerCase();
      const other = seen.get(key);
      if (other) problems.push(`${kind}.${token}: collides with ${other}`);
      seen.set(key, `${kind}.${token}`);
    }
  }
  for (const bag of propertyBags(schema)) {
    for (const property of Object.keys(bag.props)) {
      if (property === "pulumi") problems.push(`${bag.where}.pulumi: the name "pulumi" is reserved`);
      if (bag.resource && !bag.provider && (property === "id" || property === "urn")) problems.push(`${bag.where}.${property}: a resource may not have a property named ${property}`);
      if (bag.provider && property === "version") problems.push(`${bag.where}.version: a provider may not have a property named version`);
    }
  }
  // Required names exist; enum values are of their type and unique.
  const requiredOf = (where: string, props: unknown, required: unknown) => {
    for (const key of (required ?? []) as string[]) if (!props || !(key in (props as Json))) problems.push(`${where}: requires ${key}, which it does not have`);
  };
  for (const [token, r] of Object.entries(maps.resources)) {
    requiredOf(`resources.${token}.required`, r.properties, r.required);
    requiredOf(`resources.${token}.requiredInputs`, r.inputProperties, r.requiredInputs);
  }
  for (const [token, t] of Object.entries(maps.types)) {
    requiredOf(`types.${token}.required`, t.properties, t.required);
    if (Array.isArray(t.enum)) {
      const values = (t.enum as { value: unknown }[]).map((e) => e.value);
      const expected = t.type === "integer" || t.type === "number" ? "number" : t.type;
      if (values.some((v) => typeof v !== expected)) problems.push(`types.${token}: an enum value is not a ${t.type}`);
      if (new Set(values).size !== values.length) problems.push(`types.${token}: an enum value repeats`);
    }
  }
  for (const [token, f] of Object.entries(maps.functions)) {
    requiredOf(`functions.${token}.inputs.required`, (f.inputs as Json | undefined)?.properties, (f.inputs as Json | undefined)?.required);
    requiredOf(`functions.${token}.outputs.required`, (f.outputs as Json | undefined)?.properties, (f.outputs as Json | undefined)?.required);
  }
  return problems;
}
