/** Role governing policy (RGP): `sys/policies/rgp/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { resourceSpec } from "../../../provider/spec";
import { namespaceInput } from "../namespace";
import * as policy from "./policy-common";

const inputs = z.object({
  /** Policy name; lower case, not ending in a period. Changing it replaces the policy. */
  name: policy.policyName,
  /** Policy code, plain or base64-encoded. */
  policy: policy.policyText,
  /** `advisory`, `soft-mandatory` or `hard-mandatory`. */
  enforcementLevel: policy.enforcementLevel,
  /** Namespace of the policy, overriding `keep:namespace`; changing it replaces the policy. */
  namespace: namespaceInput,
});

type RgpBody = { name: string; policy: string; enforcement_level: z.infer<typeof policy.enforcementLevel> };

export const rgpPolicySpec = resourceSpec({
  module: "keep",
  type: "RgpPolicy",
  inputs,
  computed: z.object({}),
  replaceOnChanges: ["name", "namespace"],
  normalize: { policy: policy.normalizePolicyText },
  naturalId: policy.policyId,
  fromId: policy.policyFromId,
  async create(ctx, args) {
    const id = policy.policyId(args);
    await policy.writePolicy(ctx, "rgp", id, { policy: args.policy, enforcement_level: args.enforcementLevel });
    return { id, computed: {} };
  },
  async read(ctx, id) {
    const found = await policy.readPolicy<RgpBody>(ctx, "rgp", id);
    return found && { inputs: { policy: found.policy, enforcementLevel: found.enforcement_level }, computed: {} };
  },
  async update(ctx, id, args) {
    await policy.writePolicy(ctx, "rgp", id, { policy: args.policy, enforcement_level: args.enforcementLevel });
    return {};
  },
  delete: (ctx, id) => policy.deletePolicy(ctx, "rgp", id),
  list: (ctx) => policy.listPolicies(ctx, "rgp"),
});

/** A role governing policy of the secrets service (enterprise). ID: the name, or `<namespace>:<name>`. */
export const RgpPolicy = defineResource(rgpPolicySpec);
export type RgpPolicy = InstanceType<typeof RgpPolicy>;
export type RgpPolicyArgs = ResourceArgs<typeof inputs>;
