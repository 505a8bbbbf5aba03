/**
 * What the sync feature of the secrets service emulator keeps and does: destinations and
 * associations (in each namespace's system store), the cluster-wide configuration with its queue,
 * and the external systems themselves as in-memory stores the tests can read.
 *
 * A sync writes the latest version of the key-value secret to the destination's store under the
 * names its template gives (one secret per path, or one per key), with tags where the type has
 * them; an unsync deletes what was written. While `disabled` is true operations wait in a queue,
 * in order, up to `queue_capacity`; re-enabling drains it.
 */
import { KV_SECRET_KIND, isKvMount, kvVersionOf, readKvSecret } from "../kv";
import { KeepError } from "../replies";
import type { KeepMount, KeepNamespace, KeepState } from "../state";
import { DESTINATION_RULES, DestinationType, Granularity } from "./destination-types";
import { renderTemplate } from "./templates";

/** Kinds in the system store of a namespace. */
export const DESTINATION_KIND = "sync/destinations";
export const ASSOCIATION_KIND = "sync/associations";
export const APP_KIND = "sync/github-apps";

export const DEFAULT_QUEUE_CAPACITY = 1000000;

export interface StoredDestination {
  type: DestinationType;
  name: string;
  /** Connection details as written, sensitive ones in clear (the read obfuscates them). */
  connection: Record<string, unknown>;
  options: { granularity_level: Granularity; secret_name_template: string; custom_tags: Record<string, string> };
  /** Set by a delete with `purge`: associations are being unsynced before the destination goes. */
  purge_initiated_at?: string;
}

export interface StoredAssociation {
  type: DestinationType;
  name: string;
  /** Mount path in the namespace, as the request gave it. */
  mount: string;
  accessor: string;
  secret_name: string;
  sync_status: string;
  updated_at: string;
  /** Why the last sync failed; absent otherwise. */
  cause?: string;
  /** Names written to the external store, to delete on unsync or when keys disappear. */
  written: string[];
  /** Reads left before a held sync completes (see `holdSyncing`). */
  held?: number;
}

/** One secret in an external system. */
export interface ExternalSecret {
  value: string;
  /** Tags, for types that have them. */
  tags?: Record<string, string>;
}

type QueuedOperation = { op: "sync" | "unsync"; namespace: KeepNamespace; key: string };

export interface SyncModule {
  disabled: boolean;
  queueCapacity: number;
  queue: QueuedOperation[];
  /** Namespaces (besides the root) allowed to call `sys/sync/config`. */
  administrative: Set<string>;
  /** External stores by `<namespace>|<type>/<name>`. */
  external: Map<string, Map<string, ExternalSecret>>;
  /** Failure causes of destinations made to fail by tests, by the same key. */
  failures: Map<string, string>;
  /** How many status reads the next association sets stay `SYNCING` for. */
  holdReads: number;
}

export const syncModule = (state: KeepState): SyncModule =>
  state.moduleState<SyncModule>("sync", () => ({
    disabled: false,
    queueCapacity: DEFAULT_QUEUE_CAPACITY,
    queue: [],
    administrative: new Set(),
    external: new Map(),
    failures: new Map(),
    holdReads: 0,
  }));

export const destinationKey = (type: string, name: string) => `${type}/${name}`;
export const associationKey = (type: string, name: string, accessor: string, secretName: string) => `${type}/${name}/${accessor}/${secretName}`;
export const externalKey = (namespace: KeepNamespace, type: string, name: string) => `${namespace.path}|${type}/${name}`;

/** RFC 3339 with nanoseconds, as the service writes `updated_at`. */
export function nanoTimestamp(): string {
  const nanos = String(process.hrtime.bigint() % 1000000n).padStart(6, "0");
  return new Date().toISOString().replace(/\.(\d{3})Z$/, `.$1${nanos}Z`);
}

const systemStore = (state: KeepState, namespace: KeepNamespace) => state.systemMount(namespace).store;

export function getDestination(state: KeepState, namespace: KeepNamespace, type: string, name: string): StoredDestination | undefined {
  return systemStore(state, namespace).get<StoredDestination>(DESTINATION_KIND, destinationKey(type, name));
}

export function associationsOf(state: KeepState, namespace: KeepNamespace, filter: (a: StoredAssociation) => boolean = () => true): StoredAssociation[] {
  const store = systemStore(state, namespace);
  return store
    .names(ASSOCIATION_KIND)
    .map((key) => store.get<StoredAssociation>(ASSOCIATION_KIND, key)!)
    .filter(filter);
}

export function putAssociation(state: KeepState, namespace: KeepNamespace, association: StoredAssociation): void {
  systemStore(state, namespace).put(ASSOCIATION_KIND, associationKey(association.type, association.name, association.accessor, association.secret_name), association);
}

function externalStore(state: KeepState, namespace: KeepNamespace, type: string, name: string): Map<string, ExternalSecret> {
  const sync = syncModule(state);
  const key = externalKey(namespace, type, name);
  let store = sync.external.get(key);
  if (!store) {
    store = new Map();
    sync.external.set(key, store);
  }
  return store;
}

/** The mount of an association, by accessor; undefined when it was unmounted since. */
function mountOf(state: KeepState, association: StoredAssociation): KeepMount | undefined {
  return state.findMountByAccessor(association.accessor);
}

/** Names and values the destination's template and granularity give a secret's data. */
function externalSecretsOf(destination: StoredDestination, namespace: KeepNamespace, association: StoredAssociation, data: Record<string, unknown>): Map<string, ExternalSecret> {
  const rules = DESTINATION_RULES[destination.type];
  const { granularity_level: granularity, custom_tags: custom } = destination.options;
  const template = destination.options.secret_name_template || rules.templates[granularity];
  const base = {
    MountAccessor: association.accessor,
    SecretPath: association.secret_name,
    SecretBaseName: association.secret_name.split("/").pop() ?? association.secret_name,
    NamespacePath: namespace.path,
  };
  const tags = rules.tags
    ? { ...custom, "keep:managed-by": "keep-sync", "keep:mount-accessor": association.accessor, "keep:secret-path": association.secret_name }
    : undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
  const out = new Map<string, ExternalSecret>();
  if (granularity === "secret-path") {
    out.set(renderTemplate(template, base), { value: JSON.stringify(data), ...(tags ? { tags } : {}) });
  } else {
    for (const [key, value] of Object.entries(data)) {
      out.set(renderTemplate(template, { ...base, SecretKey: key }), { value: text(value), ...(tags ? { tags } : {}) });
    }
  }
  return out;
}

/** Writes the secret's latest version to the destination; the association's status says how it went. */
function performSync(state: KeepState, namespace: KeepNamespace, association: StoredAssociation): void {
  const sync = syncModule(state);
  const destination = getDestination(state, namespace, association.type, association.name);
  association.updated_at = nanoTimestamp();
  delete association.cause;
  delete association.held;
  const failure = sync.failures.get(externalKey(namespace, association.type, association.name));
  const mount = mountOf(state, association);
  const secret = mount && readKvSecret(mount, association.secret_name);
  if (!destination) {
    association.sync_status = "UNSYNCED";
  } else if (failure !== undefined) {
    association.sync_status = "EXTERNAL_SERVICE_ERROR";
    association.cause = failure;
  } else if (!secret) {
    // The secret was deleted: so is its copy.
    unsyncExternal(state, namespace, association);
    association.sync_status = "UNSYNCED";
  } else {
    const store = externalStore(state, namespace, association.type, association.name);
    const next = externalSecretsOf(destination, namespace, association, secret.data);
    for (const name of association.written) if (!next.has(name)) store.delete(name);
    for (const [name, value] of next) store.set(name, value);
    association.written = [...next.keys()];
    association.sync_status = "SYNCED";
  }
  putAssociation(state, namespace, association);
}

function unsyncExternal(state: KeepState, namespace: KeepNamespace, association: StoredAssociation): void {
  const store = externalStore(state, namespace, association.type, association.name);
  for (const name of association.written) store.delete(name);
  association.written = [];
}

/** Deletes what the association wrote and the association itself. A failing destination keeps both. */
function performUnsync(state: KeepState, namespace: KeepNamespace, association: StoredAssociation): boolean {
  const failure = syncModule(state).failures.get(externalKey(namespace, association.type, association.name));
  if (failure !== undefined) {
    association.sync_status = "EXTERNAL_SERVICE_ERROR";
    association.cause = failure;
    association.updated_at = nanoTimestamp();
    putAssociation(state, namespace, association);
    return false;
  }
  unsyncExternal(state, namespace, association);
  association.sync_status = "UNSYNCED";
  association.updated_at = nanoTimestamp();
  systemStore(state, namespace).delete(ASSOCIATION_KIND, associationKey(association.type, association.name, association.accessor, association.secret_name));
  return true;
}

function enqueue(state: KeepState, operation: QueuedOperation): void {
  const sync = syncModule(state);
  if (sync.queue.length >= sync.queueCapacity) {
    throw new KeepError(400, [
      `sync queue is full: ${sync.queue.length} operations are pending (queue_capacity ${sync.queueCapacity}); re-enable syncing (sys/sync/config disabled=false) or raise queue_capacity`,
    ]);
  }
  sync.queue.push(operation);
}

/**
 * Syncs the association now, or queues it while syncing is disabled (status `PENDING`). A test may
 * hold it `SYNCING` for some status reads first.
 */
export function requestSync(state: KeepState, namespace: KeepNamespace, association: StoredAssociation): void {
  const sync = syncModule(state);
  if (sync.disabled) {
    enqueue(state, { op: "sync", namespace, key: associationKey(association.type, association.name, association.accessor, association.secret_name) });
    association.sync_status = "PENDING";
    association.updated_at = nanoTimestamp();
    delete association.cause;
    putAssociation(state, namespace, association);
    return;
  }
  if (sync.holdReads > 0) {
    association.sync_status = "SYNCING";
    association.held = sync.holdReads;
    association.updated_at = nanoTimestamp();
    putAssociation(state, namespace, association);
    return;
  }
  performSync(state, namespace, association);
}

/** Removes the association now, or queues the removal while syncing is disabled. */
export function requestUnsync(state: KeepState, namespace: KeepNamespace, association: StoredAssociation): void {
  const sync = syncModule(state);
  if (sync.disabled) {
    enqueue(state, { op: "unsync", namespace, key: associationKey(association.type, association.name, association.accessor, association.secret_name) });
    association.sync_status = "PENDING";
    association.updated_at = nanoTimestamp();
    putAssociation(state, namespace, association);
    return;
  }
  performUnsync(state, namespace, association);
}

/** A status read of held associations: each read counts down; the last one completes the sync. */
export function observe(state: KeepState, namespace: KeepNamespace, associations: StoredAssociation[]): void {
  for (const association of associations) {
    if (association.held === undefined) continue;
    association.held -= 1;
    if (association.held <= 0) performSync(state, namespace, association);
    else putAssociation(state, namespace, association);
  }
}

/** Runs the queued operations in order (syncing was re-enabled). */
export function drainQueue(state: KeepState): void {
  const sync = syncModule(state);
  while (sync.queue.length > 0 && !sync.disabled) {
    const { op, namespace, key } = sync.queue.shift()!;
    const association = systemStore(state, namespace).get<StoredAssociation>(ASSOCIATION_KIND, key);
    if (!association) continue;
    if (op === "sync") performSync(state, namespace, association);
    else performUnsync(state, namespace, association);
  }
}

/** Syncs every association of a key-value secret again (a new version was written, or it was deleted). */
export function resyncSecret(state: KeepState, namespace: KeepNamespace, mount: KeepMount, path: string): void {
  for (const association of associationsOf(state, namespace, (a) => a.accessor === mount.accessor && a.secret_name === path)) {
    if (association.sync_status === "PENDING" && syncModule(state).disabled) continue;
    requestSync(state, namespace, association);
  }
}

/** Follows new versions and deletions of key-value version 2 secrets. */
export function followKeyValueSecrets(state: KeepState): void {
  state.onChange((change) => {
    if (change.change !== "write" && change.change !== "delete") return;
    if (!isKvMount(change.mount) || kvVersionOf(change.mount) !== 2 || change.kind !== KV_SECRET_KIND) return;
    if (change.change === "write" && typeof change.detail?.version !== "number" && readKvSecret(change.mount, change.name)) {
      // Metadata writes and soft deletes of older versions change nothing synced, unless the latest went.
      return;
    }
    resyncSecret(state, change.namespace, change.mount, change.name);
  });
}

/**
 * One purge step of a destination deleted with `purge`: unsync (or queue) its associations, and
 * delete it once none is left. Runs in the background until done.
 */
export function continuePurge(state: KeepState, namespace: KeepNamespace, type: string, name: string): void {
  const destination = getDestination(state, namespace, type, name);
  if (!destination?.purge_initiated_at) return;
  const sync = syncModule(state);
  const remaining = associationsOf(state, namespace, (a) => a.type === type && a.name === name);
  if (remaining.length === 0) {
    systemStore(state, namespace).delete(DESTINATION_KIND, destinationKey(type, name));
    return;
  }
  const next = remaining.find((a) => !(a.sync_status === "PENDING" && sync.disabled));
  if (next) {
    if (sync.disabled) requestUnsync(state, namespace, next);
    else if (!performUnsync(state, namespace, next)) return; // a failing destination stops the purge
  }
  setTimeout(() => continuePurge(state, namespace, type, name), next ? 0 : 20).unref();
}
