/** The policy pack the workflow's preview and up run: every rule of pulumi-keepstack/policy. */
import { PolicyPack } from "@pulumi/policy";
import { keepstackPolicies } from "pulumi-keepstack/policy";

new PolicyPack("keepstack", {
  policies: keepstackPolicies({
    workspaceAutoApply: { allowedNames: ["sandbox-*"] },
    acknowledgedOperations: { allowedStacks: ["dr-*"] },
  }),
});
