/** Transform role: `<mount>/role/:name`, the transformations a caller of encode and decode may use. */
import { z } from "zod";
import { transformObjects } from "../../../provider/contracts/keep";
import { keepId, keepObject, pathSegment } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { transformMount } from "./common";
import { nth } from "../../../provider/spec";

const inputs = z.object({
  /** Where the transform engine is mounted (default `transform`). Changing it replaces the role. */
  mount: transformMount,
  /** Role name; encode and decode go through `<mount>/encode/<name>`. Changing it replaces the role. */
  name: pathSegment("role name"),
  /**
   * Transformations usable through this role (each must also list the role in its `allowedRoles`).
   * Order does not matter.
   */
  transformations: z.array(z.string().min(1, "must name a transformation")).default([]),
});

export const roleSpec = keepObject({
  type: "TransformRole",
  description: "A role of the transform engine",
  rows: transformObjects.role,
  id: "{mount*}/role/{name}",
  inputs,
  normalize: { transformations: (names) => [...names].sort() },
  references: { transformations: { types: ["keep:TransformTransformation"], id: (name, v) => keepId(v, `${v.mount}/transformation/${name}`) } },
  example: { inputs: (n) => ({ name: nth("payments", n), transformations: [nth("card-fpe", n)] }), change: { transformations: ["card-fpe", "ssn"] } },
});

/** A role of the transform engine. ID: `<mount>/role/<name>`. */
export const Role = defineResource(roleSpec);
export type Role = InstanceType<typeof Role>;
export type RoleArgs = ResourceArgs<typeof roleSpec.inputs>;
