/**
 * Where the spec of each resource class is, loaded on first use: the provider host loads only the
 * modules of the types its program declares, not the whole package. The type token of each class
 * follows from its export path (`keep.sync.Config` is `keep:SyncConfig`, see `tokenOfPath`), so the
 * host finds a type's module without loading the others.
 *
 * The keys are checked against the package's exports: a resource class exported without an entry
 * here, or an entry without an exported class, fails to compile; `tests/provider/catalog.spec.ts`
 * holds every entry to the token its spec declares.
 */
import type * as pkg from "../index";
import type { OperationContext } from "../provider/context";
import type { OperationSpec, ResourceSpec } from "../provider/spec";

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
 * the catalog forgets the shapes (a spec typed by its shape is not assignable to one of another).
 */
export type RegisteredSpec = ResourceSpec<any, any> | OperationSpec<any, any>;

/* eslint-disable @typescript-eslint/no-require-imports */
export const specLoaders = {
  "keep.AclPolicy": () => require("./keep/policies/acl").aclPolicySpec,
  "keep.RgpPolicy": () => require("./keep/policies/rgp").rgpPolicySpec,
  "keep.EgpPolicy": () => require("./keep/policies/egp").egpPolicySpec,
  "keep.sync.Config": () => require("./keep/sync/config").configSpec,
  "keep.sync.CloudASmDestination": () => require("./keep/sync/cloud-a-sm-destination").cloudASmDestinationSpec,
  "keep.sync.CloudBKvDestination": () => require("./keep/sync/cloud-b-kv-destination").cloudBKvDestinationSpec,
  "keep.sync.CloudCSmDestination": () => require("./keep/sync/cloud-c-sm-destination").cloudCSmDestinationSpec,
  "keep.sync.RepoHostDestination": () => require("./keep/sync/repo-host-destination").repoHostDestinationSpec,
  "keep.sync.WebHostProjectDestination": () => require("./keep/sync/web-host-project-destination").webHostProjectDestinationSpec,
  "keep.sync.Association": () => require("./keep/sync/association").associationSpec,
  "keep.sync.RepoHostApp": () => require("./keep/sync/repo-host-app").repoHostAppSpec,
  "keep.kv.Secret": () => require("./keep/kv/secret").kvSecretSpec,
  "keep.transform.Alphabet": () => require("./keep/transform/alphabet").alphabetSpec,
  "keep.transform.Template": () => require("./keep/transform/template").templateSpec,
  "keep.transform.Transformation": () => require("./keep/transform/transformation").transformationSpec,
  "keep.transform.Role": () => require("./keep/transform/role").roleSpec,
  "keep.transform.Store": () => require("./keep/transform/store").storeSpec,
  "keep.transform.StoreSchema": () => require("./keep/transform/store-schema").storeSchemaSpec,
  "keep.transform.EncodedValue": () => require("./keep/transform/encoded-value").encodedValueSpec,
  "keep.cloud.RootConfig": () => require("./keep/cloud/root-config").rootConfigSpec,
  "keep.cloud.LeaseConfig": () => require("./keep/cloud/lease-config").leaseConfigSpec,
  "keep.cloud.Role": () => require("./keep/cloud/role").roleSpec,
  "keep.cloud.RotateRoot": () => require("./keep/cloud/rotate-root").rotateRootSpec,
  "keep.cloud.Credentials": () => require("./keep/cloud/credentials").credentialsSpec,
  "keep.replication.PrimaryEnable": () => require("./keep/replication/primary-enable").primaryEnableSpec,
  "keep.replication.PrimaryDemote": () => require("./keep/replication/primary-demote").primaryDemoteSpec,
  "keep.replication.PrimaryDisable": () => require("./keep/replication/primary-disable").primaryDisableSpec,
  "keep.replication.SecondaryToken": () => require("./keep/replication/secondary-token").secondaryTokenSpec,
  "keep.replication.SecondaryEnable": () => require("./keep/replication/secondary-enable").secondaryEnableSpec,
  "keep.replication.SecondaryPromote": () => require("./keep/replication/secondary-promote").secondaryPromoteSpec,
  "keep.replication.SecondaryDisable": () => require("./keep/replication/secondary-disable").secondaryDisableSpec,
  "keep.replication.UpdatePrimary": () => require("./keep/replication/update-primary").updatePrimarySpec,
  "keep.replication.RevokeSecondary": () => require("./keep/replication/revoke-secondary").revokeSecondarySpec,
  "keep.replication.PathsFilter": () => require("./keep/replication/paths-filter").pathsFilterSpec,
  "keep.Rekey": () => require("./keep/rekey").rekeySpec,
  "keep.RekeyVerify": () => require("./keep/rekey").rekeyVerifySpec,
  "keep.RekeyBackupDeletion": () => require("./keep/rekey").rekeyBackupDeletionSpec,
  "workspaces.Workspace": () => require("./workspaces/workspace").workspaceSpec,
  "workspaces.ConfigurationVersion": () => require("./workspaces/configuration-version").configurationVersionSpec,
  "mesh.Partition": () => require("./mesh/partition").partitionSpec,
} satisfies Record<ResourcePath, () => RegisteredSpec>;
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The export paths of the functions under a namespace that ask a service and answer a promise (the
 * ones the plugin serves through `Invoke`): classes and local helpers (`splitBatch`, the snapshot's
 * iterator) are not among them.
 */
export type FunctionPaths<NS, Prefix extends string = ""> = {
  [K in keyof NS & string]: NS[K] extends abstract new (...args: never[]) => unknown
    ? never
    : NS[K] extends (...args: never[]) => Promise<unknown>
      ? Join<Prefix, K>
      : NS[K] extends (...args: never[]) => unknown
        ? never
        : NS[K] extends object
          ? FunctionPaths<NS[K], Join<Prefix, K>>
          : never;
}[keyof NS & string];

/** `keep.transform.encode`, `mesh.getCaRoots`, ...: every function the package exports that calls a service. */
export type FunctionPath = FunctionPaths<typeof pkg>;

/** A function as the plugin calls it: its arguments as given, and the plugin's context. */
export type CatalogFunction = (args: unknown, ctx: OperationContext) => Promise<unknown>;

/* eslint-disable @typescript-eslint/no-require-imports */
const transformFunction = (name: string) => () => require("./keep/transform/functions")[name];
export const functionLoaders = {
  "keep.transform.encode": transformFunction("encode"),
  "keep.transform.decode": transformFunction("decode"),
  "keep.transform.validate": transformFunction("validate"),
  "keep.transform.isTokenized": transformFunction("isTokenized"),
  "keep.transform.getMetadata": transformFunction("getMetadata"),
  "keep.transform.snapshot": transformFunction("snapshot"),
  "keep.cloud.getCredentials": () => require("./keep/cloud/functions").getCredentials,
  "keep.cloud.getStsCredentials": () => require("./keep/cloud/functions").getStsCredentials,
  "keep.replication.getStatus": () => require("./keep/replication/functions").getStatus,
  "keep.replication.getDynamicFilter": () => require("./keep/replication/functions").getDynamicFilter,
  "keep.getRekeyStatus": () => require("./keep/rekey/functions").getRekeyStatus,
  "keep.getRekeyBackup": () => require("./keep/rekey/functions").getRekeyBackup,
  "workspaces.listWorkspaces": () => require("./workspaces/functions").listWorkspaces,
  "workspaces.listConfigurationVersions": () => require("./workspaces/functions").listConfigurationVersions,
  "workspaces.getConfigurationVersion": () => require("./workspaces/functions").getConfigurationVersion,
  "workspaces.getIngressAttributes": () => require("./workspaces/functions").getIngressAttributes,
  "workspaces.downloadConfigurationVersion": () => require("./workspaces/functions").downloadConfigurationVersion,
  "mesh.authorize": () => require("./mesh/connect").authorize,
  "mesh.getCaRoots": () => require("./mesh/connect").getCaRoots,
  "mesh.getLeafCertificate": () => require("./mesh/connect").getLeafCertificate,
} satisfies Record<FunctionPath, () => CatalogFunction>;
/* eslint-enable @typescript-eslint/no-require-imports */

/** The function token of an export path, without the package: `keep.transform.encode` → `keep:transformEncode`. */
export function functionTokenOfPath(path: string): string {
  const [module, first, ...rest] = path.split(".");
  return `${module}:${first}${rest.map((n) => n[0].toUpperCase() + n.slice(1)).join("")}`;
}

const functionByToken = new Map<string, () => CatalogFunction>(Object.entries(functionLoaders).map(([path, load]) => [functionTokenOfPath(path), load]));

/** The function of a token without the package (`keep:transformEncode`), loading its module; undefined for one the package does not have. */
export function functionOfToken(token: string): CatalogFunction | undefined {
  return functionByToken.get(token)?.();
}

/** The type token of the class at an export path: `keep.sync.Config` → `keep:SyncConfig`. */
export function tokenOfPath(path: string): string {
  const [module, ...names] = path.split(".");
  return `${module}:${names.map((n) => n[0].toUpperCase() + n.slice(1)).join("")}`;
}

const loaderByShortType = new Map<string, () => RegisteredSpec>(Object.entries(specLoaders).map(([path, load]) => [tokenOfPath(path), load]));

/** The spec of a short type (`keep:AclPolicy`), loading its module; undefined for a type the package does not have. */
export function specOfShortType(type: string): RegisteredSpec | undefined {
  return loaderByShortType.get(type)?.();
}
