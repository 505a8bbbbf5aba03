/**
 * Every resource spec of the package. The provider host dispatches by type token through this list;
 * a resource module missing here fails the registry test.
 */
import type { ResourceSpec } from "../provider/spec";
import { aclPolicySpec } from "./keep/policies/acl";
import { egpPolicySpec } from "./keep/policies/egp";
import { rgpPolicySpec } from "./keep/policies/rgp";
import { partitionSpec } from "./mesh/partition";
import { configurationVersionSpec } from "./workspaces/configuration-version";
import { workspaceSpec } from "./workspaces/workspace";

export const allSpecs: readonly ResourceSpec[] = [aclPolicySpec, rgpPolicySpec, egpPolicySpec, partitionSpec, workspaceSpec, configurationVersionSpec] as unknown as ResourceSpec[];
