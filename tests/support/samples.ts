/**
 * A valid declaration of every registered resource type, for the tests that cover the whole
 * registry (the contract test, the fault matrix, the check fuzz): its inputs and an in-place change,
 * taken from its spec's example (`example` beside its inputs). A registered type without one fails
 * those tests, naming where to add it.
 *
 * Secrets in examples are references (`app:secret`, `APP_SECRET`) or test values; test contexts
 * resolve them.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { generateKeyPairSync } from "node:crypto";
import { decryptShare, PgpPair, pgpPair } from "./pgp";
import { shortTypeOf, tokenOf } from "../../provider/spec";
import { registeredResources } from "../../resources/all-specs";
import type { DeclaredProgram, DeclaredResource } from "./declared-program";
import type { KeepEmulator } from "../../emulator/keep";
import type { KeepCluster } from "../../emulator/keep/replication";
import type { MeshEmulator } from "../../emulator/mesh";
import type { WorkspacesEmulator } from "../../emulator/workspaces";

export interface Sample {
  /** Inputs a program would declare. */
  inputs: Record<string, unknown>;
  /** Inputs changed in place (no replacement), where the type has any. */
  change?: Record<string, unknown>;
}

/** A directory with one file to upload, made once per process. */
let uploadDir: string | undefined;
function configurationDirectory(): string {
  if (!uploadDir) {
    uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "sample-config-"));
    fs.writeFileSync(path.join(uploadDir, "main.tf"), 'resource "null_resource" "x" {}\n');
  }
  return uploadDir;
}

/** In place of what an example names on the machine that runs it: a folder of one file to upload, not the working directory. */
const ON_THIS_MACHINE: Record<string, () => Record<string, unknown>> = {
  "workspaces:ConfigurationVersion": () => ({ directory: configurationDirectory() }),
};

/** The n-th example inputs of a spec, with what they name on the machine put in place (never the working directory). */
export function exampleInputs(spec: (typeof registeredResources)[number]["spec"], n: number): Record<string, unknown> {
  if (!spec.example) throw new Error(`no example for ${tokenOf(spec)}: give its spec one (\`example\`, beside its inputs)`);
  return { ...spec.example.inputs(n), ...ON_THIS_MACHINE[shortTypeOf(tokenOf(spec))]?.() };
}

/** The sample of a type, by its short type (`keep:AclPolicy`) or token: its spec's first example. */
export function sampleFor(type: string): Sample {
  const short = type.replace(/^pulumi-nodejs:dynamic\//, "");
  const registered = registeredResources.find((r) => shortTypeOf(tokenOf(r.spec)) === short);
  const example = registered?.spec.example;
  if (!example) throw new Error(`no example for ${short}: give its spec one (\`example\`, beside its inputs${registered ? `, in the module of ${registered.path}` : ""})`);
  return { inputs: exampleInputs(registered.spec, 0), ...(example.change ? { change: example.change } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Samples against running services (the fault matrix, the check fuzz's applied inputs): inputs
// named after each case so cases never collide, the resources they need declared as a program run
// first, and an in-place change. Data only: the campaigns run every type alike.

/** The running services a sample may use. */
export interface SampleEnv {
  keep: KeepEmulator;
  /**
   * The same `keep` service as cluster "main" of a replication network, and a second cluster "dr"
   * on it (the provider's `keep-dr:` connection); the replication samples need them.
   */
  clusters?: { main: KeepCluster; dr: KeepCluster };
  workspaces: WorkspacesEmulator;
  mesh: MeshEmulator;
  /** Connection string, with the `{{username}}` and `{{password}}` slots, of a PostgreSQL the transform stores reach. */
  postgresConnectionString: string;
  /** A directory of the test's own, for files the inputs name (configuration directories). */
  scratch: string;
}

export type SampleInputs = Record<string, unknown>;

export interface ServiceSample {
  /**
   * Makes the services ready for a case of this type (mounts an engine, sets the clusters'
   * replication modes); called before each case. Must be idempotent.
   */
  prepare?(env: SampleEnv): void | Promise<void>;
  /**
   * The resources the inputs need, as a program (of the dynamic door) whose stack outputs (plain
   * values) go to `inputs`. Every resource it declares is named after `name`, so samples of several
   * cases never collide.
   */
  prerequisites?(env: SampleEnv, name: string): DeclaredProgram | Promise<DeclaredProgram>;
  /** Valid inputs of a resource named `name` (its natural ID derives from it where it has one). */
  inputs(env: SampleEnv, name: string, prerequisites: Record<string, any>): SampleInputs | Promise<SampleInputs>;
  /** An in-place change of `inputs` (an operation: any change, which runs it again). */
  change?(inputs: SampleInputs, env: SampleEnv): SampleInputs | Promise<SampleInputs>;
  /** Why no in-place change exists, when `change` is absent. */
  unchangeable?: string;
  /**
   * A change that replaces the object (a new one is made, then the old one deleted), for types that
   * have one: the fault matrix faults the writes of the replacement, the removal of the old object
   * included. Names it makes still carry the case's name.
   */
  replacement?(inputs: SampleInputs, env: SampleEnv, prerequisites: Record<string, any>): SampleInputs | Promise<SampleInputs>;
}

const ACL_RULES = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';
const SENTINEL_RULE = "main = rule { true }\n";
const SENTINEL_RULE_B = 'main = rule { identity.entity.name is "ops" }\n';
const CLOUD_C_CREDENTIALS = JSON.stringify({ type: "service_account", project_id: "proj-1", private_key: "k" });
const ROLE_ARN = "arn:aws:iam::123456789012:role/deploy";

let rsaKeys: string[] | undefined;
/** Two RSA keys, made once: generating one blocks the event loop for a while. */
function repoHostAppKeys(): string[] {
  rsaKeys ??= [0, 1].map(() => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString());
  return rsaKeys;
}

let pgpPairs: Promise<PgpPair[]> | undefined;
/** Three PGP key pairs for rekeys with encrypted shares, made once. */
function pgpKeys(): Promise<PgpPair[]> {
  pgpPairs ??= Promise.all(["ann", "bob", "cy"].map(pgpPair));
  return pgpPairs;
}

const mountOnce = (env: SampleEnv, mountPath: string, type: string) => {
  if (!env.keep.mounts().some((m) => m.path.replace(/\/$/, "") === mountPath)) env.keep.mount(mountPath, type);
};
const transformMount = (env: SampleEnv) => mountOnce(env, "transform", "transform");
const cloudMount = (env: SampleEnv) => mountOnce(env, "cloudA", "cloudA");
/**
 * The engine's configuration endpoints have no delete: destroy leaves the root credentials and the
 * lease settings on the mount, and a later create refuses them as someone else's (one owner). A case
 * that declares them starts on a new mount.
 */
const freshCloudMount = (env: SampleEnv) => {
  env.keep.unmount("cloudA");
  env.keep.mount("cloudA", "cloudA");
};

/** A directory with one file, for a configuration version. */
function serviceConfigurationDirectory(env: SampleEnv, name: string): string {
  const dir = path.join(env.scratch, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "main.tf"), `# ${name}\n`);
  return dir;
}

/** Cancels a rekey attempt an earlier case left waiting, so each case starts from none. */
/**
 * Every rekey case starts from the same seal (5 shares, threshold 3) with no attempt under way: the
 * number of share submissions a rekey makes is the threshold, so a case after another rekey would
 * otherwise send other requests than the clean run it is compared with.
 */
async function freshSeal(env: SampleEnv): Promise<void> {
  await fetch(`${env.keep.url}/v1/sys/rekey/init`, { method: "DELETE", headers: { "X-Keep-Token": env.keep.rootToken } });
  await env.keep.seal.initialize({ shares: 5, threshold: 3 });
}

type Topology = "none" | "primary" | "pair";

/** The replication clusters of the services, or a clear failure when the lane has none. */
function clustersOf(env: SampleEnv): { main: KeepCluster; dr: KeepCluster } {
  if (!env.clusters) throw new Error("replication samples need the services' clusters (SampleEnv.clusters)");
  return env.clusters;
}

/**
 * Puts the clusters in a known replication state, out of band: both disabled; or "main" a primary;
 * or "main" a primary with "dr" its secondary (ID "dr"), streaming.
 */
function replicationTopology(topology: Topology) {
  return (env: SampleEnv): void => {
    const { main, dr } = clustersOf(env);
    for (const node of [dr.replication, main.replication]) {
      if (node.mode === "secondary") node.disableSecondary();
      else if (node.mode === "primary") node.disablePrimary();
    }
    if (topology === "none") return;
    main.replication.enablePrimary(undefined);
    if (topology === "primary") return;
    dr.replication.enableSecondary(activationToken(env, "dr"), main.url, "", "");
  };
}

/** Both clusters out of replication: every case starts so, whatever the one before it left. */
export const clustersOutOfReplication = replicationTopology("none");

/** A fresh activation token of "main" for secondary `id`. */
function activationToken(env: SampleEnv, id: string): string {
  const { main } = clustersOf(env);
  return main.replication.issueToken(id, "30m", "", main.rootToken).token;
}

/** A prerequisite: a resource of the dynamic door, by its short type. */
function prerequisite(type: string, name: string, inputs: Record<string, unknown>, dependsOn?: string[]): DeclaredResource {
  const found = registeredResources.find(({ spec }) => shortTypeOf(tokenOf(spec)) === type);
  if (!found) throw new Error(`${type} is not a registered resource type`);
  return { door: "dynamic", type, path: found.path, name, inputs, ...(dependsOn ? { dependsOn } : {}) };
}

/** Triggers run an operation again: the in-place change of every operation. */
const rerun = (inputs: SampleInputs): SampleInputs => ({ ...inputs, triggers: ["again"] });
/** A new name: the replacement of every object its name identifies. */
const renamed = (inputs: SampleInputs): SampleInputs => ({ ...inputs, name: `${inputs.name}-r` });

export const serviceSamples: Record<string, ServiceSample> = {
  "keep:AclPolicy": {
    inputs: (_env, name) => ({ name, policy: ACL_RULES }),
    change: (i) => ({ ...i, policy: ACL_RULES.replace('"read"', '"read", "list"') }),
    replacement: renamed,
  },
  "keep:RgpPolicy": {
    inputs: (_env, name) => ({ name, policy: SENTINEL_RULE, enforcementLevel: "soft-mandatory" }),
    change: (i) => ({ ...i, policy: SENTINEL_RULE_B, enforcementLevel: "hard-mandatory" }),
    replacement: renamed,
  },
  "keep:EgpPolicy": {
    inputs: (_env, name) => ({ name, policy: SENTINEL_RULE, enforcementLevel: "soft-mandatory", paths: ["secret/*"] }),
    change: (i) => ({ ...i, paths: ["secret/*", "sys/*"] }),
    replacement: renamed,
  },
  "keep:SyncConfig": {
    inputs: () => ({ disabled: false, queueCapacity: 5000 }),
    change: (i) => ({ ...i, queueCapacity: 6000 }),
  },
  "keep:SyncCloudASmDestination": {
    inputs: (_env, name) => ({ name, region: "eu-west-1", accessKeyId: "AKIA1", secretAccessKey: "secret-1", customTags: { team: "a" } }),
    change: (i) => ({ ...i, region: "us-east-2" }),
    replacement: renamed,
  },
  "keep:SyncCloudBKvDestination": {
    inputs: (_env, name) => ({ name, keyVaultUri: "https://vault-1.vault.example.net/", clientId: "client-1", clientSecret: "cs-1", tenantId: "tenant-1" }),
    change: (i) => ({ ...i, tenantId: "tenant-2" }),
    replacement: renamed,
  },
  "keep:SyncCloudCSmDestination": {
    inputs: (_env, name) => ({ name, credentials: CLOUD_C_CREDENTIALS, projectId: "proj-2" }),
    change: (i) => ({ ...i, projectId: "proj-3" }),
    replacement: renamed,
  },
  "keep:SyncRepoHostDestination": {
    inputs: (_env, name) => ({ name, accessToken: "token-1", repositoryOwner: "acme", repositoryName: "web" }),
    change: (i) => ({ ...i, repositoryName: "api" }),
    replacement: renamed,
  },
  "keep:SyncWebHostProjectDestination": {
    inputs: (_env, name) => ({ name, accessToken: "token-1", projectId: "prj_1", deploymentEnvironments: ["production"] }),
    change: (i) => ({ ...i, deploymentEnvironments: ["preview", "production"], teamId: "team_1" }),
    replacement: renamed,
  },
  "keep:SyncAssociation": {
    prerequisites: (_env, name) => ({
      resources: [
        prerequisite("keep:KvSecret", `${name}-secret`, { path: `${name}/db`, data: { user: "app" } }),
        prerequisite("keep:KvSecret", `${name}-other`, { path: `${name}/cache`, data: { user: "app" } }),
        prerequisite("keep:SyncCloudASmDestination", `${name}-dest`, { name: `${name}-dest`, region: "eu-west-1" }),
      ],
      outputs: { secretName: [`${name}-secret`, "path"], otherSecretName: [`${name}-other`, "path"], destinationName: [`${name}-dest`, "name"] },
    }),
    inputs: (_env, _name, pre) => ({ destinationType: "cloudA-sm", destinationName: pre.destinationName, mount: "secret", secretName: pre.secretName }),
    // Another secret: the new association is set, then the old one removed.
    replacement: (i, _env, pre) => ({ ...i, secretName: pre.otherSecretName }),
    unchangeable: "an association has no setting: every input names what it links, and changing one replaces it",
  },
  "keep:SyncRepoHostApp": {
    inputs: (_env, name) => ({ name, appId: 9, privateKey: repoHostAppKeys()[0] }),
    change: (i) => ({ ...i, appId: 10, privateKey: repoHostAppKeys()[1] }),
    replacement: renamed,
  },
  "keep:KvSecret": {
    inputs: (_env, name) => ({ path: `${name}/config`, data: { user: "app", password: "pw-1" } }),
    change: (i) => ({ ...i, data: { user: "app", password: "pw-2" } }),
    replacement: (i) => ({ ...i, path: `${i.path}-r` }),
  },
  "keep:TransformAlphabet": {
    prepare: transformMount,
    inputs: (_env, name) => ({ name, alphabet: "0123456789abcdef" }),
    change: (i) => ({ ...i, alphabet: "0123456789ABCDEF" }),
    replacement: renamed,
  },
  "keep:TransformTemplate": {
    prepare: transformMount,
    inputs: (_env, name) => ({ name, pattern: "(\\d{4})-?(\\d{4})", alphabet: "builtin/numeric", encodeFormat: "$1-$2" }),
    change: (i) => ({ ...i, decodeFormats: { last: "$2" } }),
    replacement: renamed,
  },
  "keep:TransformTransformation": {
    prepare: transformMount,
    inputs: (_env, name) => ({ name, type: "fpe", template: "builtin/creditcardnumber", tweakSource: "internal", allowedRoles: ["payments"] }),
    change: (i) => ({ ...i, allowedRoles: ["payments", "audit"] }),
    replacement: renamed,
  },
  "keep:TransformRole": {
    prepare: transformMount,
    inputs: (_env, name) => ({ name, transformations: ["card"] }),
    change: (i) => ({ ...i, transformations: ["card", "tokens"] }),
    replacement: renamed,
  },
  "keep:TransformStore": {
    prepare: transformMount,
    inputs: (env, name) => ({ name, driver: "postgres", connectionString: env.postgresConnectionString, username: "tokens", password: "pw" }),
    change: (i) => ({ ...i, maxOpenConnections: 7 }),
    replacement: renamed,
  },
  "keep:TransformStoreSchema": {
    prepare: transformMount,
    prerequisites: (env, name) => ({
      resources: [
        prerequisite("keep:TransformStore", `${name}-store`, { name: `${name}-store`, driver: "postgres", connectionString: env.postgresConnectionString, username: "tokens", password: "pw" }),
      ],
      outputs: { store: [`${name}-store`, "name"] },
    }),
    inputs: (_env, _name, pre) => ({ store: pre.store, username: "admin", password: "ddl-password" }),
    change: rerun,
  },
  "keep:TransformEncodedValue": {
    prepare: transformMount,
    prerequisites: (_env, name) => ({
      resources: [
        prerequisite("keep:TransformTransformation", `${name}-card`, { name: `${name}-card`, type: "fpe", template: "builtin/creditcardnumber", tweakSource: "internal", allowedRoles: [`${name}-role`] }),
        prerequisite("keep:TransformRole", `${name}-role`, { name: `${name}-role`, transformations: [`${name}-card`] }, [`${name}-card`]),
      ],
      outputs: { role: [`${name}-role`, "name"], transformation: [`${name}-card`, "name"] },
    }),
    inputs: (_env, _name, pre) => ({ role: pre.role, transformation: pre.transformation, value: "4111-1111-1111-1111" }),
    change: (i) => ({ ...i, value: "5555-5555-5555-4444" }),
  },
  "keep:CloudRootConfig": {
    prepare: freshCloudMount,
    inputs: () => ({ accessKey: "AKIADECLARED0000001", secretKey: "root-secret", region: "eu-west-1", maxRetries: 5 }),
    change: (i) => ({ ...i, region: "us-east-2" }),
  },
  "keep:CloudLeaseConfig": {
    prepare: freshCloudMount,
    inputs: () => ({ lease: "1h", leaseMax: "24h" }),
    change: (i) => ({ ...i, lease: "2h" }),
  },
  "keep:CloudRole": {
    prepare: cloudMount,
    inputs: (_env, name) => ({ name, credentialType: "assumed_role", roleArns: [ROLE_ARN], defaultStsTtl: "15m", maxStsTtl: "2h" }),
    change: (i) => ({ ...i, maxStsTtl: "3h" }),
    replacement: renamed,
  },
  "keep:CloudRotateRoot": {
    prepare: freshCloudMount,
    prerequisites: (_env, name) => {
      // A rotation revokes the key it replaces for good: each case declares a key of its own.
      const accessKey = `AKIA${name.toUpperCase().replace(/[^A-Z0-9]/g, "")}`.padEnd(20, "0").slice(0, 20);
      return { resources: [prerequisite("keep:CloudRootConfig", `${name}-root`, { accessKey, secretKey: "declared-secret" })], outputs: { mount: [`${name}-root`, "mount"] } };
    },
    inputs: (_env, _name, pre) => ({ mount: pre.mount }),
    change: rerun,
  },
  "keep:CloudCredentials": {
    prepare: freshCloudMount,
    prerequisites: (_env, name) => ({
      resources: [
        prerequisite("keep:CloudRootConfig", `${name}-root`, { accessKey: "AKIADECLAREDCREDS001", secretKey: "declared-secret" }),
        prerequisite("keep:CloudRole", `${name}-role`, { name: `${name}-role`, credentialType: "assumed_role", roleArns: [ROLE_ARN] }),
      ],
      outputs: { role: [`${name}-role`, "name"] },
    }),
    inputs: (_env, _name, pre) => ({ role: pre.role, roleArn: ROLE_ARN, ttl: "1h" }),
    change: (i) => ({ ...i, ttl: "2h" }),
  },
  "keep:Rekey": {
    prepare: freshSeal,
    inputs: (env) => ({ secretShares: 3, secretThreshold: 2, unsealKeys: env.keep.seal.shares().keys, acceptSharesInState: true }),
    // The shares of the last rekey: the first run replaced the ones the inputs held.
    change: (i, env) => ({ ...i, secretShares: 4, unsealKeys: env.keep.seal.shares().keys }),
  },
  "keep:RekeyVerify": {
    prepare: freshSeal,
    prerequisites: async (env, name) => {
      const pairs = await pgpKeys();
      const unsealKeys = env.keep.seal.shares().keys;
      return {
        resources: [prerequisite("keep:Rekey", `${name}-rekey`, { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), requireVerification: true, unsealKeys })],
        outputs: { nonce: [`${name}-rekey`, "verificationNonce"], encrypted: [`${name}-rekey`, "encryptedKeysBase64"] },
      };
    },
    inputs: async (_env, _name, pre) => {
      const pairs = await pgpKeys();
      const keys = await Promise.all((pre.encrypted as string[]).map((b64, i) => decryptShare(b64, pairs[i])));
      return { nonce: pre.nonce, keys: keys.slice(0, 2) };
    },
    unchangeable: "a verification completes its rekey once: there is nothing left to verify again",
  },
  "keep:RekeyBackupDeletion": {
    prepare: freshSeal,
    prerequisites: async (env, name) => {
      const pairs = await pgpKeys();
      const unsealKeys = env.keep.seal.shares().keys;
      return {
        resources: [prerequisite("keep:Rekey", `${name}-rekey`, { secretShares: 3, secretThreshold: 2, pgpKeys: pairs.map((p) => p.publicKey), backup: true, unsealKeys })],
        outputs: { nonce: [`${name}-rekey`, "nonce"] },
      };
    },
    inputs: (_env, _name, pre) => ({ nonce: pre.nonce, confirmSharesReceived: true }),
    change: rerun,
  },
  "workspaces:Workspace": {
    inputs: (_env, name) => ({ name, description: "first" }),
    change: (i) => ({ ...i, description: "second", autoApply: true }),
    // The source is set on creation only; the new name keeps the two apart while both exist.
    replacement: (i) => ({ ...i, name: `${i.name}-r`, sourceName: "keepstack" }),
  },
  "workspaces:ConfigurationVersion": {
    prerequisites: (_env, name) => ({ resources: [prerequisite("workspaces:Workspace", `${name}-ws`, { name: `${name}-ws` })], outputs: { workspaceId: [`${name}-ws`, "id"] } }),
    inputs: (env, name, pre) => ({ workspaceId: pre.workspaceId, directory: serviceConfigurationDirectory(env, name) }),
    change: (i) => ({ ...i, uploadTimeoutSeconds: 90 }),
    // Other files: a new version is uploaded, then the old one archived.
    replacement: (i, env) => ({ ...i, directory: serviceConfigurationDirectory(env, `${path.basename(String(i.directory))}-r`) }),
  },
  "mesh:Partition": {
    inputs: (_env, name) => ({ name, description: "first" }),
    change: (i) => ({ ...i, description: "second" }),
    replacement: renamed,
  },
  // Replication: each case starts from the clusters' modes its transition needs.
  "keep:ReplicationPrimaryEnable": {
    prepare: replicationTopology("none"),
    inputs: () => ({ primaryClusterAddr: "https://main.example:8201" }),
    change: rerun,
  },
  "keep:ReplicationPrimaryDemote": {
    prepare: replicationTopology("primary"),
    inputs: () => ({}),
    change: rerun,
  },
  "keep:ReplicationPrimaryDisable": {
    prepare: replicationTopology("primary"),
    inputs: () => ({ acceptSecondariesDisconnected: true }),
    change: rerun,
  },
  "keep:ReplicationSecondaryToken": {
    prepare: replicationTopology("primary"),
    inputs: (_env, name) => ({ secondaryId: name, ttl: "30m", revokeOnDestroy: true }),
    change: rerun,
  },
  "keep:ReplicationSecondaryEnable": {
    prepare: replicationTopology("primary"),
    inputs: (env, name) => ({ token: activationToken(env, name), acceptDataWipe: true, cluster: "dr" }),
    change: rerun,
  },
  "keep:ReplicationSecondaryPromote": {
    prepare: replicationTopology("pair"),
    inputs: () => ({ force: true, acceptDataLoss: true, cluster: "dr" }),
    change: rerun,
  },
  "keep:ReplicationSecondaryDisable": {
    prepare: replicationTopology("pair"),
    inputs: () => ({ acceptDisconnection: true, cluster: "dr" }),
    change: rerun,
  },
  "keep:ReplicationUpdatePrimary": {
    prepare: replicationTopology("pair"),
    inputs: (env, name) => ({ token: activationToken(env, name), cluster: "dr" }),
    change: rerun,
  },
  "keep:ReplicationRevokeSecondary": {
    prepare: replicationTopology("pair"),
    inputs: () => ({ secondaryId: "dr" }),
    change: rerun,
  },
  "keep:ReplicationPathsFilter": {
    prepare: replicationTopology("pair"),
    inputs: (env) => ({ secondaryClusterId: clustersOf(env).dr.replication.clusterId, mode: "deny", paths: ["transform/"] }),
    change: (i) => ({ ...i, paths: ["transform/", "secret/"] }),
  },
};

/** The service sample of a type (`keep:AclPolicy`) or token; fails, saying what to do, when the type has none. */
export function serviceSampleOf(type: string): ServiceSample {
  type = type.replace(/^pulumi-nodejs:dynamic\//, "");
  const sample = serviceSamples[type];
  if (!sample) throw new Error(`add a sample for ${type} in tests/support/samples.ts`);
  return sample;
}
