/** Compile-time tests of the registry: its keys are the package's resource classes, no more, no less. */
import { aclPolicySpec } from "../../resources/keep/policies/acl";
import type { RegisteredSpec, ResourcePath } from "../../resources/all-specs";
import { Equal, Expect } from "./type-assertions";

type Checks = [
  // A union of literal paths: a plain `string` would let any key through.
  Expect<Equal<string extends ResourcePath ? true : false, false>>,
  Expect<Equal<"keep.AclPolicy" extends ResourcePath ? true : false, true>>,
  Expect<Equal<"mesh.Partition" extends ResourcePath ? true : false, true>>,
  // Functions and error classes of a namespace are not resources.
  Expect<Equal<"mesh.authorize" extends ResourcePath ? true : false, false>>,
  Expect<Equal<"mesh.MeshFunctionError" extends ResourcePath ? true : false, false>>,
  Expect<Equal<"workspaces.listWorkspaces" extends ResourcePath ? true : false, false>>,
];

// @ts-expect-error a registry that leaves out exported resource classes does not compile
export const incomplete = { "keep.AclPolicy": aclPolicySpec } satisfies Record<ResourcePath, RegisteredSpec>;

export const unknownEntry = {
  ...({} as Record<ResourcePath, RegisteredSpec>),
  // @ts-expect-error an entry without an exported class does not compile
  "keep.Missing": aclPolicySpec,
} satisfies Record<ResourcePath, RegisteredSpec>;

export type { Checks };
