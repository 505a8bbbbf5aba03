/** Writes the TypeScript that declares existing objects with adoption on, for the import command. */
import { ResourceSpec } from "../provider/spec";
import { registeredResources } from "../resources/registry";

export interface ImportedObject {
  spec: ResourceSpec;
  id: string;
  /** The object's inputs as the service reports them. */
  inputs: Record<string, unknown>;
}

/** A resource name from an ID: `team-a:readers` → `team-a-readers`. */
export function resourceNameOf(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "imported";
}

function literal(value: unknown, indent: string): string {
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

export function programText(objects: ImportedObject[]): string {
  const modules = [...new Set(objects.map((o) => classPathOf(o.spec).split(".")[0]))].sort();
  const lines = [`import { ${modules.join(", ")} } from "pulumi-keepstack";`, ""];
  const used = new Set<string>();
  for (const { spec, id, inputs } of objects) {
    let name = resourceNameOf(id);
    for (let n = 2; used.has(name); n++) name = `${resourceNameOf(id)}-${n}`;
    used.add(name);
    const missing = (spec.writeOnly ?? []).filter((k) => inputs[k] === undefined);
    for (const key of missing) lines.push(`// ${key}: the service does not return it; set it before running up.`);
    const args = { ...inputs, adopt: true };
    lines.push(`new ${classPathOf(spec)}(${JSON.stringify(name)}, ${literal(args, "")});`, "");
  }
  return lines.join("\n");
}
