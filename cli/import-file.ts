/**
 * The file `pulumi import --file` takes, for programs in any language through the provider plugin:
 * each object by the plugin's type token, a resource name and its ID; the CLI reads each through the
 * plugin (`Read` by ID alone answers its inputs) and writes the program in the project's language.
 * Only names and IDs are written: no input, so no secret value.
 */
import { z } from "zod";
import { PLUGIN_PACKAGE } from "../provider/config";
import { shortTypeOf, tokenOf } from "../provider/spec";
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

/** Names the file gives the provider and the parent in its name table. */
const PROVIDER_NAME = "keepstack-provider";
const PARENT_NAME = "parent";

export function importFile(objects: ImportedObject[], options: ImportFileOptions = {}): ImportFile {
  const taken = new Map<string, Set<string>>();
  const resources = objects.map((object): ImportFileResource => {
    const type = `${PLUGIN_PACKAGE}:${shortTypeOf(tokenOf(object.spec))}`;
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
      ...(options.providerUrn ? { provider: PROVIDER_NAME } : {}),
      ...(options.parentUrn ? { parent: PARENT_NAME } : {}),
    };
  });
  const nameTable: Record<string, string> = {
    ...(options.providerUrn ? { [PROVIDER_NAME]: options.providerUrn } : {}),
    ...(options.parentUrn ? { [PARENT_NAME]: options.parentUrn } : {}),
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
    if (missing.length) notes.push(`${PLUGIN_PACKAGE}:${shortTypeOf(tokenOf(object.spec))} "${object.id}": the service never returns ${missing.join(", ")}; add ${missing.length === 1 ? "it" : "them"} to the program pulumi import writes (a reference such as { fromEnv: "NAME" } keeps the value out of the state)`);
  }
  return notes;
}
