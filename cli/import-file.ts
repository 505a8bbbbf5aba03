/**
 * The file `pulumi import --file` takes, for programs in any language through the provider plugin:
 * each object by the plugin's type token, a resource name and its ID; the CLI reads each through the
 * plugin (`Read` by ID alone answers its inputs) and writes the program in the project's language.
 * Only names and IDs are written: no input, so no secret value.
 */
import { z } from "zod";
import { takesSecretReference } from "../provider/secret-ref";
import { pluginTokenOf } from "../provider/spec";
import { ImportedObject, readableNameOf } from "./program-text";

/** A line of the file, as Pulumi documents it (`parent` and `provider` name an entry of `nameTable`). */
export interface ImportFileResource {
  type: string;
  name: string;
  id: string;
  provider?: string;
  parent?: string;
}

export interface ImportFile {
  nameTable?: Record<string, string>;
  resources: ImportFileResource[];
}

export interface ImportFileOptions {
  /** The URN of an explicit keepstack provider the objects are read through (a second cluster). */
  providerUrn?: string;
  /** The URN of a component the imported resources become children of. */
  parentUrn?: string;
}

/**
 * The name-table names of the provider and the parent: the names the program gives them (their
 * URNs' last part), which the CLI writes in the code it generates (`provider: ${dr}`).
 */
function nameTableNames(options: ImportFileOptions): { provider?: string; parent?: string } {
  const nameOf = (urn: string) => urn.split("::").pop() || urn;
  const provider = options.providerUrn ? nameOf(options.providerUrn) : undefined;
  let parent = options.parentUrn ? nameOf(options.parentUrn) : undefined;
  if (parent !== undefined && parent === provider) parent = `${parent}-parent`;
  return { provider, parent };
}

export function importFile(objects: ImportedObject[], options: ImportFileOptions = {}): ImportFile {
  const table = nameTableNames(options);
  const taken = new Map<string, Set<string>>();
  const resources = objects.map((object): ImportFileResource => {
    const type = pluginTokenOf(object.spec);
    // Resource names are unique per type, as in the TypeScript program the command writes.
    const names = taken.get(type) ?? new Set<string>();
    taken.set(type, names);
    const base = readableNameOf(object);
    let name = base;
    for (let n = 2; names.has(name); n++) name = `${base}-${n}`;
    names.add(name);
    return {
      type,
      name,
      id: object.id,
      ...(table.provider ? { provider: table.provider } : {}),
      ...(table.parent ? { parent: table.parent } : {}),
    };
  });
  const nameTable: Record<string, string> = {
    ...(table.provider && options.providerUrn ? { [table.provider]: options.providerUrn } : {}),
    ...(table.parent && options.parentUrn ? { [table.parent]: options.parentUrn } : {}),
  };
  return { ...(Object.keys(nameTable).length ? { nameTable } : {}), resources };
}

/** What the imported program still needs: the inputs a service never returns (credentials), per object. */
export function inputsToAdd(objects: ImportedObject[]): string[] {
  const notes: string[] = [];
  for (const object of objects) {
    const shape = object.spec.inputs.shape as Record<string, z.ZodType>;
    const required = (key: string) => !shape[key].safeParse(undefined).success;
    const missing = Object.keys(shape).filter((key) => object.inputs[key] === undefined && ((object.spec.writeOnly ?? []).includes(key as never) || required(key)));
    if (!missing.length) continue;
    const list = (keys: string[]) => (keys.length < 2 ? keys.join("") : `${keys.slice(0, -1).join(", ")} and ${keys[keys.length - 1]}`);
    // A required input must be added; an optional one only where the object was given one.
    const needed = missing.filter(required);
    const optional = missing.filter((key) => !required(key));
    const where = `where the object has ${optional.length === 1 ? "one" : "them"}`;
    const what = needed.length
      ? `add ${list(needed)} to the program pulumi import writes${optional.length ? `, and ${list(optional)} ${where}` : ""}`
      : `add ${list(optional)} to the program pulumi import writes ${where}`;
    // A credential can be given as a reference, which keeps its value out of the state; other inputs are written as values.
    const referable = missing.filter((key) => takesSecretReference(shape[key]));
    const how = referable.length ? ` (${list(referable)} ${referable.length === 1 ? "takes" : "take"} a reference such as { fromEnv: "NAME" }, which keeps the value out of the state)` : "";
    notes.push(`${pluginTokenOf(object.spec)} "${object.id}": the service never returns ${missing.join(", ")}: ${what}${how}`);
  }
  return notes;
}
