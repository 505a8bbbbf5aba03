/** ACL policy: `sys/policies/acl/:name`. */
import { z } from "zod";
import { policies } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { isUnknown } from "../../../provider/unknowns";
import { aclDocumentProblem } from "./acl-document";
import { normalizePolicyText, policyName, policyText } from "./policy-common";
import { nth } from "../../../provider/spec";

const inputs = z.object({
  /** Policy name; lower case, not ending in a period, not `root`. Changing it replaces the policy. */
  name: policyName,
  /**
   * Policy document (HCL or JSON), plain or base64-encoded. Read in preview as the service reads it:
   * a document it would refuse is refused with its line and rule.
   */
  policy: policyText.superRefine((text, ctx) => {
    if (isUnknown(text)) return;
    const problem = aclDocumentProblem(text);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
});

export const aclPolicySpec = keepObject({
  type: "AclPolicy",
  description: "An ACL policy",
  rows: policies.acl,
  inputs,
  normalize: { policy: normalizePolicyText },
  // Every namespace has these two; `root` cannot even be written (the name rule refuses it).
  builtIn: (args) => (args.name === "default" || args.name === "root" ? `the built-in \`${args.name}\` policy of the namespace` : undefined),
  example: { inputs: (n) => ({ name: nth("readers", n), policy: 'path "secret/*" {\n  capabilities = ["read"]\n}\n' }), change: { policy: 'path "secret/*" {\n  capabilities = ["read"]\n}\n# more\n' } },
});

/** An ACL policy of the secrets service. ID: the name, or `<namespace>:<name>`. */
export const AclPolicy = defineResource(aclPolicySpec);
export type AclPolicy = InstanceType<typeof AclPolicy>;
export type AclPolicyArgs = ResourceArgs<typeof aclPolicySpec.inputs>;
