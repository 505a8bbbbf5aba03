/** Endpoint governing policy (EGP): `sys/policies/egp/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { namespaceInput } from "../namespace";
import * as policy from "./policy-common";

/** Paths as an array, or as the comma-separated string the service also accepts. */
const egpPaths = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => (Array.isArray(value) ? value : value.split(",")).map((p) => p.trim()).filter((p) => p.length > 0))
  .refine((paths) => paths.length > 0, "must list at least one path (a glob such as `secret/*`, or `*` for every request)");

const inputs = z.object({
  /** Policy name; lower case, not ending in a period. Changing it replaces the policy. */
  name: policy.policyName,
  /** Policy code, plain or base64-encoded. */
  policy: policy.policyText,
  /** `advisory`, `soft-mandatory` or `hard-mandatory`. */
  enforcementLevel: policy.enforcementLevel,
  /** Request paths the policy applies to; globs denote suffixes (`secret/*`), `*` means every request. */
  paths: egpPaths,
  /** Namespace of the policy, overriding `keep:namespace`; changing it replaces the policy. */
  namespace: namespaceInput,
});

export const egpPolicySpec = policy.policySpec({
  kind: "egp",
  type: "EgpPolicy",
  inputs,
  bodyOf: (args) => ({ policy: args.policy, enforcement_level: args.enforcementLevel, paths: args.paths }),
  inputsOf: (answer) => ({
    policy: answer.policy as string,
    enforcementLevel: answer.enforcement_level as z.infer<typeof policy.enforcementLevel>,
    paths: answer.paths as string[],
  }),
  // The order of paths carries no meaning.
  normalize: { paths: (paths) => [...paths].sort() },
});

/** An endpoint governing policy of the secrets service (enterprise). ID: the name, or `<namespace>:<name>`. */
export const EgpPolicy = defineResource(egpPolicySpec);
export type EgpPolicy = InstanceType<typeof EgpPolicy>;
export type EgpPolicyArgs = ResourceArgs<typeof inputs>;
