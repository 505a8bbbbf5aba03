/**
 * Every resource spec of the package, keyed by the export path of its class (`keep.AclPolicy`). The
 * provider host dispatches by type token through it, the import command finds types in it, and the
 * README's resource table is generated from it.
 *
 * The keys are checked against the package's exports: a resource class exported without an entry
 * here, or an entry without an exported class, fails to compile.
 */
import type * as pkg from "../index";
import type { AnySpec, OperationSpec, ResourceSpec } from "../provider/spec";
import { aclPolicySpec } from "./keep/policies/acl";
import { egpPolicySpec } from "./keep/policies/egp";
import { rgpPolicySpec } from "./keep/policies/rgp";
import { associationSpec } from "./keep/sync/association";
import { cloudASmDestinationSpec } from "./keep/sync/cloud-a-sm-destination";
import { cloudBKvDestinationSpec } from "./keep/sync/cloud-b-kv-destination";
import { cloudCSmDestinationSpec } from "./keep/sync/cloud-c-sm-destination";
import { configSpec as syncConfigSpec } from "./keep/sync/config";
import { repoHostAppSpec } from "./keep/sync/repo-host-app";
import { repoHostDestinationSpec } from "./keep/sync/repo-host-destination";
import { webHostProjectDestinationSpec } from "./keep/sync/web-host-project-destination";
import { kvSecretSpec } from "./keep/kv/secret";
import { alphabetSpec as transformAlphabetSpec } from "./keep/transform/alphabet";
import { encodedValueSpec as transformEncodedValueSpec } from "./keep/transform/encoded-value";
import { rekeyBackupDeletionSpec, rekeySpec, rekeyVerifySpec } from "./keep/rekey";
import { roleSpec as transformRoleSpec } from "./keep/transform/role";
import { storeSchemaSpec as transformStoreSchemaSpec } from "./keep/transform/store-schema";
import { storeSpec as transformStoreSpec } from "./keep/transform/store";
import { templateSpec as transformTemplateSpec } from "./keep/transform/template";
import { transformationSpec as transformTransformationSpec } from "./keep/transform/transformation";
import { credentialsSpec as cloudCredentialsSpec } from "./keep/cloud/credentials";
import { leaseConfigSpec as cloudLeaseConfigSpec } from "./keep/cloud/lease-config";
import { roleSpec as cloudRoleSpec } from "./keep/cloud/role";
import { rootConfigSpec as cloudRootConfigSpec } from "./keep/cloud/root-config";
import { rotateRootSpec as cloudRotateRootSpec } from "./keep/cloud/rotate-root";
import { pathsFilterSpec as replicationPathsFilterSpec } from "./keep/replication/paths-filter";
import { primaryDemoteSpec as replicationPrimaryDemoteSpec } from "./keep/replication/primary-demote";
import { primaryDisableSpec as replicationPrimaryDisableSpec } from "./keep/replication/primary-disable";
import { primaryEnableSpec as replicationPrimaryEnableSpec } from "./keep/replication/primary-enable";
import { revokeSecondarySpec as replicationRevokeSecondarySpec } from "./keep/replication/revoke-secondary";
import { secondaryDisableSpec as replicationSecondaryDisableSpec } from "./keep/replication/secondary-disable";
import { secondaryEnableSpec as replicationSecondaryEnableSpec } from "./keep/replication/secondary-enable";
import { secondaryPromoteSpec as replicationSecondaryPromoteSpec } from "./keep/replication/secondary-promote";
import { secondaryTokenSpec as replicationSecondaryTokenSpec } from "./keep/replication/secondary-token";
import { updatePrimarySpec as replicationUpdatePrimarySpec } from "./keep/replication/update-primary";
import { partitionSpec } from "./mesh/partition";
import { configurationVersionSpec } from "./workspaces/configuration-version";
import { workspaceSpec } from "./workspaces/workspace";

type Join<Prefix extends string, Key extends string> = Prefix extends "" ? Key : `${Prefix}.${Key}`;

/**
 * The export paths of the resource classes under a namespace: classes carry `__pulumiType`; other
 * functions (data functions, error classes) are skipped; nested namespaces (`keep.sync`) are entered.
 */
export type ResourceClassPaths<NS, Prefix extends string = ""> = {
  [K in keyof NS & string]: NS[K] extends { readonly __pulumiType: string }
    ? Join<Prefix, K>
    : NS[K] extends (...args: never[]) => unknown
      ? never
      : NS[K] extends object
        ? ResourceClassPaths<NS[K], Join<Prefix, K>>
        : never;
}[keyof NS & string];

/** `keep.AclPolicy`, `workspaces.Workspace`, ...: every resource class the package exports. */
export type ResourcePath = ResourceClassPaths<typeof pkg>;

/**
 * A spec of any input shape. The machine handles each spec through its own schemas at run time, so
 * the registry forgets the shapes (a spec typed by its shape is not assignable to one of another).
 */
export type RegisteredSpec = ResourceSpec<any, any> | OperationSpec<any, any>;

export const specsByClass = {
  "keep.AclPolicy": aclPolicySpec,
  "keep.RgpPolicy": rgpPolicySpec,
  "keep.EgpPolicy": egpPolicySpec,
  "keep.sync.Config": syncConfigSpec,
  "keep.sync.CloudASmDestination": cloudASmDestinationSpec,
  "keep.sync.CloudBKvDestination": cloudBKvDestinationSpec,
  "keep.sync.CloudCSmDestination": cloudCSmDestinationSpec,
  "keep.sync.RepoHostDestination": repoHostDestinationSpec,
  "keep.sync.WebHostProjectDestination": webHostProjectDestinationSpec,
  "keep.sync.Association": associationSpec,
  "keep.sync.RepoHostApp": repoHostAppSpec,
  "keep.kv.Secret": kvSecretSpec,
  "keep.transform.Alphabet": transformAlphabetSpec,
  "keep.transform.Template": transformTemplateSpec,
  "keep.transform.Transformation": transformTransformationSpec,
  "keep.transform.Role": transformRoleSpec,
  "keep.transform.Store": transformStoreSpec,
  "keep.transform.StoreSchema": transformStoreSchemaSpec,
  "keep.transform.EncodedValue": transformEncodedValueSpec,
  "keep.cloud.RootConfig": cloudRootConfigSpec,
  "keep.cloud.LeaseConfig": cloudLeaseConfigSpec,
  "keep.cloud.Role": cloudRoleSpec,
  "keep.cloud.RotateRoot": cloudRotateRootSpec,
  "keep.cloud.Credentials": cloudCredentialsSpec,
  "keep.replication.PrimaryEnable": replicationPrimaryEnableSpec,
  "keep.replication.PrimaryDemote": replicationPrimaryDemoteSpec,
  "keep.replication.PrimaryDisable": replicationPrimaryDisableSpec,
  "keep.replication.SecondaryToken": replicationSecondaryTokenSpec,
  "keep.replication.SecondaryEnable": replicationSecondaryEnableSpec,
  "keep.replication.SecondaryPromote": replicationSecondaryPromoteSpec,
  "keep.replication.SecondaryDisable": replicationSecondaryDisableSpec,
  "keep.replication.UpdatePrimary": replicationUpdatePrimarySpec,
  "keep.replication.RevokeSecondary": replicationRevokeSecondarySpec,
  "keep.replication.PathsFilter": replicationPathsFilterSpec,
  "keep.Rekey": rekeySpec,
  "keep.RekeyVerify": rekeyVerifySpec,
  "keep.RekeyBackupDeletion": rekeyBackupDeletionSpec,
  "workspaces.Workspace": workspaceSpec,
  "workspaces.ConfigurationVersion": configurationVersionSpec,
  "mesh.Partition": partitionSpec,
} satisfies Record<ResourcePath, RegisteredSpec>;

/** Each registered spec with the export path of its class, in the order above. */
export const registeredResources: readonly { path: ResourcePath; spec: AnySpec }[] = Object.entries(specsByClass).map(
  ([path, spec]: [string, RegisteredSpec]) => ({ path: path as ResourcePath, spec }),
);

export const allSpecs: readonly AnySpec[] = registeredResources.map((r) => r.spec);
