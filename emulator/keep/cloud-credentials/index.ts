/**
 * Cloud-credentials engine of the secrets service emulator, type `cloudA`, mounted anywhere
 * (`keep.mount("cloudA", "cloudA")`): the root configuration (its secret key never read back),
 * root rotation with the provider's eventual consistency, lease configuration, roles with every
 * rule of the role table, and credentials per credential type through `creds/` and `sts/` with
 * usernames from the configured template.
 *
 * Register it on a keep emulator with `startKeepEmulator({ register: registerCloudCredentialsEngine })`.
 */
import { randomBytes } from "node:crypto";
import { durationSeconds } from "../../../resources/keep/transform/duration";
import { DEFAULT_USERNAME_TEMPLATE, TemplateError, parseUsernameTemplate } from "../../../resources/keep/cloud/username-template";
import { addCollection } from "../collection";
import { RequestBody, readString } from "../fields";
import { KeepError, badRequest, engineReply, notFound } from "../replies";
import type { KeepRequest, KeepRouter } from "../router";
import type { KeepMount, KeepState } from "../state";
import { ACCOUNT_ID, CallFailure, CloudSettings, FakeCloud, GeneratedIdentity, ROOT_USER, newAccessKeyId, newSecretKey } from "./cloud";
import { CredentialType, StoredRole, parseRole, viewRole } from "./roles";

export type { StoredRole } from "./roles";
export type { AccessKey, GeneratedIdentity, CloudSettings } from "./cloud";
export { ROOT_USER } from "./cloud";

export const CLOUD_CREDENTIALS_ENGINE = "cloudA";

/** Kinds stored in the mount: `config` (names `root`, `lease`) and `roles`. */
export const CLOUD_KINDS = { config: "config", role: "roles" } as const;

export interface StoredRootConfig {
  access_key: string;
  secret_key: string;
  region: string;
  iam_endpoint: string;
  sts_endpoint: string;
  max_retries: number;
  username_template: string;
}

export interface StoredLease {
  /** Seconds. */
  lease: number;
  lease_max: number;
}

/** The mount's lease when none is configured: the service's default of 768h. */
const DEFAULT_LEASE_SECONDS = 2764800;
/** The provider's bounds of STS durations. */
const STS_MIN_SECONDS = 900;
const STS_MAX_SECONDS: Record<string, number> = { assumed_role: 43200, federation_token: 129600 };
/** Display name of the caller's token: the emulator's tokens are all root tokens. */
const DISPLAY_NAME = "root";

const settingsOf = (state: KeepState) => state.moduleState<CloudSettings>("cloud.settings", () => ({ consistencyWindowMs: 2000 }));
const cloudOf = (state: KeepState, mount: KeepMount) => mount.moduleState("cloud.provider", () => new FakeCloud(settingsOf(state)));

/** Go's time.Duration text of whole seconds: `1h0m0s`, `1m30s`, `45s`. */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

function readDuration(body: RequestBody, field: string, options: { required?: boolean } = {}): number | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === "") {
    if (options.required) throw badRequest(`'${field}' parameter not supplied or empty`);
    return undefined;
  }
  const seconds = typeof value === "number" || typeof value === "string" ? durationSeconds(value) : undefined;
  if (seconds === undefined) throw badRequest(`invalid ${field}: ${JSON.stringify(value)} is not a duration ('h' is the largest unit)`);
  return Math.floor(seconds);
}

function readInt(body: RequestBody, field: string, fallback: number): number {
  const value = body[field];
  if (value === undefined || value === null || value === "") return fallback;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n)) throw badRequest(`'${field}' must be an integer`);
  return n;
}

const rootOf = (mount: KeepMount) => mount.store.get<StoredRootConfig>(CLOUD_KINDS.config, "root");

/** A failure of a provider call, answered as the service does: a 400 for credentials, a 500 for a rotation step. */
function providerError(state: KeepState, failure: CallFailure, prefix: string, status: number): KeepError {
  const windowStatus = failure.consistency ? settingsOf(state).consistencyStatus : undefined;
  const requestId = randomBytes(16).toString("hex");
  const detail = failure.status ? `\n\tstatus code: ${failure.status}, request id: ${requestId}` : "";
  return new KeepError(windowStatus ?? status, [`${prefix}: ${failure.code}: ${failure.message}${detail}`]);
}

/** A username from the configured template; one over the provider's limit is a 500, as in the service. */
function generateUsername(mount: KeepMount, type: "IAM" | "STS", policyName: string): string {
  const template = rootOf(mount)?.username_template || DEFAULT_USERNAME_TEMPLATE;
  let name: string;
  try {
    name = parseUsernameTemplate(template).render({ Type: type, DisplayName: DISPLAY_NAME.replace(/[^a-zA-Z0-9+=,.@_-]/g, "_"), PolicyName: policyName.replace(/[^a-zA-Z0-9+=,.@_-]/g, "_") });
  } catch (e) {
    throw new KeepError(500, [`failed to generate username: ${(e as Error).message}`]);
  }
  const limit = type === "IAM" ? 64 : 32;
  if (name.length > limit) {
    throw new KeepError(500, [`the username generated by the template exceeds the ${type} username length limits of ${limit} chars`]);
  }
  return name;
}

const random = (n: number) => randomBytes(n).toString("base64url").slice(0, n);

/** `creds/:name` (GET, query) and `sts/:name` (POST, body): credentials of the role's type. */
function generateCredentials(request: KeepRequest, via: "creds" | "sts") {
  const { mount, state } = request;
  const name = request.params.name;
  const params = via === "creds" ? { ...request.body, ...request.query } : request.body;
  const role = mount.store.get<StoredRole>(CLOUD_KINDS.role, name);
  if (!role) throw badRequest(`role "${name}" not found`);
  if (role.invalid_data) throw badRequest(`role "${name}" holds invalid data from an earlier version; write the role again`);

  const allowed: CredentialType[] = via === "creds" ? role.credential_types : role.credential_types.filter((t) => t !== "iam_user");
  const requested = readString(params, "credential_type") as CredentialType | undefined;
  let type: CredentialType | undefined;
  if (requested) {
    if (!allowed.includes(requested)) throw badRequest(`requested credential type ${requested} not in allowed credential types ${JSON.stringify(allowed)}`);
    type = requested;
  } else if (via === "creds" && role.credential_types.length > 1) {
    // Legacy roles hold two types: creds/ gives IAM users, sts/ federation tokens.
    type = role.credential_types.includes("iam_user") ? "iam_user" : role.credential_types[0];
  } else {
    type = allowed[0];
  }
  if (!type) throw badRequest(`role "${name}" has only credential type iam_user, which sts/ does not give: use creds/${name}`);

  const ttlGiven = readDuration(params, "ttl");
  if (type === "iam_user" && ttlGiven !== undefined) throw badRequest("ttl is valid only with credential types assumed_role and federation_token");

  const root = rootOf(mount);
  const cloud = cloudOf(state, mount);
  const leaseId = `${mount.path}/${via}/${name}/${random(24)}`;

  if (type === "iam_user") {
    const failure = cloud.check(root?.access_key, root?.secret_key);
    if (failure) throw providerError(state, failure, "Error creating IAM user", 400);
    const username = generateUsername(mount, "IAM", name);
    const key = { id: newAccessKeyId(), secret: newSecretKey() };
    const arn = `arn:aws:iam::${ACCOUNT_ID}:user${role.user_path || "/"}${username}`;
    cloud.keys.set(key.id, { id: key.id, secret: key.secret, user: username, usableAt: 0 });
    cloud.generated.push({
      kind: "iam_user",
      name: username,
      arn,
      accessKey: key.id,
      path: role.user_path || "/",
      groups: [...role.iam_groups],
      tags: { ...role.iam_tags },
      policyArns: [...role.policy_arns],
      policyDocument: role.policy_document,
      permissionsBoundaryArn: role.permissions_boundary_arn || undefined,
    });
    const lease = mount.store.get<StoredLease>(CLOUD_KINDS.config, "lease");
    return engineReply({ access_key: key.id, secret_key: key.secret, security_token: null, arn }, mount.type, {
      leaseId,
      leaseDuration: lease?.lease ?? DEFAULT_LEASE_SECONDS,
      renewable: true,
    });
  }

  let ttl = ttlGiven ?? (role.default_sts_ttl || 3600);
  if (role.max_sts_ttl > 0) ttl = Math.min(ttl, role.max_sts_ttl);
  const stsPrefix = type === "assumed_role" ? "Error assuming role" : "Error generating STS keys";
  if (ttl < STS_MIN_SECONDS || ttl > STS_MAX_SECONDS[type]) {
    throw badRequest(`${stsPrefix}: ValidationError: DurationSeconds must be between ${STS_MIN_SECONDS} and ${STS_MAX_SECONDS[type]} (got ${ttl})`);
  }

  let identity: GeneratedIdentity;
  const keyId = newAccessKeyId("ASIA");
  if (type === "assumed_role") {
    let roleArn = readString(params, "role_arn");
    if (roleArn === undefined) {
      if (role.role_arns.length !== 1) throw badRequest(`role_arn must be supplied: role "${name}" allows ${role.role_arns.length} role ARNs`);
      roleArn = role.role_arns[0];
    } else if (!role.role_arns.includes(roleArn)) {
      throw badRequest(`role_arn "${roleArn}" is not one of the ARNs role "${name}" allows`);
    }
    const given = readString(params, "role_session_name");
    const session = given !== undefined ? given.replace(/[^a-zA-Z0-9+=,.@_-]/g, "_").slice(0, 64) : generateUsername(mount, "IAM", name);
    const failure = cloud.check(root?.access_key, root?.secret_key);
    if (failure) throw providerError(state, failure, stsPrefix, 400);
    const roleName = roleArn.split("/").pop() ?? roleArn;
    identity = { kind: "assumed_role", name: session, arn: `arn:aws:sts::${ACCOUNT_ID}:assumed-role/${roleName}/${session}`, accessKey: keyId };
  } else {
    const failure = cloud.check(root?.access_key, root?.secret_key);
    if (failure) throw providerError(state, failure, stsPrefix, 400);
    const username = generateUsername(mount, "STS", name);
    identity = { kind: "federation_token", name: username, arn: `arn:aws:sts::${ACCOUNT_ID}:federated-user/${username}`, accessKey: keyId };
  }
  cloud.generated.push(identity);
  return engineReply({ access_key: keyId, secret_key: newSecretKey(), security_token: random(120), arn: identity.arn }, mount.type, {
    leaseId,
    leaseDuration: ttl,
    renewable: false,
  });
}

/** Registers the engine's routes; `keep.mount(path, "cloudA")` makes them reachable. */
export function registerCloudCredentialsEngine(router: KeepRouter): void {
  // Every emulator has it; tests that also pass it as `register` get the same engine.
  if (router.hasEngine(CLOUD_CREDENTIALS_ENGINE)) return;
  const engine = router.engine(CLOUD_CREDENTIALS_ENGINE, { summary: "The cloud-credentials secrets engine: IAM users, assumed roles and federation tokens on demand." });

  engine.add({
    path: "config/root",
    summary: "The root credentials the engine manages the provider with.",
    operations: {
      read: {
        summary: "Read the root configuration (never the secret key).",
        handler: ({ mount }) => {
          const root = rootOf(mount);
          if (!root) return;
          const { access_key, region, iam_endpoint, sts_endpoint, max_retries } = root;
          return engineReply({ access_key, region: region || "us-east-1", iam_endpoint, sts_endpoint, max_retries }, mount.type);
        },
      },
      write: {
        summary: "Write the root configuration; it replaces the whole configuration.",
        handler: ({ mount, body, state }) => {
          const template = readString(body, "username_template") ?? "";
          if (template) {
            try {
              parseUsernameTemplate(template);
            } catch (e) {
              if (e instanceof TemplateError) throw badRequest(`unable to initialize username template: ${e.message}`);
              throw e;
            }
          }
          const root: StoredRootConfig = {
            access_key: readString(body, "access_key", { required: true }),
            secret_key: readString(body, "secret_key", { required: true }),
            region: readString(body, "region") ?? "",
            iam_endpoint: readString(body, "iam_endpoint") ?? "",
            sts_endpoint: readString(body, "sts_endpoint") ?? "",
            max_retries: readInt(body, "max_retries", -1),
            username_template: template,
          };
          cloudOf(state, mount).learn(root.access_key, root.secret_key);
          mount.store.put(CLOUD_KINDS.config, "root", root);
        },
      },
    },
  });

  engine.add({
    path: "config/rotate-root",
    summary: "Replace the root access key with a new one; the old key is deleted.",
    operations: {
      write: {
        summary: "Rotate the root credentials.",
        status: 200,
        handler: ({ mount, state }) => {
          const root = rootOf(mount);
          if (!root || !root.access_key || !root.secret_key) throw badRequest("Cannot call config/rotate-root when either access_key or secret_key is empty");
          const cloud = cloudOf(state, mount);
          const failure = cloud.check(root.access_key, root.secret_key);
          if (failure) throw providerError(state, failure, "error calling GetUser", 500);
          const user = cloud.keys.get(root.access_key)?.user ?? ROOT_USER;
          const created = cloud.createKey(user, settingsOf(state).consistencyWindowMs);
          if ("code" in created) throw providerError(state, created, "error calling CreateAccessKey", 500);
          const old = root.access_key;
          mount.store.put(CLOUD_KINDS.config, "root", { ...root, access_key: created.id, secret_key: created.secret });
          cloud.deleteKey(old);
          return engineReply({ access_key: created.id }, mount.type);
        },
      },
    },
  });

  engine.add({
    path: "config/lease",
    summary: "Lease settings of generated IAM users.",
    operations: {
      read: {
        summary: "Read the lease settings as normalised durations.",
        handler: ({ mount }) => {
          const lease = mount.store.get<StoredLease>(CLOUD_KINDS.config, "lease");
          if (!lease) return;
          return engineReply({ lease: goDuration(lease.lease), lease_max: goDuration(lease.lease_max) }, mount.type);
        },
      },
      write: {
        summary: "Write the lease settings.",
        handler: ({ mount, body }) => {
          const lease = readDuration(body, "lease", { required: true })!;
          const leaseMax = readDuration(body, "lease_max", { required: true })!;
          mount.store.put(CLOUD_KINDS.config, "lease", { lease, lease_max: leaseMax } satisfies StoredLease);
        },
      },
    },
  });

  addCollection<StoredRole>(engine, {
    path: CLOUD_KINDS.role,
    label: "cloud-credentials role",
    parse: (body, { existing }) => parseRole(body, existing),
    view: (role) => viewRole(role),
    // A missing role is a 404 on delete too.
    beforeDelete: (name, request) => {
      if (!request.mount.store.has(CLOUD_KINDS.role, name)) throw notFound();
    },
  });

  engine.add({
    path: "creds/:name",
    summary: "Credentials of a role.",
    params: { name: "Name of the role." },
    operations: {
      read: { summary: "Generate credentials.", handler: (request) => generateCredentials(request, "creds") },
      write: { summary: "Generate credentials.", status: 200, handler: (request) => generateCredentials(request, "creds") },
    },
  });

  engine.add({
    path: "sts/:name",
    summary: "STS credentials of a role.",
    params: { name: "Name of the role." },
    operations: {
      read: { summary: "Generate STS credentials.", handler: (request) => generateCredentials(request, "sts") },
      write: { summary: "Generate STS credentials.", status: 200, handler: (request) => generateCredentials(request, "sts") },
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Out-of-band access for tests.

export interface CloudMountRef {
  /** Namespace path; the root when absent. */
  namespace?: string;
  /** Where the engine is mounted ("cloudA" when absent). */
  mount?: string;
}

/** Tests' view of the cloud provider behind the engines of an emulator. */
export interface CloudCredentialsAccess {
  /** Settings shared by every mount: the eventual-consistency window after a rotation. */
  settings: CloudSettings;
  /** Access keys of the user the engine's root access key belongs to. */
  rootKeys(ref?: CloudMountRef): string[];
  /** Gives that user another access key, as someone working in the provider's console would. */
  addRootKey(ref?: CloudMountRef): string;
  /** Deletes an access key at the provider. */
  deleteKey(id: string, ref?: CloudMountRef): boolean;
  /** Whether the provider accepts calls signed with this access key now. */
  isKeyUsable(id: string, ref?: CloudMountRef): boolean;
  /** Makes every key usable now, as the provider becoming consistent would. */
  settle(ref?: CloudMountRef): void;
  /** Users and sessions credentials were generated for, oldest first. */
  generated(ref?: CloudMountRef): GeneratedIdentity[];
  /** The stored root configuration, secret key included. */
  rootConfig(ref?: CloudMountRef): StoredRootConfig | undefined;
}

/** Out-of-band access to the cloud-credentials engines of an emulator (`startKeepEmulator()`'s `state`). */
export function cloudCredentialsAccess(state: KeepState): CloudCredentialsAccess {
  const locate = (ref: CloudMountRef = {}) => {
    const mount = state.requireMount(state.requireNamespace(ref.namespace), ref.mount ?? "cloudA");
    const cloud = cloudOf(state, mount);
    // The user of the configured key: the one a rotation acts on.
    const user = cloud.keys.get(rootOf(mount)?.access_key ?? "")?.user ?? ROOT_USER;
    return { mount, cloud, user };
  };
  return {
    settings: settingsOf(state),
    rootKeys: (ref) => {
      const { cloud, user } = locate(ref);
      return cloud.keysOf(user).map((k) => k.id);
    },
    addRootKey: (ref) => {
      const { cloud, user } = locate(ref);
      const created = cloud.createKey(user, 0);
      if ("code" in created) throw new Error(`keep emulator: ${created.code}: ${created.message}`);
      return created.id;
    },
    deleteKey: (id, ref) => locate(ref).cloud.deleteKey(id),
    isKeyUsable: (id, ref) => {
      const { cloud } = locate(ref);
      return cloud.check(id, cloud.keys.get(id)?.secret) === undefined;
    },
    settle: (ref) => locate(ref).cloud.settle(),
    generated: (ref) => structuredClone(locate(ref).cloud.generated),
    rootConfig: (ref) => {
      const root = rootOf(locate(ref).mount);
      return root && structuredClone(root);
    },
  };
}
