/**
 * Writes the TypeScript that declares existing objects with adoption on, for the import command.
 *
 * Generic over the specs: inputs a spec declares as `references` become the named object's output
 * (so the program orders and ties them together); required inputs the service never returns become
 * stack config the user sets (secrets as `{ fromConfig }` references, ARCHITECTURE.md, "Secrets by reference", others through
 * `config.require`), each listed as a `pulumi config set` command; names are readable, unique and
 * the same from one run to the next for the same objects.
 *
 * The printed program never holds a secret value, nor an obfuscated one (`*****`): a secret input the
 * service returns (a key-value secret's data) becomes a reference or a secret config read too, its
 * value kept only in the settings, for `configCommands(..., { values: true })` (`--secrets-file`).
 */
import { z } from "zod";
import { InputReference, ResourceSpec, shortTypeOf, tokenOf } from "../provider/spec";
import { registeredResources } from "../resources/all-specs";
import { Owner, ownerLabel } from "../provider/owner";

export interface ImportedObject {
  spec: ResourceSpec;
  id: string;
  /** The object's inputs as the service reports them. */
  inputs: Record<string, unknown>;
  /** The stack's resource the service records as the object's owner, where it records one. */
  owner?: Owner;
}

/** A stack config value the printed program reads and the user must set. */
export interface ConfigSetting {
  /** Key within the project's config namespace. */
  key: string;
  secret: boolean;
  /** Which object and input it is, for the command's comment. */
  about: string;
  /** The value the service returned (a secret's data); never printed but into a secrets file. */
  value?: string | Record<string, string>;
}

export interface ImportedProgram {
  /** The program (index.ts). */
  text: string;
  /** Stack config the program reads; see `configCommands`. */
  settings: ConfigSetting[];
}

/** A resource name from an ID: `team-a:readers` → `team-a-readers`. */
export function resourceNameOf(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "imported";
}

/**
 * The resource name of an imported object: from its ID (`team-a:transform/role/payments` →
 * `team-a-transform-role-payments`), or from its name when the ID is a generated one (`ws-…`).
 */
export function readableNameOf(object: Pick<ImportedObject, "id" | "inputs">): string {
  const name = object.inputs.name;
  if (typeof name !== "string" || object.id.includes(name)) return resourceNameOf(object.id);
  const scope = [object.inputs.namespace, object.inputs.organization].filter((s): s is string => typeof s === "string");
  return resourceNameOf([...scope, name].join("-"));
}

/** `team-a-readers` → `teamAReaders`. */
function camelOf(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words.map((w, i) => (i === 0 ? w[0].toLowerCase() + w.slice(1) : w[0].toUpperCase() + w.slice(1))).join("");
  return /^[A-Za-z_$]/.test(camel) ? camel : `_${camel}`;
}

const upperFirst = (s: string) => s[0].toUpperCase() + s.slice(1);

/** What a service answers in place of a sensitive value: asterisks only. */
const isObfuscated = (value: unknown) => typeof value === "string" && /^\*{3,}$/.test(value);

/** A returned secret as a config value: a string, or a map of strings (a secret's data). */
function secretValueOf(value: unknown): string | Record<string, string> | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string")) return value as Record<string, string>;
  return undefined;
}

/** Code, as opposed to a value, inside the argument object. */
class Code {
  constructor(readonly text: string) {}
}

function literal(value: unknown, indent: string): string {
  if (value instanceof Code) return value.text;
  if (typeof value === "string") {
    // Multi-line text (policies) reads best as a template literal.
    if (value.includes("\n")) return "`" + value.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${") + "`";
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${value.map((v) => literal(v, indent)).join(", ")}]`;
  }
  if (value && typeof value === "object") {
    const inner = `${indent}  `;
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
    return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${literal(v, inner)},`).join("\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** `keep.sync.Association`: where the package exports the class of a spec. */
function classPathOf(spec: ResourceSpec): string {
  return registeredResources.find((r) => r.spec === spec)?.path ?? `${spec.module}.${spec.type}`;
}

const shortType = (spec: ResourceSpec) => shortTypeOf(tokenOf(spec));

/** Whether an input of the spec is required, and whether it takes a secret reference. */
function inputFacts(spec: ResourceSpec, key: string): { required: boolean; acceptsReference: boolean } {
  const schema = (spec.inputs.shape as Record<string, z.ZodType | undefined>)[key];
  if (!schema) return { required: false, acceptsReference: false };
  return {
    required: !schema.safeParse(undefined).success,
    // A reference schema is strict: a map of strings would take the first object, never the second.
    acceptsReference: schema.safeParse({ fromConfig: "project:key" }).success && !schema.safeParse({ fromConfig: "project:key", unknownKey: "x" }).success,
  };
}

/** The schema inside optional, default and nullable wrappers. */
function innerSchema(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { unwrap?: () => z.ZodType; def?: { innerType?: z.ZodType } };
  while (s.def?.innerType) s = s.def.innerType as typeof s;
  return s;
}

/** How the program reads a required plain input from stack config, typed as the input is. */
function configRead(spec: ResourceSpec, key: string, configKey: string): string {
  const schema = innerSchema((spec.inputs.shape as Record<string, z.ZodType>)[key]);
  const options = (schema as { options?: unknown[] }).options;
  if (Array.isArray(options) && options.every((o) => typeof o === "string")) {
    const union = options.map((o) => JSON.stringify(o)).join(" | ");
    return `config.require<${union}>(${JSON.stringify(configKey)}, { allowedValues: [${options.map((o) => JSON.stringify(o)).join(", ")}] })`;
  }
  if (schema.safeParse(1).success && !schema.safeParse("1").success) return `config.requireNumber(${JSON.stringify(configKey)})`;
  return `config.require(${JSON.stringify(configKey)})`;
}

/**
 * The inputs as the service reports them, less values it fills in itself (spec.effective) where
 * the spec's schema refuses the whole set: a service may report settings a program must not
 * declare together (a workspace's deprecated `operations` beside its `executionMode`). Leaving an
 * effective value out keeps the value in use, so adoption changes nothing.
 */
export function consistentInputs(spec: ResourceSpec, inputs: Record<string, unknown>): Record<string, unknown> {
  const issues = (values: Record<string, unknown>) => {
    const parsed = spec.inputs.safeParse(values);
    return parsed.success ? 0 : parsed.error.issues.length;
  };
  let current = { ...inputs };
  let count = issues(current);
  for (let improved = true; count > 0 && improved; ) {
    improved = false;
    for (const key of Object.keys(spec.effective ?? {})) {
      if (!(key in current)) continue;
      const { [key]: _dropped, ...rest } = current;
      const left = issues(rest);
      if (left < count) {
        current = rest;
        count = left;
        improved = true;
        break;
      }
    }
  }
  return current;
}

interface Planned {
  object: ImportedObject;
  name: string;
  variable: string;
  /** Objects this one refers to (indexes into the plan). */
  dependsOn: Set<number>;
}

/**
 * The program declaring `objects` (in the given order, apart from referenced objects, which come
 * before the objects that refer to them).
 */
export function renderProgram(objects: ImportedObject[]): ImportedProgram {
  const names = new Map<string, Set<string>>();
  const variables = new Set<string>(["pulumi", "keep", "workspaces", "mesh", "config", "fromConfig"]);
  const plan: Planned[] = objects.map((object) => {
    // Pulumi names are unique per type; variables per program.
    const taken = names.get(shortType(object.spec)) ?? new Set<string>();
    names.set(shortType(object.spec), taken);
    const base = readableNameOf(object);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    let variable = camelOf(name);
    if (variables.has(variable)) variable = camelOf(`${object.spec.type}-${name}`);
    const start = variable;
    for (let n = 2; variables.has(variable); n++) variable = `${start}${n}`;
    variables.add(variable);
    return { object, name, variable, dependsOn: new Set<number>() };
  });

  const byTypeAndId = new Map<string, number>();
  plan.forEach((p, i) => byTypeAndId.set(`${shortType(p.object.spec)} ${p.object.id}`, i));
  const referenced = new Set<number>();
  const settings: ConfigSetting[] = [];
  let usesPulumi = false;

  /** An input's value as printed: a referenced object's output where the spec declares one. */
  const valueOf = (self: number, key: string, value: unknown): unknown => {
    const ref = (plan[self].object.spec.references as Record<string, InputReference | undefined> | undefined)?.[key];
    if (!ref) return value;
    const one = (v: unknown): unknown => {
      if (typeof v !== "string") return v;
      const id = ref.id(v, plan[self].object.inputs);
      for (const type of ref.types) {
        const target = byTypeAndId.get(`${type} ${id}`);
        if (target === undefined || target === self) continue;
        plan[self].dependsOn.add(target);
        referenced.add(target);
        return new Code(`${plan[target].variable}.${ref.output ?? "name"}`);
      }
      return v;
    };
    return Array.isArray(value) ? value.map(one) : one(value);
  };

  const bodies = plan.map((p, i) => {
    const { spec } = p.object;
    // An obfuscated value is no value: it is declared as one the service does not return.
    const inputs = Object.fromEntries(Object.entries(p.object.inputs).filter(([, v]) => !isObfuscated(v)));
    const obfuscated = Object.keys(p.object.inputs).filter((k) => isObfuscated(p.object.inputs[k]));
    const comments: string[] = [];
    const args: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(consistentInputs(spec, inputs))) args[key] = valueOf(i, key, value);
    for (const key of spec.secretInputs ?? []) {
      const value = secretValueOf(args[key]);
      if (value === undefined) continue;
      const configKey = `${p.variable}${upperFirst(key)}`;
      const about = `${classPathOf(spec)} "${p.name}": ${key}`;
      if (typeof value === "string" && inputFacts(spec, key).acceptsReference) args[key] = new Code(`fromConfig(${JSON.stringify(configKey)})`);
      else if (typeof value === "string") args[key] = new Code(`config.requireSecret(${JSON.stringify(configKey)})`);
      else args[key] = new Code(`config.requireSecretObject<Record<string, string>>(${JSON.stringify(configKey)})`);
      settings.push({ key: configKey, secret: true, about, value });
    }
    for (const key of [...new Set([...(spec.writeOnly ?? []), ...obfuscated])]) {
      if (inputs[key] !== undefined) continue;
      const { required, acceptsReference } = inputFacts(spec, key);
      const configKey = `${p.variable}${upperFirst(key)}`;
      const about = `${classPathOf(spec)} "${p.name}": ${key}`;
      if (required && acceptsReference) {
        args[key] = new Code(`fromConfig(${JSON.stringify(configKey)})`);
        settings.push({ key: configKey, secret: true, about });
      } else if (required) {
        args[key] = new Code(configRead(spec, key, configKey));
        settings.push({ key: configKey, secret: (spec.secretInputs ?? []).includes(key), about });
      } else {
        const how = acceptsReference ? ` (as fromConfig(${JSON.stringify(configKey)}), with \`pulumi config set --secret ${configKey}\`)` : "";
        comments.push(`// ${key}: the service does not return it; declare it if the object has one${how}.`);
      }
    }
    if (settings.length) usesPulumi = true;
    // A recorded owner is named, and the program says it takes the object over (one owner: that stack forgets it).
    const owner = p.object.owner;
    if (owner) comments.push(`// Recorded as managed by ${ownerLabel(owner)}: remove it from that stack's state (\`pulumi state delete\`) before this program takes it over.`);
    return { comments, args: { ...args, adopt: true, ...(owner ? { takeOver: true } : {}) } };
  });

  // Referenced objects first; otherwise the given order (a depth-first walk keeps it stable).
  const order: number[] = [];
  const placed = new Set<number>();
  const place = (i: number, path: Set<number>) => {
    if (placed.has(i) || path.has(i)) return;
    path.add(i);
    for (const d of [...plan[i].dependsOn].sort((a, b) => a - b)) place(d, path);
    placed.add(i);
    order.push(i);
  };
  plan.forEach((_, i) => place(i, new Set()));

  const modules = [...new Set(objects.map((o) => classPathOf(o.spec).split(".")[0]))].sort();
  const lines: string[] = [];
  if (usesPulumi) lines.push(`import * as pulumi from "@pulumi/pulumi";`);
  lines.push(`import { ${modules.join(", ")} } from "pulumi-keepstack";`, "");
  if (bodiesUseReference(bodies)) {
    lines.push(
      "// Secrets live in stack config, never in this file: set them with the `pulumi config set --secret` commands printed beside this program.",
      "const fromConfig = (key: string) => ({ fromConfig: `${pulumi.getProject()}:${key}` });",
    );
  }
  if (bodiesUseConfig(bodies)) lines.push("const config = new pulumi.Config();");
  if (usesPulumi) lines.push("");
  for (const i of order) {
    const p = plan[i];
    lines.push(...bodies[i].comments);
    const head = referenced.has(i) ? `const ${p.variable} = ` : "";
    lines.push(`${head}new ${classPathOf(p.object.spec)}(${JSON.stringify(p.name)}, ${literal(bodies[i].args, "")});`, "");
  }
  return { text: lines.join("\n"), settings };
}

/** Whether a printed argument reads the project's config, or refers to it with `fromConfig`. */
const codeIn = (bodies: { args: Record<string, unknown> }[], pattern: RegExp) =>
  bodies.some((b) => Object.values(b.args).some((v) => v instanceof Code && pattern.test(v.text)));
const bodiesUseConfig = (bodies: { args: Record<string, unknown> }[]) => codeIn(bodies, /^config\./);
const bodiesUseReference = (bodies: { args: Record<string, unknown> }[]) => codeIn(bodies, /^fromConfig\(/);

/** The program's text alone. */
export function programText(objects: ImportedObject[]): string {
  return renderProgram(objects).text;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A shell script of the `pulumi config set` commands the program's settings need. Without
 * `values`, every value is left to fill in (what the service returned is never shown); with it,
 * the values the service returned are written in (for a file only its owner can read).
 */
export function configCommands(settings: ConfigSetting[], options: { values?: boolean } = {}): string {
  if (settings.length === 0) return "";
  const lines = [
    options.values
      ? "# Stack config the imported program reads, with the secret values the service returned: run it, then delete this file."
      : "# Stack config the imported program reads: fill in each value, then run.",
  ];
  for (const s of settings) {
    const flag = s.secret ? " --secret" : "";
    lines.push(`# ${s.about}`);
    if (s.value !== undefined && typeof s.value === "object") {
      for (const [k, v] of Object.entries(s.value)) {
        lines.push(`pulumi config set${flag} --path ${shellQuote(`${s.key}[${JSON.stringify(k)}]`)} ${options.values ? shellQuote(v) : "'<value>'"}`);
      }
    } else {
      lines.push(`pulumi config set${flag} ${s.key} ${options.values && s.value !== undefined ? shellQuote(s.value) : "'<value>'"}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
