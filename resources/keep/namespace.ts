/** Namespaces of the secrets service in resource IDs: `<namespace>:<id>` when a resource overrides it. */
import { z } from "zod";

/** Namespace of the object, overriding `keep:namespace`; part of the ID; changing it replaces the object. */
export const namespaceInput = z
  .string()
  .min(1)
  .regex(/^[^:]+$/, "must not contain ':' (it separates the namespace from the rest of the ID)")
  .transform((ns) => ns.replace(/^\/+|\/+$/g, ""))
  .optional();

export function keepId(namespace: string | undefined, id: string): string {
  return namespace ? `${namespace}:${id}` : id;
}

export function splitKeepId(id: string): { namespace?: string; id: string } {
  const colon = id.indexOf(":");
  return colon < 0 ? { id } : { namespace: id.slice(0, colon), id: id.slice(colon + 1) };
}

/** A path parameter of the service must not end in a period (it would answer 404). */
export const pathSegment = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .refine((s) => !s.endsWith("."), `${what} must not end in a period (the service answers 404 for such paths)`)
    .refine((s) => !s.includes("/"), `${what} must not contain '/'`);
