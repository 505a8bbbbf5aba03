/**
 * The secrets service's contract (`/v1`), in the service's own field names. Its answers are bare or
 * inside the `data` envelope; the client reads both (`KeepClient.send`), so a schema here describes
 * the fields themselves.
 */
import { z } from "zod";
import { endpoint, fieldsOf, listOf } from "../contract";

/** The query of a LIST, which the service takes as `GET ?list=true`. */
export const LIST = { list: "true" } as const;

/** The keys of a LIST answer (sent as `GET ?list=true`): names, directories ending in `/`. */
export const listedKeys = z.unknown().transform((body) => {
  const keys = (body as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) ? keys.map(String) : [];
});

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

/** An answer that says `complete: true` is read by `done`, any other by `going`; each field it lacks is named. */
const progressOr = <Going, Done>(going: z.ZodType<Going>, done: z.ZodType<Done>) =>
  z.unknown().transform((body, ctx): Going | Done => {
    const result = ((body as { complete?: unknown } | null)?.complete === true ? done : going).safeParse(body);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  });

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
  /** The activation token comes response-wrapped: in the envelope's `wrap_info`. */
  secondaryToken: endpoint("POST sys/replication/performance/primary/secondary-token", {
    body: z.strictObject({ id: z.string(), ttl: z.string().optional(), secondary_public_key: z.string().optional() }),
    answer: fieldsOf(),
  }),
  /** The mounts and namespaces a secondary's dynamic filter holds; an empty answer when there is no such secondary. */
  dynamicFilter: endpoint("GET sys/replication/performance/{side}/dynamic-filter/{id}", { answer: fieldsOf(), notFound: "absent" }),
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

/** The cloud-credentials engine, wherever it is mounted (`cloudA` by default). Answers are read field by field. */
export const cloud = {
  rootConfig: endpoint("GET {mount*}/config/root", { answer: fieldsOf(), notFound: "absent" }),
  /** A 5xx may come after the key was made: never sent twice on its own. */
  rotateRoot: endpoint("POST {mount*}/config/rotate-root", { body: nothing, answer: fieldsOf(), once: true }),
  role: endpoint("GET {mount*}/roles/{role}", { answer: fieldsOf(), notFound: "absent" }),
  /** Parameters in the query. */
  credentials: endpoint("GET {mount*}/creds/{role}", { answer: fieldsOf() }),
  stsCredentials: endpoint("POST {mount*}/sts/{role}", {
    body: z.strictObject({ role_arn: z.string().optional(), role_session_name: z.string().optional(), ttl: z.string().optional() }),
    answer: fieldsOf(),
  }),
};

const association = z.strictObject({ mount: z.string(), secret_name: z.string() });

/** Secret sync's associations (its configuration and destinations are objects of the builder). */
export const sync = {
  /** The destinations one secret is associated with: query `mount` and `secret_name`. */
  secretDestinations: endpoint("GET sys/sync/associations/destinations", { answer: fieldsOf(), notFound: "absent" }),
  setAssociation: endpoint("POST sys/sync/destinations/{type}/{name}/associations/set", { body: association, answer: fieldsOf() }),
  removeAssociation: endpoint("POST sys/sync/destinations/{type}/{name}/associations/remove", { body: association }),
  /** LIST: `key_info` by destination. */
  associations: endpoint("GET sys/sync/associations", { answer: fieldsOf(), notFound: "absent", query: LIST }),
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
  read: endpoint("GET sys/namespaces/{path}", { answer: fieldsOf(), notFound: "absent" }),
};

/** The transform engine's calls, wherever it is mounted (`transform` by default); bodies are one value or `batch_input`. */
export const transform = {
  /** `{endpoint}` is `encode`, `decode`, `validate`, `tokenized` or `metadata`. */
  call: endpoint("POST {mount*}/{endpoint}/{role}", { answer: fieldsOf() }),
  /** A decode to one of the template's named formats. */
  callWithFormat: endpoint("POST {mount*}/{endpoint}/{role}/{decodeFormat}", { answer: fieldsOf() }),
  /** One page of a tokenization store's values; the answer's `continuation` asks for the next. */
  snapshot: endpoint("POST {mount*}/transformations/tokenization/snapshot/{transformation}", { answer: fieldsOf() }),
  /** Creates a store's tables. */
  storeSchema: endpoint("POST {mount*}/stores/{store}/schema", {
    body: z.strictObject({ username: z.string(), password: z.string(), transformation_type: z.string() }),
  }),
};
