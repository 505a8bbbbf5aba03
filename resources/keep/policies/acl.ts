/** ACL policy: `sys/policies/acl/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { resourceSpec } from "../../../provider/spec";
import { namespaceInput } from "../namespace";
import * as policy from "./policy-common";

const inputs = z.object({
  /** Policy name; lower case, not ending in a period. Changing it replaces the policy. */
  name: policy.policyName,
  /** Policy document (HCL or JSON), plain or base64-encoded. */
  policy: policy.policyText,
  /** Namespace of the policy, overriding `keep:namespace`; changing it replaces the policy. */
  namespace: namespaceInput,
});

export const aclPolicySpec = resourceSpec({
  module: "keep",
  type: "AclPolicy",
  inputs,
  computed: z.object({}),
  replaceOnChanges: ["name", "namespace"],
  normalize: { policy: policy.normalizePolicyText },
  naturalId: policy.policyId,
  fromId: policy.policyFromId,
  async create(ctx, args) {
    const id = policy.policyId(args);
    await policy.writePolicy(ctx, "acl", id, { policy: args.policy });
    return { id, computed: {} };
  },
  async read(ctx, id) {
    const found = await policy.readPolicy<{ name: string; policy: string }>(ctx, "acl", id);
    return found && { inputs: { policy: found.policy }, computed: {} };
  },
  async update(ctx, id, args) {
    await policy.writePolicy(ctx, "acl", id, { policy: args.policy });
    return {};
  },
  delete: (ctx, id) => policy.deletePolicy(ctx, "acl", id),
  list: (ctx) => policy.listPolicies(ctx, "acl"),
});

/** An ACL policy of the secrets service. ID: the name, or `<namespace>:<name>`. */
export const AclPolicy = defineResource(aclPolicySpec);
export type AclPolicy = InstanceType<typeof AclPolicy>;
export type AclPolicyArgs = ResourceArgs<typeof inputs>;
