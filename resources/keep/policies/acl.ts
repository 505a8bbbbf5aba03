/** ACL policy: `sys/policies/acl/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
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

export const aclPolicySpec = policy.policySpec({
  kind: "acl",
  type: "AclPolicy",
  inputs,
  bodyOf: (args) => ({ policy: args.policy }),
  inputsOf: (answer) => ({ policy: answer.policy as string }),
});

/** An ACL policy of the secrets service. ID: the name, or `<namespace>:<name>`. */
export const AclPolicy = defineResource(aclPolicySpec);
export type AclPolicy = InstanceType<typeof AclPolicy>;
export type AclPolicyArgs = ResourceArgs<typeof inputs>;
