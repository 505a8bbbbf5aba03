/**
 * The secrets service's contract (`/v1`), in the service's own field names: first the objects at a
 * path (`objectAt`: the rows `keepObject` sends), then the calls and one-shot operations. Its answers
 * are bare or inside the `data` envelope; the client reads both (`KeepClient.send`), so a schema here
 * describes the fields themselves.
 */
import { z } from "zod";
import { Endpoint, endpoint, fieldsOf, listOf, readBy } from "../contract";

/** The query of a LIST, which the service takes as `GET ?list=true`. */
export const LIST = { list: "true" } as const;

/** The keys of a LIST answer (sent as `GET ?list=true`): names, directories ending in `/`. */
export const listedKeys = z.unknown().transform((body) => {
  const keys = (body as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) ? keys.map(String) : [];
});

/**
 * The four requests of an object at a path, as `keepObject` sends them: read, write (POST, which the
 * service treats as PUT; PATCH for a JSON merge patch), delete and LIST (`GET ?list=true`, a 404 an
 * empty list). An object the package never lists has no `list` row.
 */
export interface ObjectRows<Path extends string = string, WritePath extends string = Path, Fields extends object = {}, Written extends object = {}> {
  read: Endpoint<never, (Record<string, unknown> & Fields) | undefined, "absent", Path>;
  write: Endpoint<never, (Record<string, unknown> & Written) | undefined, "error", WritePath>;
  delete: Endpoint<never, void, "absent", Path>;
  list?: Endpoint<never, string[], "absent">;
}

/**
 * The rows of an object at `path`: its writes go to `write` where the type has its own write route,
 * its LIST to `list` (by default the path without its last segment); `answer` checks and types the
 * read's fields that the package reads itself (the rest go to the object's field table as they are).
 * `written` is the write's answer where the service answers a write with the object, checked as
 * `answer` is; without it the write's answer is not read (the service answers none, or the spec
 * does not show one), and the object is read back when its computed values are wanted.
 */
export function objectAt<Path extends string, WritePath extends string = Path, Fields extends object = {}, Written extends object = {}>(
  path: Path,
  parts: { write?: `${"POST" | "PATCH"} ${WritePath}`; list?: string | false; answer?: z.ZodType<Fields>; written?: z.ZodType<Written> } = {},
): ObjectRows<Path, WritePath, Fields, Written> {
  const listPath = parts.list ?? path.split("/").slice(0, -1).join("/");
  return {
    read: endpoint<Path, never, (Record<string, unknown> & Fields) | undefined, "absent">(`GET ${path}`, { answer: fieldsOf(parts.answer), notFound: "absent" }),
    write: endpoint<WritePath, never, (Record<string, unknown> & Written) | undefined>(
      parts.write ?? (`POST ${path}` as `POST ${WritePath}`),
      parts.written ? { answer: fieldsOf(parts.written) } : {},
    ),
    delete: endpoint<Path, never, void, "absent">(`DELETE ${path}`, { notFound: "absent" }),
    ...(listPath === false ? {} : { list: endpoint(`GET ${listPath}`, { answer: listedKeys, notFound: "absent", query: LIST }) }),
  };
}

/** Policies, by kind. */
export const policies = {
  acl: objectAt("sys/policies/acl/{name}"),
  rgp: objectAt("sys/policies/rgp/{name}"),
  egp: objectAt("sys/policies/egp/{name}"),
};

/** Key-value secrets (version 2): the secret's data; its metadata rows are in `kv` below. */
export const kvSecret = objectAt("{mount*}/data/{path*}", {
  list: false,
  answer: z.object({ metadata: z.object({ version: z.number() }).loose() }).loose(),
  // A write answers the version it made: its metadata, without the data.
  written: z.object({ version: z.number() }).loose(),
});

const syncConfig = z.object({ disabled: z.boolean(), queue_capacity: z.number() });
/** A repository-host app as a read and a write answer it; the private key is not read back. */
const repoHostApp = z.object({ app_id: z.union([z.string(), z.number()]), fingerprint: z.string() }).loose();

/** Secret sync's objects: the configuration (a merge patch), the destinations by type, the repository-host apps. */
export const syncObjects = {
  config: objectAt("sys/sync/config", {
    write: "PATCH sys/sync/config",
    list: false,
    answer: syncConfig,
    written: syncConfig,
  }),
  destinations: {
    "cloudA-sm": objectAt("sys/sync/destinations/cloudA-sm/{name}"),
    "cloudB-kv": objectAt("sys/sync/destinations/cloudB-kv/{name}"),
    "cloudC-sm": objectAt("sys/sync/destinations/cloudC-sm/{name}"),
    repohost: objectAt("sys/sync/destinations/repohost/{name}"),
    "webhost-project": objectAt("sys/sync/destinations/webhost-project/{name}"),
  },
  repoHostApp: objectAt("sys/sync/github-apps/{name}", { list: false, answer: repoHostApp, written: repoHostApp }),
};

/** A performance secondary's paths filter, on the primary. */
export const pathsFilter = objectAt("sys/replication/performance/primary/paths-filter/{secondaryClusterId}", {
  list: false,
  answer: z.object({ mode: z.enum(["allow", "deny"]), paths: z.array(z.string()).nullish() }),
});

/** Lenient readers of a read answer's fields: a value of another type (or none) reads as absent. */
const someText = z.string().nullish().catch(undefined);
const someTexts = z.array(z.string()).nullish().catch(undefined);
const someSeconds = z.number().nullish().catch(undefined);

/** A cloud role as the service reads it back (`credential_type` is written, `credential_types` read). */
const cloudRole = z.object({
  credential_types: someTexts,
  role_arns: someTexts,
  policy_arns: someTexts,
  policy_document: someText,
  iam_groups: someTexts,
  iam_tags: z.record(z.string(), z.string()).nullish().catch(undefined),
  default_sts_ttl: someSeconds,
  max_sts_ttl: someSeconds,
  user_path: someText,
  permissions_boundary_arn: someText,
  /** Role data an earlier version could not upgrade: a legacy string, or an object of fields. */
  invalid_data: z.unknown().optional(),
});

/** The cloud-credentials engine's objects, wherever it is mounted. */
export const cloudObjects = {
  rootConfig: objectAt("{mount*}/config/root", { list: false, answer: z.object({ access_key: z.string(), max_retries: z.number() }).loose() }),
  leaseConfig: objectAt("{mount*}/config/lease", { list: false, answer: z.object({ lease: z.string(), lease_max: z.string() }).loose() }),
  role: objectAt("{mount*}/roles/{name}", { answer: cloudRole }),
};

/** The transform engine's objects, wherever it is mounted. A transformation is read at one route and written at its type's. */
export const transformObjects = {
  role: objectAt("{mount*}/role/{name}"),
  /** Read back, its template is `templates` (a list). */
  transformation: objectAt("{mount*}/transformation/{name}", {
    write: "POST {mount*}/transformations/{type}/{name}",
    answer: z.object({ type: z.string(), templates: z.array(z.string()).nullish().catch(undefined) }),
  }),
  template: objectAt("{mount*}/template/{name*}", { list: "{mount*}/template" }),
  alphabet: objectAt("{mount*}/alphabet/{name*}", { list: "{mount*}/alphabet" }),
  store: objectAt("{mount*}/stores/{name*}", { list: "{mount*}/stores" }),
};

const fingerprints = listOf(z.string());
const keys = listOf(z.string());

/** A rekey attempt: `GET sys/rekey/init`, and the answer of `init` and of an `update` that is not the last. */
const rekeyStatus = z.object({
  started: z.boolean(),
  nonce: z.string(),
  t: z.number().int(),
  n: z.number().int(),
  progress: z.number().int(),
  required: z.number().int(),
  pgp_fingerprints: fingerprints,
  backup: z.boolean().optional().default(false),
  verification_required: z.boolean().optional().default(false),
});

/** The answer of the `update` that reaches the threshold. */
const rekeyCompletion = z.object({
  complete: z.literal(true),
  keys,
  keys_base64: keys,
  nonce: z.string(),
  pgp_fingerprints: fingerprints,
  backup: z.boolean().optional().default(false),
  verification_required: z.boolean().optional().default(false),
  verification_nonce: z.string().optional(),
});

/** A verification in progress: `GET`/`DELETE sys/rekey/verify`, and a `verify` that is not the last. */
const rekeyVerification = z.object({ nonce: z.string(), t: z.number().int(), n: z.number().int(), progress: z.number().int() });
const rekeyVerified = z.object({ nonce: z.string(), complete: z.literal(true) });

const rekeyBackup = z.object({
  nonce: z.string(),
  keys: z.record(z.string(), z.array(z.string())),
  keys_base64: z.record(z.string(), z.array(z.string())).optional(),
});

const rekeyInit = z.strictObject({
  secret_shares: z.number().int(),
  secret_threshold: z.number().int(),
  pgp_keys: z.array(z.string()).optional(),
  backup: z.boolean(),
  require_verification: z.boolean(),
});

const share = z.strictObject({ key: z.string(), nonce: z.string() });

/** An answer that says `complete: true` is read by `done`, any other by `going`. */
const progressOr = <Going, Done>(going: z.ZodType<Going>, done: z.ZodType<Done>) =>
  readBy<Going | Done>((body) => (body.complete === true ? done : going));

export const rekey = {
  status: endpoint("GET sys/rekey/init", { answer: rekeyStatus }),
  /** Writes that move the attempt on are never sent twice on their own: a repeated share is refused, a repeated init meets its own attempt. */
  start: endpoint("PUT sys/rekey/init", { body: rekeyInit, answer: rekeyStatus, once: true }),
  cancel: endpoint("DELETE sys/rekey/init", { notFound: "absent" }),
  submitShare: endpoint("PUT sys/rekey/update", { body: share, answer: progressOr(rekeyStatus, rekeyCompletion), once: true }),
  /** The service answers 400 when no verification is in progress. */
  verification: endpoint("GET sys/rekey/verify", { answer: rekeyVerification }),
  restartVerification: endpoint("DELETE sys/rekey/verify", { answer: rekeyVerification, once: true }),
  submitNewShare: endpoint("PUT sys/rekey/verify", { body: share, answer: progressOr(rekeyVerification, rekeyVerified), once: true }),
  backup: endpoint("GET sys/rekey/backup", { answer: rekeyBackup, notFound: "absent" }),
  deleteBackup: endpoint("DELETE sys/rekey/backup", { notFound: "absent" }),
};

/** Performance replication (`sys/replication/performance/*`). */
const heartbeat = z.string().default("");

const primaryEntry = z.object({
  api_address: z.string(),
  cluster_address: z.string(),
  connection_status: z.string(),
  last_heartbeat: heartbeat,
});

const secondaryEntry = primaryEntry.extend({ node_id: z.string().default("") });

/** The status, by mode (the service adds fields over versions: unknown ones are dropped). */
const replicationStatus = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("disabled") }),
  z.object({
    mode: z.literal("primary"),
    cluster_id: z.string(),
    known_secondaries: listOf(z.string()),
    last_wal: z.number().default(0),
    merkle_root: z.string().default(""),
    secondaries: listOf(secondaryEntry),
  }),
  z.object({
    mode: z.literal("secondary"),
    cluster_id: z.string(),
    known_primary_cluster_addrs: listOf(z.string()),
    last_remote_wal: z.number().default(0),
    merkle_root: z.string().default(""),
    primaries: listOf(primaryEntry),
    primary_cluster_addr: z.string().default(""),
    secondary_id: z.string().default(""),
    state: z.string().default(""),
    connection_error: z.string().optional(),
  }),
]);

/** A wrapped answer's token (`wrap_info`). */
const wrapInfo = z.object({ token: z.string(), accessor: z.string().default(""), ttl: z.number(), creation_time: z.string() });

/**
 * A secondary's activation token: response-wrapped, in the envelope's `wrap_info` (the envelope is
 * the body when its `data` is null); given a secondary's public key, the service sends it as the answer.
 */
const wrapped = z.object({ wrap_info: wrapInfo }).transform((envelope) => envelope.wrap_info);
const activationToken = readBy((body) => ("wrap_info" in body ? wrapped : wrapInfo));

/** A secondary's dynamic filter: the mounts and namespaces kept from it. The service answers an empty body for an unknown secondary. */
const dynamicFilter = fieldsOf(
  z.object({ dynamic_filtered_mounts: listOf(z.string()), dynamic_filtered_namespaces: listOf(z.string()) }),
);

export type ActivationToken = z.output<typeof activationToken>;

const nothing = z.strictObject({});
const connection = { primary_api_addr: z.string().optional(), ca_file: z.string().optional(), ca_path: z.string().optional() };
const activation = z.strictObject({ token: z.string(), ...connection });
const clusterAddress = z.strictObject({ primary_cluster_addr: z.string().optional() });

/** The transitions of the replication table; whether one may be sent again is the caller's decision. */
export const replication = {
  /** Needs no token. */
  status: endpoint("GET sys/replication/performance/status", { answer: replicationStatus }),
  enablePrimary: endpoint("POST sys/replication/performance/primary/enable", { body: clusterAddress }),
  demotePrimary: endpoint("POST sys/replication/performance/primary/demote", { body: nothing }),
  disablePrimary: endpoint("POST sys/replication/performance/primary/disable", { body: nothing }),
  secondaryToken: endpoint("POST sys/replication/performance/primary/secondary-token", {
    body: z.strictObject({ id: z.string(), ttl: z.string().optional(), secondary_public_key: z.string().optional() }),
    answer: activationToken,
  }),
  /** The mounts and namespaces a secondary's dynamic filter holds; an empty answer when there is no such secondary. */
  dynamicFilter: endpoint("GET sys/replication/performance/{side}/dynamic-filter/{id}", { answer: dynamicFilter, notFound: "absent" }),
  revokeSecondary: endpoint("POST sys/replication/performance/primary/revoke-secondary", { body: z.strictObject({ id: z.string() }) }),
  enableSecondary: endpoint("POST sys/replication/performance/secondary/enable", { body: activation }),
  promoteSecondary: endpoint("POST sys/replication/performance/secondary/promote", { body: clusterAddress.extend({ force: z.boolean().optional() }) }),
  disableSecondary: endpoint("POST sys/replication/performance/secondary/disable", { body: nothing }),
  updatePrimary: endpoint("POST sys/replication/performance/secondary/update-primary", { body: activation }),
};

export type ReplicationStatus = z.output<typeof replicationStatus>;
export type RekeyStatus = z.output<typeof rekeyStatus>;
export type RekeyCompletion = z.output<typeof rekeyCompletion>;
export type RekeyVerification = z.output<typeof rekeyVerification>;
export type RekeyBackup = z.output<typeof rekeyBackup>;
export type RekeyInit = z.input<typeof rekeyInit>;

/** Credentials the engine generates (`creds/` and `sts/`). */
const generatedCredentials = z.object({
  access_key: z.string(),
  secret_key: z.string(),
  /** Set for temporary credentials; `null` for an IAM user's. */
  security_token: z.string().nullish(),
  arn: z.string().optional(),
});

export type GeneratedCredentials = z.output<typeof generatedCredentials>;
export type CloudRoleAnswer = z.output<typeof cloudRole>;

/** The cloud-credentials engine's calls, wherever it is mounted (`cloudA` by default); its objects are in `cloudObjects`. */
export const cloud = {
  /** The engine's root configuration, as its object reads it. */
  rootConfig: cloudObjects.rootConfig.read,
  /** A 5xx may come after the key was made: never sent twice on its own. */
  rotateRoot: endpoint("POST {mount*}/config/rotate-root", { body: nothing, answer: z.object({ access_key: z.string().min(1, "must be the new access key") }), once: true }),
  role: cloudObjects.role.read,
  /** Parameters in the query. */
  credentials: endpoint("GET {mount*}/creds/{role}", { answer: generatedCredentials }),
  stsCredentials: endpoint("POST {mount*}/sts/{role}", {
    body: z.strictObject({ role_arn: z.string().optional(), role_session_name: z.string().optional(), ttl: z.string().optional() }),
    answer: generatedCredentials,
  }),
};

const association = z.strictObject({ mount: z.string(), secret_name: z.string() });

/** An association's status, as either side lists it (the service adds fields over versions: unknown ones are dropped). */
const associationStatus = z.object({
  sync_status: z.string().default("UNSYNCED"),
  updated_at: z.string().default(""),
  /** Why the last sync failed. */
  cause: z.string().optional(),
  /** The secret's mount accessor. */
  accessor: z.string().optional(),
});

/** A secret's associations, keyed `<type>/<name>`. */
const secretDestinations = z.object({ associated_destinations: z.record(z.string(), associationStatus).nullish().transform((m) => m ?? {}) });

/** A destination's associations, keyed `<accessor>/<secret_name>`. */
const destinationSecrets = z.object({
  associated_secrets: z
    .record(z.string(), associationStatus.extend({ secret_name: z.string() }))
    .nullish()
    .transform((m) => m ?? {}),
});

/** The LIST of associations: by destination (`<type>/<name>`), the secrets it holds. */
const associationList = z.object({
  key_info: z
    .record(z.string(), listOf(z.object({ mount: z.string(), secret_path: z.string() })))
    .nullish()
    .transform((m) => m ?? {}),
});

export type AssociationStatus = z.output<typeof associationStatus>;

/** Secret sync's associations (its configuration and destinations are objects of the builder). */
export const sync = {
  /** The destinations one secret is associated with: query `mount` and `secret_name`. */
  secretDestinations: endpoint("GET sys/sync/associations/destinations", { answer: secretDestinations, notFound: "absent" }),
  setAssociation: endpoint("POST sys/sync/destinations/{type}/{name}/associations/set", { body: association, answer: destinationSecrets }),
  removeAssociation: endpoint("POST sys/sync/destinations/{type}/{name}/associations/remove", { body: association }),
  /** LIST: `key_info` by destination. */
  associations: endpoint("GET sys/sync/associations", { answer: associationList, notFound: "absent", query: LIST }),
};

/** Key-value secrets (version 2): what the object builder does not send (metadata). */
export const kv = {
  /** Deletes every version and the metadata. */
  deleteMetadata: endpoint("DELETE {mount*}/metadata/{path*}", { notFound: "absent" }),
  /** LIST of a directory: keys, directories ending in `/`. */
  listMetadata: endpoint("GET {mount*}/metadata/{prefix*}", { answer: listedKeys, notFound: "absent", query: LIST }),
  /** The keys at the mount's root (a path never has an empty segment). */
  listMetadataRoot: endpoint("GET {mount*}/metadata/", { answer: listedKeys, notFound: "absent", query: LIST }),
};

/** Namespaces: LIST of the children of the namespace a request names (the `X-Keep-Namespace` header). */
export const namespaces = {
  list: endpoint("GET sys/namespaces", { answer: listedKeys, notFound: "absent", query: LIST }),
  /** One child of the namespace a request names; absent when there is no such namespace. */
  read: endpoint("GET sys/namespaces/{path}", { answer: z.object({ id: z.string().optional(), path: z.string() }), notFound: "absent" }),
};

/**
 * A transform call's answer, one value's or a batch's (`batch_results`, in input order), read as the
 * list of its items.
 */
const resultItems = <Item extends z.ZodType>(item: Item) => {
  const batch = z.object({ batch_results: z.array(item) }).transform((answer) => answer.batch_results);
  const one = item.transform((answer): z.output<Item>[] => [answer]);
  return readBy<z.output<Item>[]>((body) => ("batch_results" in body ? batch : one));
};

const reference = z.string().optional();

/** The items of each call's answer. */
const transformResults = {
  encode: resultItems(z.object({ encoded_value: z.string(), tweak: z.string().optional(), reference })),
  /** One value's plaintext comes as `decoded_value`; a batch item's as `encoded_value`. Both read as `value`. */
  decode: resultItems(
    z
      .object({ decoded_value: z.string().optional(), encoded_value: z.string().optional(), reference })
      .refine((item) => item.decoded_value !== undefined || item.encoded_value !== undefined, "must carry the decoded value (decoded_value, or encoded_value in a batch)")
      .transform((item) => ({ value: (item.decoded_value ?? item.encoded_value)!, reference: item.reference })),
  ),
  validate: resultItems(z.object({ valid: z.boolean(), reference })),
  tokenized: resultItems(z.object({ tokenized: z.boolean(), reference })),
  metadata: resultItems(z.object({ metadata: z.string().nullish().transform((m) => m ?? ""), expiration_time: z.string().nullish(), reference })),
};

/** The transform engine's calls, wherever it is mounted (`transform` by default); bodies are one value or `batch_input`. */
export const transform = {
  encode: endpoint("POST {mount*}/encode/{role}", { answer: transformResults.encode }),
  decode: endpoint("POST {mount*}/decode/{role}", { answer: transformResults.decode }),
  /** A decode to one of the template's named formats. */
  decodeWithFormat: endpoint("POST {mount*}/decode/{role}/{decodeFormat}", { answer: transformResults.decode }),
  validate: endpoint("POST {mount*}/validate/{role}", { answer: transformResults.validate }),
  tokenized: endpoint("POST {mount*}/tokenized/{role}", { answer: transformResults.tokenized }),
  metadata: endpoint("POST {mount*}/metadata/{role}", { answer: transformResults.metadata }),
  /** One page of a tokenization store's values; `continuation` asks for the next, absent at the end. */
  snapshot: endpoint("POST {mount*}/transformations/tokenization/snapshot/{transformation}", {
    body: z.strictObject({ limit: z.number().int().positive().optional(), continuation: z.string().optional() }),
    answer: z.object({ values: listOf(z.string()), continuation: z.string().nullish() }),
  }),
  /** Creates a store's tables. */
  storeSchema: endpoint("POST {mount*}/stores/{store}/schema", {
    body: z.strictObject({ username: z.string(), password: z.string(), transformation_type: z.string() }),
  }),
};

export type TransformResults = { [Call in keyof typeof transformResults]: z.output<(typeof transformResults)[Call]>[number] };
