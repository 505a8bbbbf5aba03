/**
 * Sync association: a key-value version 2 secret synced to a destination
 * (`sys/sync/destinations/:type/:name/associations/set|remove`). Create sets it and waits for the
 * status; refresh reads it through `sys/sync/associations/destinations`; destroy removes it.
 */
import { z } from "zod";
import { AssociationStatus, sync } from "../../../provider/contracts/keep";
import type { OperationContext } from "../../../provider/context";
import { ApiError, PartialCreateError } from "../../../provider/errors";
import { keepClientOf, keepCommonShape, keepId, mountInput, pathSegment, scopeOptions, splitKeepId } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { nth, resourceSpec } from "../../../provider/spec";
import { DESTINATION_TYPES, pollStatus } from "./common";

const inputs = z.object({
  /** Type of the destination: pass the destination's `destinationType` output. */
  destinationType: z.enum(DESTINATION_TYPES, { error: `must be one of ${DESTINATION_TYPES.join(", ")}` }),
  /** Name of the destination: pass the destination's `name` output, so the association is created after it and deleted before it. */
  destinationName: pathSegment("destination name"),
  /** Mount path of the key-value version 2 engine holding the secret; `secret` by default. */
  mount: mountInput("secret"),
  /** Path of the secret inside the mount (pass a `keep.kv.Secret`'s `path` output to order them). */
  secretName: z
    .string()
    .transform((s) => s.replace(/^\/+|\/+$/g, ""))
    .refine((s) => s.length > 0, "must be the path of a secret in the mount")
    .refine((s) => !s.split("/").some((part) => part.endsWith(".")), "must not have a segment ending in a period (the service answers 404 for such paths)"),
  /**
   * The association is meant to be synced (the only value). Refresh reports `false` when the
   * service shows it failed or unsynced, so the next `up` sets it again, which retries the sync.
   */
  synced: z.literal(true, { error: "must be true (the value refresh compares with)" }).default(true),
  ...keepCommonShape,
});

const computed = z.object({
  /** `SYNCED`, `PENDING` (queued while sync is disabled), `UNSYNCED`, or a failure status. */
  syncStatus: z.string(),
  /** When the status last changed (RFC 3339, nanoseconds). */
  updatedAt: z.string(),
  /** Why the last sync failed, as the service says; absent when it did not. */
  cause: z.string().optional(),
  /** Accessor of the mount, which the destination's default names use. */
  accessor: z.string().optional(),
});

type Inputs = z.output<typeof inputs>;
type Computed = z.output<typeof computed>;

/** Statuses the service moves on from by itself. */
const TRANSITIONAL = new Set(["SYNCING", "UNSYNCING"]);
/** Statuses that mean the association holds as declared (`PENDING`: queued while syncing is disabled). */
const HOLDING = new Set(["SYNCED", "PENDING", ...TRANSITIONAL]);

interface Target {
  type: string;
  name: string;
  mount: string;
  secretName: string;
  namespace?: string;
  cluster?: string;
}

/** `<type>/<name>/<mount>/<secret_name>`; a mount of one segment is assumed when parsing an ID alone. */
function targetOf(id: string, state?: Record<string, unknown>): Target {
  const { id: local, ...scope } = splitKeepId(id);
  const [type, name, ...rest] = local.split("/");
  const declared = typeof state?.mount === "string" && typeof state.secretName === "string" ? { mount: state.mount, secretName: state.secretName } : undefined;
  // The state says where the mount ends, when the mount has several segments.
  const split = declared && rest.join("/") === `${declared.mount}/${declared.secretName}` ? declared : { mount: rest[0] ?? "", secretName: rest.slice(1).join("/") };
  return { type, name, ...split, ...scope };
}


type Entry = AssociationStatus;

function computedOf(entry: Entry | undefined, accessor?: string): Computed {
  const out: Computed = { syncStatus: entry?.sync_status ?? "UNSYNCED", updatedAt: entry?.updated_at ?? "" };
  if (entry?.cause) out.cause = entry.cause;
  const acc = entry?.accessor ?? accessor;
  if (acc) out.accessor = acc;
  return out;
}

/** The association's entry among the secret's destinations (one request). */
async function readEntry(ctx: OperationContext, t: Target): Promise<Entry | undefined> {
  const client = keepClientOf(ctx, t);
  const answer = (await client.send(sync.secretDestinations, { options: { ...scopeOptions(t), query: { mount: t.mount, secret_name: t.secretName } } }))?.body;
  return answer?.associated_destinations[`${t.type}/${t.name}`];
}

/** Sets the association and waits until the service settles its status. */
async function setAssociation(ctx: OperationContext, t: Target): Promise<Computed> {
  const client = keepClientOf(ctx, t);
  const { body: answer } = await client.send(sync.setAssociation, { params: t, body: { mount: t.mount, secret_name: t.secretName }, options: scopeOptions(t) }).catch((e: unknown) => {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    // The service has no destination of that type and name (or this token cannot see it).
    throw e.withAdvice(`no ${t.type} destination named "${t.name}" is visible here: check destinationType and destinationName, and make the association depend on its destination`);
  });
  const secrets = answer.associated_secrets;
  // Entries are keyed by mount accessor, which the program does not know: the secret's name finds
  // it unless several mounts have a secret of that name here, and then the status is read.
  const candidates = Object.values(secrets).filter((e) => e.secret_name === t.secretName);
  let entry: Entry | undefined = candidates.length === 1 ? candidates[0] : undefined;
  const accessor = entry?.accessor;
  if (!entry || TRANSITIONAL.has(entry.sync_status)) {
    entry = await pollStatus(
      client,
      `the association of ${t.mount}/${t.secretName} with ${t.type}/${t.name} to settle`,
      () => readEntry(ctx, t),
      (e) => e !== undefined && !TRANSITIONAL.has(e.sync_status),
      (e) => `status ${e?.sync_status ?? "absent"}`,
    );
  }
  const result = computedOf(entry, accessor);
  if (result.syncStatus === "PENDING") {
    ctx.info(`keep:SyncAssociation ${t.mount}/${t.secretName} → ${t.type}/${t.name}: PENDING: syncing is disabled (sys/sync/config); it syncs when syncing is enabled again`);
  }
  return result;
}

function failure(result: Computed): string | undefined {
  if (HOLDING.has(result.syncStatus)) return undefined;
  return `the service reports status ${result.syncStatus}${result.cause ? `: ${result.cause}` : ""}`;
}

const naturalId = (v: Inputs) => keepId(v, `${v.destinationType}/${v.destinationName}/${v.mount}/${v.secretName}`);

export const associationSpec = resourceSpec({
  module: "keep",
  type: "SyncAssociation",
  description: "A secret synced to a sync destination",
  references: {
    destinationName: {
      types: ["keep:SyncCloudASmDestination", "keep:SyncCloudBKvDestination", "keep:SyncCloudCSmDestination", "keep:SyncRepoHostDestination", "keep:SyncWebHostProjectDestination"],
      id: (name, v) => keepId(v, `${v.destinationType}/${name}`),
    },
    secretName: {
      types: ["keep:KvSecret"],
      id: (name, v) => keepId(v, `${v.mount}/${name}`),
      output: "path",
    },
  },
  inputs,
  computed,
  replaceOnChanges: ["destinationType", "destinationName", "mount", "secretName", "namespace", "cluster"],
  naturalId,
  fromId(id) {
    const t = targetOf(id);
    const out: Record<string, unknown> = { destinationType: t.type, destinationName: t.name, mount: t.mount, secretName: t.secretName };
    if (t.namespace) out.namespace = t.namespace;
    if (t.cluster) out.cluster = t.cluster;
    return out as Partial<Inputs>;
  },
  async create(ctx, v) {
    const id = naturalId(v);
    const result = await setAssociation(ctx, targetOf(id, v));
    const failed = failure(result);
    if (failed) {
      // The association exists on the service: it stays in state, and the next up sets it again.
      throw new PartialCreateError(`sync of ${v.mount}/${v.secretName} to ${v.destinationType}/${v.destinationName} failed: ${failed}`, id, { ...result, synced: false }, [failed]);
    }
    return { id, computed: result };
  },
  async read(ctx, id, state) {
    const t = targetOf(id, state);
    const entry = await readEntry(ctx, t);
    const result = computedOf(entry, typeof state?.accessor === "string" ? state.accessor : undefined);
    if (!entry && state?.updatedAt) result.updatedAt = String(state.updatedAt);
    // A failed or absent association is drift: `synced` false plans an update, which sets it again.
    const found: Partial<Inputs> = { mount: t.mount, secretName: t.secretName };
    if (failure(result)) (found as Record<string, unknown>).synced = false;
    if (!entry && !state) return undefined;
    return { inputs: found, computed: result };
  },
  async update(ctx, id, v) {
    const result = await setAssociation(ctx, targetOf(id, v));
    const failed = failure(result);
    if (failed) throw new Error(`sync of ${v.mount}/${v.secretName} to ${v.destinationType}/${v.destinationName} failed: ${failed}`);
    return result;
  },
  async delete(ctx, id, state) {
    const t = targetOf(id, state);
    await keepClientOf(ctx, t).send(sync.removeAssociation, { params: t, body: { mount: t.mount, secret_name: t.secretName }, options: scopeOptions(t) });
  },
  async list(ctx) {
    const answer = (await ctx.keep().send(sync.associations))?.body;
    return Object.entries(answer?.key_info ?? {}).flatMap(([destination, secrets]) =>
      secrets.map((s) => `${destination.replace(/\/$/, "")}/${s.mount.replace(/^\/+|\/+$/g, "")}/${s.secret_path}`),
    );
  },
  example: { inputs: (n) => ({ destinationType: "cloudA-sm" as const, destinationName: nth("cloud-a", n), mount: "secret", secretName: nth("app/db", n) }) },
});

/**
 * A key-value version 2 secret synced to a destination; create waits for `SYNCED` (or `PENDING`
 * while syncing is disabled). ID: `<type>/<name>/<mount>/<secret_name>`, or
 * `<namespace>:<type>/<name>/<mount>/<secret_name>`.
 */
export const Association = defineResource(associationSpec);
export type Association = InstanceType<typeof Association>;
export type AssociationArgs = ResourceArgs<typeof associationSpec.inputs>;
