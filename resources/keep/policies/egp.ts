/** Endpoint governing policy (EGP): `sys/policies/egp/:name`. */
import { z } from "zod";
import { policies } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { enforcementLevel, normalizePolicyText, policyName, policyText } from "./policy-common";
import { nth } from "../../../provider/spec";

/** Paths as an array, or as the comma-separated string the service also accepts. */
const egpPaths = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => (Array.isArray(value) ? value : value.split(",")).map((p) => p.trim()).filter((p) => p.length > 0))
  .refine((paths) => paths.length > 0, "must list at least one path (a glob such as `secret/*`, or `*` for every request)");

const inputs = z.object({
  /** Policy name; lower case, not ending in a period, not `root`. Changing it replaces the policy. */
  name: policyName,
  /** Policy code, plain or base64-encoded. */
  policy: policyText,
  /** `advisory`, `soft-mandatory` or `hard-mandatory`. */
  enforcementLevel,
  /** Request paths the policy applies to; globs denote suffixes (`secret/*`), `*` means every request. */
  paths: egpPaths,
});

export const egpPolicySpec = keepObject({
  type: "EgpPolicy",
  description: "An endpoint governing policy (enterprise)",
  rows: policies.egp,
  inputs,
  // The order of paths carries no meaning.
  normalize: { policy: normalizePolicyText, paths: (paths) => [...paths].sort() },
  example: {
    inputs: (n) => ({ name: nth("cidr-check", n), policy: "main = rule { true }", enforcementLevel: "soft-mandatory" as const, paths: [`secret/${nth("app", n)}/*`] }),
    change: { paths: ["secret/*", "sys/*"] },
  },
});

/** An endpoint governing policy of the secrets service (enterprise). ID: the name, or `<namespace>:<name>`. */
export const EgpPolicy = defineResource(egpPolicySpec);
export type EgpPolicy = InstanceType<typeof EgpPolicy>;
export type EgpPolicyArgs = ResourceArgs<typeof egpPolicySpec.inputs>;
