/**
 * Every resource spec of the package, keyed by the export path of its class (`keep.AclPolicy`),
 * loaded all at once from the catalog (`catalog.ts`). The import command finds types in it, the
 * policy pack reads declarations through it, and the README's resource table is generated from it;
 * the provider host loads specs one type at a time through the catalog instead.
 */
import type { AnySpec } from "../provider/spec";
import { RegisteredSpec, ResourcePath, specLoaders } from "./catalog";

export type { RegisteredSpec, ResourceClassPaths, ResourcePath } from "./catalog";

export const specsByClass = Object.fromEntries(Object.entries(specLoaders).map(([path, load]) => [path, load()])) as {
  [P in keyof typeof specLoaders]: ReturnType<(typeof specLoaders)[P]>;
};

/** Each registered spec with the export path of its class, in the catalog's order. */
export const registeredResources: readonly { path: ResourcePath; spec: AnySpec }[] = Object.entries(specsByClass).map(
  ([path, spec]: [string, RegisteredSpec]) => ({ path: path as ResourcePath, spec }),
);

export const allSpecs: readonly AnySpec[] = registeredResources.map((r) => r.spec);
