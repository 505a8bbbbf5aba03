/** Endpoint governing policy (EGP): `sys/policies/egp/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { resourceSpec } from "../../../provider/spec";
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

type EgpBody = { name: string; policy: string; enforcement_level: z.infer<typeof policy.enforcementLevel>; paths: string[] };

const bodyOf = (args: z.output<typeof inputs>) => ({
  policy: args.policy,
  enforcement_level: args.enforcementLevel,
  paths: args.paths,
});

export const egpPolicySpec = resourceSpec({
  module: "keep",
  type: "EgpPolicy",
  inputs,
  computed: z.object({}),
  replaceOnChanges: ["name", "namespace"],
  normalize: {
    policy: policy.normalizePolicyText,
    // Order of paths carries no meaning.
    paths: (paths) => [...paths].sort(),
  },
  naturalId: policy.policyId,
  fromId: policy.policyFromId,
  async create(ctx, args) {
    const id = policy.policyId(args);
    await policy.writePolicy(ctx, "egp", id, bodyOf(args));
    return { id, computed: {} };
  },
  async read(ctx, id) {
    const found = await policy.readPolicy<EgpBody>(ctx, "egp", id);
    return (
      found && {
        inputs: { policy: found.policy, enforcementLevel: found.enforcement_level, paths: found.paths },
        computed: {},
      }
    );
  },
  async update(ctx, id, args) {
    await policy.writePolicy(ctx, "egp", id, bodyOf(args));
    return {};
  },
  delete: (ctx, id) => policy.deletePolicy(ctx, "egp", id),
  list: (ctx) => policy.listPolicies(ctx, "egp"),
});

/** An endpoint governing policy of the secrets service (enterprise). ID: the name, or `<namespace>:<name>`. */
export const EgpPolicy = defineResource(egpPolicySpec);
export type EgpPolicy = InstanceType<typeof EgpPolicy>;
export type EgpPolicyArgs = ResourceArgs<typeof inputs>;
