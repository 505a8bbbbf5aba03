/** Role governing policy (RGP): `sys/policies/rgp/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
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

export const rgpPolicySpec = policy.policySpec({
  kind: "rgp",
  type: "RgpPolicy",
  inputs,
  bodyOf: (args) => ({ policy: args.policy, enforcement_level: args.enforcementLevel }),
  inputsOf: (answer) => ({
    policy: answer.policy as string,
    enforcementLevel: answer.enforcement_level as z.infer<typeof policy.enforcementLevel>,
  }),
});

/** A role governing policy of the secrets service (enterprise). ID: the name, or `<namespace>:<name>`. */
export const RgpPolicy = defineResource(rgpPolicySpec);
export type RgpPolicy = InstanceType<typeof RgpPolicy>;
export type RgpPolicyArgs = ResourceArgs<typeof inputs>;
