/** Role governing policy (RGP): `sys/policies/rgp/:name`. */
import { z } from "zod";
import { policies } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { enforcementLevel, normalizePolicyText, policyName, policyText } from "./policy-common";
import { nth } from "../../../provider/spec";

const inputs = z.object({
  /** Policy name; lower case, not ending in a period, not `root`. Changing it replaces the policy. */
  name: policyName,
  /** Policy code, plain or base64-encoded. */
  policy: policyText,
  /** `advisory`, `soft-mandatory` or `hard-mandatory`. */
  enforcementLevel,
});

export const rgpPolicySpec = keepObject({
  type: "RgpPolicy",
  description: "A role governing policy (enterprise)",
  rows: policies.rgp,
  inputs,
  normalize: { policy: normalizePolicyText },
  example: { inputs: (n) => ({ name: nth("business-hours", n), policy: "main = rule { true }", enforcementLevel: "advisory" as const }), change: { enforcementLevel: "hard-mandatory" } },
});

/** A role governing policy of the secrets service (enterprise). ID: the name, or `<namespace>:<name>`. */
export const RgpPolicy = defineResource(rgpPolicySpec);
export type RgpPolicy = InstanceType<typeof RgpPolicy>;
export type RgpPolicyArgs = ResourceArgs<typeof rgpPolicySpec.inputs>;
