/**
 * Key-value engine of the secrets service emulator (spec, general conventions 5), type `kv`.
 * Version 1 (`options.version` "1", the default) stores one object per path: `GET/POST/DELETE
 * <mount>/<path>`, LIST of directories. Version 2 keeps versions: `<mount>/data/<path>` reads and
 * writes `{ data }` with metadata, `<mount>/metadata/<path>` reads, lists and deletes all versions,
 * `delete`, `undelete` and `destroy` act on versions, `config` holds the mount's defaults.
 * Both versions store under kind "secret", by path; each write of a version 2 secret is announced
 * to `onKvVersion` listeners (sync propagates new versions).
 */
import { RequestBody, readBool, readInteger } from "./fields";
import { KeepError, badRequest, engineReply, notFound, requireListResults } from "./replies";
import type { KeepEngine, KeepRequest, KeepRouter } from "./router";
import type { ChangeSource, KeepMount, KeepNamespace, KeepState } from "./state";

/** Kind under which both versions store secrets, by path. */
export const KV_SECRET_KIND = "secret";
/** Kind and name of a version 2 mount's configuration. */
const KV_CONFIG_KIND = "config";
const KV_CONFIG_NAME = "config";
/** Versions kept when neither the secret nor the mount sets `max_versions`. */
const DEFAULT_MAX_VERSIONS = 10;
/** Lease the service reports on version 1 reads (768h). */
const KV_V1_LEASE_SECONDS = 2764800;

export interface KvVersion {
  data: Record<string, unknown> | null;
  created_time: string;
  deletion_time: string;
  destroyed: boolean;
}

/** A version 2 secret: its versions and its metadata. */
export interface KvRecord {
  versions: Record<string, KvVersion>;
  current_version: number;
  oldest_version: number;
  created_time: string;
  updated_time: string;
  max_versions: number;
  cas_required: boolean;
  custom_metadata: Record<string, string> | null;
  delete_version_after: string;
}

export interface KvConfig {
  max_versions: number;
  cas_required: boolean;
  delete_version_after: string;
}

/** Metadata of one version, as reads and writes of `data/<path>` answer it. */
export interface KvVersionMetadata {
  created_time: string;
  custom_metadata: Record<string, string> | null;
  deletion_time: string;
  destroyed: boolean;
  version: number;
}

/** A new version written to a version 2 secret. */
export interface KvVersionEvent {
  namespace: KeepNamespace;
  mount: KeepMount;
  path: string;
  version: number;
  data: Record<string, unknown>;
  source: ChangeSource;
}

export const isKvMount = (mount: KeepMount) => mount.type === "kv";
export const kvVersionOf = (mount: KeepMount): 1 | 2 => (mount.options.version === "2" ? 2 : 1);

const v1 = (mount: KeepMount) => kvVersionOf(mount) === 1;
const v2 = (mount: KeepMount) => kvVersionOf(mount) === 2;
const now = () => new Date().toISOString();

/**
 * Calls `listener` synchronously after each new version of a version 2 secret, written through
 * the API or out of band; returns a function that stops the calls.
 */
export function onKvVersion(state: KeepState, listener: (event: KvVersionEvent) => void): () => void {
  return state.onChange((change) => {
    if (change.change !== "write" || !isKvMount(change.mount) || change.kind !== KV_SECRET_KIND) return;
    const version = change.detail?.version;
    if (typeof version !== "number") return;
    const data = (change.value as KvRecord).versions[String(version)]?.data;
    if (!data) return;
    listener({ namespace: change.namespace, mount: change.mount, path: change.name, version, data: structuredClone(data), source: change.source });
  });
}

function configOf(mount: KeepMount): KvConfig {
  return mount.store.get<KvConfig>(KV_CONFIG_KIND, KV_CONFIG_NAME) ?? { max_versions: 0, cas_required: false, delete_version_after: "0s" };
}

function versionMetadata(record: KvRecord, version: number): KvVersionMetadata {
  const entry = record.versions[String(version)];
  return {
    created_time: entry.created_time,
    custom_metadata: record.custom_metadata && { ...record.custom_metadata },
    deletion_time: entry.deletion_time,
    destroyed: entry.destroyed,
    version,
  };
}

function requireObject(value: unknown, message: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badRequest(message);
  return value as Record<string, unknown>;
}


/**
 * Writes a new version of a version 2 secret (the API's write and out-of-band writes share it).
 * `cas`, when given, must equal the current version (0: the secret must not exist).
 */
export function writeKvVersion(
  mount: KeepMount,
  path: string,
  data: Record<string, unknown>,
  options: { cas?: number; source?: ChangeSource } = {},
): KvVersionMetadata {
  const existing = mount.store.get<KvRecord>(KV_SECRET_KIND, path);
  const config = configOf(mount);
  const current = existing?.current_version ?? 0;
  if (options.cas === undefined && (existing?.cas_required || config.cas_required)) {
    throw badRequest("check-and-set parameter required for this call");
  }
  if (options.cas !== undefined && options.cas !== current) {
    throw badRequest("check-and-set parameter did not match the current version");
  }
  const time = now();
  const record: KvRecord = existing
    ? structuredClone(existing)
    : {
        versions: {},
        current_version: 0,
        oldest_version: 0,
        created_time: time,
        updated_time: time,
        max_versions: 0,
        cas_required: false,
        custom_metadata: null,
        delete_version_after: "0s",
      };
  const version = current + 1;
  record.versions[String(version)] = { data: structuredClone(data), created_time: time, deletion_time: "", destroyed: false };
  record.current_version = version;
  record.updated_time = time;
  if (record.oldest_version === 0) record.oldest_version = version;
  trimVersions(record, record.max_versions || config.max_versions || DEFAULT_MAX_VERSIONS);
  mount.store.put(KV_SECRET_KIND, path, record, options.source ?? "api", { version });
  return versionMetadata(record, version);
}

function trimVersions(record: KvRecord, max: number): void {
  const numbers = Object.keys(record.versions).map(Number).sort((a, b) => a - b);
  while (numbers.length > max) delete record.versions[String(numbers.shift())];
  record.oldest_version = numbers[0] ?? 0;
}

/**
 * A secret as a read answers it: for version 2 the latest (or the given) version that is neither
 * deleted nor destroyed, with its metadata; for version 1 the stored object. Undefined otherwise.
 */
export function readKvSecret(
  mount: KeepMount,
  path: string,
  version?: number,
): { data: Record<string, unknown>; metadata?: KvVersionMetadata } | undefined {
  if (v1(mount)) {
    const stored = mount.store.get<Record<string, unknown>>(KV_SECRET_KIND, path);
    return stored && { data: structuredClone(stored) };
  }
  const record = mount.store.get<KvRecord>(KV_SECRET_KIND, path);
  if (!record) return undefined;
  const wanted = version || record.current_version;
  const entry = record.versions[String(wanted)];
  if (!entry || entry.destroyed || entry.deletion_time !== "" || entry.data === null) return undefined;
  return { data: structuredClone(entry.data), metadata: versionMetadata(record, wanted) };
}

/** Keys directly under `prefix` ("" or "a/b/"): names, and sub-directories with a trailing slash. */
function listDirectory(names: readonly string[], prefix: string): string[] {
  const keys = new Set<string>();
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const slash = rest.indexOf("/");
    keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
  }
  keys.delete("");
  return [...keys].sort();
}

const directoryPrefix = (path: string | undefined) => (path ? `${path}/` : "");

function listAnswer(request: KeepRequest, path: string | undefined) {
  const keys = listDirectory(request.mount.store.names(KV_SECRET_KIND), directoryPrefix(path));
  requireListResults(keys);
  return engineReply({ keys }, request.mount.type);
}

function recordOf(request: KeepRequest, path: string): KvRecord | undefined {
  return request.mount.store.get<KvRecord>(KV_SECRET_KIND, path);
}

function readVersions(body: RequestBody): number[] {
  const value = body.versions;
  const list = typeof value === "string" ? value.split(",").map((v) => Number(v.trim())) : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((v) => !Number.isInteger(Number(v)))) {
    throw badRequest("no versions provided");
  }
  return list.map(Number);
}

/** Applies `act` to each listed version that exists, then stores the record. */
function updateVersions(request: KeepRequest, act: (entry: KvVersion) => void): void {
  const path = request.params.path;
  const existing = recordOf(request, path);
  if (!existing) return;
  const record = structuredClone(existing);
  for (const version of readVersions(request.body)) {
    const entry = record.versions[String(version)];
    if (entry) act(entry);
  }
  request.mount.store.put(KV_SECRET_KIND, path, record);
}

function viewRecord(record: KvRecord) {
  return {
    cas_required: record.cas_required,
    created_time: record.created_time,
    current_version: record.current_version,
    custom_metadata: record.custom_metadata && { ...record.custom_metadata },
    delete_version_after: record.delete_version_after,
    max_versions: record.max_versions,
    oldest_version: record.oldest_version,
    updated_time: record.updated_time,
    versions: Object.fromEntries(
      Object.entries(record.versions).map(([n, v]) => [n, { created_time: v.created_time, deletion_time: v.deletion_time, destroyed: v.destroyed }]),
    ),
  };
}

function registerVersion1(engine: KeepEngine): void {
  engine.add({
    path: "",
    summary: "The key-value store's top level.",
    when: v1,
    operations: { list: { summary: "List the top-level keys and directories.", handler: (request) => listAnswer(request, undefined) } },
  });
  engine.add({
    path: ":path*",
    summary: "A secret of the key-value store (version 1).",
    when: v1,
    params: { path: "Path of the secret." },
    operations: {
      read: {
        summary: "Read the secret.",
        handler: ({ mount, params }) => {
          const found = readKvSecret(mount, params.path);
          if (!found) throw notFound();
          return engineReply(found.data, mount.type, { leaseDuration: KV_V1_LEASE_SECONDS });
        },
      },
      list: { summary: "List keys and directories under the path.", handler: (request) => listAnswer(request, request.params.path) },
      write: {
        summary: "Store the secret, replacing what was there.",
        handler: ({ mount, params, body }) => {
          if (Object.keys(body).length === 0) throw badRequest("missing data fields");
          mount.store.put(KV_SECRET_KIND, params.path, structuredClone(body));
        },
      },
      delete: {
        summary: "Delete the secret.",
        handler: ({ mount, params }) => {
          mount.store.delete(KV_SECRET_KIND, params.path);
        },
      },
    },
  });
}

function registerVersion2(engine: KeepEngine): void {
  engine.add({
    path: "config",
    summary: "Defaults of the key-value mount (version 2).",
    when: v2,
    operations: {
      read: { summary: "Read the configuration.", handler: ({ mount }) => engineReply({ ...configOf(mount) }, mount.type) },
      write: {
        summary: "Set the configuration.",
        handler: ({ mount, body }) => {
          const current = configOf(mount);
          mount.store.put(KV_CONFIG_KIND, KV_CONFIG_NAME, {
            max_versions: readInteger(body, "max_versions", { min: 0 }) ?? current.max_versions,
            cas_required: readBool(body, "cas_required") ?? current.cas_required,
            delete_version_after: typeof body.delete_version_after === "string" ? body.delete_version_after : current.delete_version_after,
          } satisfies KvConfig);
        },
      },
    },
  });

  engine.add({
    path: "data/:path*",
    summary: "The versions of a secret (version 2).",
    when: v2,
    params: { path: "Path of the secret." },
    operations: {
      read: {
        summary: "Read the latest version, or `?version=n`.",
        handler: ({ mount, params, query }) => {
          const version = query.version === undefined ? undefined : Number(query.version);
          if (version !== undefined && (!Number.isInteger(version) || version < 0)) throw badRequest("invalid version");
          const found = readKvSecret(mount, params.path, version);
          if (!found) throw notFound();
          return engineReply(found, mount.type);
        },
      },
      write: {
        summary: "Write a new version: `{ data, options: { cas } }`.",
        status: 200,
        handler: ({ mount, params, body }) => {
          if (body.data === undefined || body.data === null) throw badRequest("no data provided");
          const data = requireObject(body.data, "'data' must be an object");
          const options = body.options === undefined || body.options === null ? {} : requireObject(body.options, "'options' must be an object");
          const cas = readInteger(options, "cas", { min: 0 });
          return engineReply(writeKvVersion(mount, params.path, data, { cas }), mount.type);
        },
      },
      patch: {
        summary: "Write a new version merged into the latest (`application/merge-patch+json`).",
        status: 200,
        handler: ({ mount, params, body, raw }) => {
          const type = String(raw.headers["content-type"] ?? "");
          if (!type.startsWith("application/merge-patch+json")) {
            throw new KeepError(415, ["PATCH requires Content-Type application/merge-patch+json"]);
          }
          const latest = readKvSecret(mount, params.path);
          if (!latest) throw notFound();
          const patch = requireObject(body.data, "no data provided");
          const merged = { ...latest.data };
          for (const [key, value] of Object.entries(patch)) {
            if (value === null) delete merged[key];
            else merged[key] = value;
          }
          const options = body.options === undefined || body.options === null ? {} : requireObject(body.options, "'options' must be an object");
          return engineReply(writeKvVersion(mount, params.path, merged, { cas: readInteger(options, "cas", { min: 0 }) }), mount.type);
        },
      },
      delete: {
        summary: "Soft-delete the latest version.",
        handler: (request) => {
          const record = recordOf(request, request.params.path);
          if (!record) return;
          const updated = structuredClone(record);
          const latest = updated.versions[String(updated.current_version)];
          if (latest && latest.deletion_time === "") latest.deletion_time = now();
          request.mount.store.put(KV_SECRET_KIND, request.params.path, updated);
        },
      },
    },
  });

  for (const [action, summary, act] of [
    ["delete", "Soft-delete the listed `versions`.", (entry: KvVersion) => void (entry.deletion_time === "" && (entry.deletion_time = now()))],
    ["undelete", "Restore the listed soft-deleted `versions`.", (entry: KvVersion) => void (!entry.destroyed && (entry.deletion_time = ""))],
    ["destroy", "Remove the data of the listed `versions` for good.", (entry: KvVersion) => {
      entry.destroyed = true;
      entry.data = null;
    }],
  ] as const) {
    engine.add({
      path: `${action}/:path*`,
      summary: `${summary} (version 2)`,
      when: v2,
      params: { path: "Path of the secret." },
      operations: { write: { summary, handler: (request) => updateVersions(request, act) } },
    });
  }

  engine.add({
    path: "metadata",
    summary: "Metadata at the store's top level (version 2).",
    when: v2,
    operations: { list: { summary: "List top-level keys and directories.", handler: (request) => listAnswer(request, undefined) } },
  });

  engine.add({
    path: "metadata/:path*",
    summary: "Metadata and versions of a secret (version 2).",
    when: v2,
    params: { path: "Path of the secret or directory." },
    operations: {
      read: {
        summary: "Read the metadata and every version's status.",
        handler: (request) => {
          const record = recordOf(request, request.params.path);
          if (!record) throw notFound();
          return engineReply(viewRecord(record), request.mount.type);
        },
      },
      list: { summary: "List keys and directories under the path.", handler: (request) => listAnswer(request, request.params.path) },
      write: {
        summary: "Set `max_versions`, `cas_required`, `custom_metadata`, `delete_version_after`.",
        handler: (request) => {
          const { mount, params, body } = request;
          const time = now();
          const record: KvRecord = structuredClone(recordOf(request, params.path)) ?? {
            versions: {},
            current_version: 0,
            oldest_version: 0,
            created_time: time,
            updated_time: time,
            max_versions: 0,
            cas_required: false,
            custom_metadata: null,
            delete_version_after: "0s",
          };
          const max = readInteger(body, "max_versions", { min: 0 });
          if (max !== undefined) record.max_versions = max;
          record.cas_required = readBool(body, "cas_required") ?? record.cas_required;
          if (typeof body.delete_version_after === "string") record.delete_version_after = body.delete_version_after;
          if (body.custom_metadata !== undefined) {
            const custom = requireObject(body.custom_metadata, "'custom_metadata' must be an object of strings");
            record.custom_metadata = Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, String(v)]));
          }
          record.updated_time = time;
          trimVersions(record, record.max_versions || configOf(mount).max_versions || DEFAULT_MAX_VERSIONS);
          mount.store.put(KV_SECRET_KIND, params.path, record);
        },
      },
      delete: {
        summary: "Delete the secret: its metadata and every version.",
        handler: ({ mount, params }) => {
          mount.store.delete(KV_SECRET_KIND, params.path);
        },
      },
    },
  });
}

/** Registers the `kv` engine type; mount it with `options.version` "1" or "2" (or type `kv-v2`). */
export function registerKvEngine(router: KeepRouter): KeepEngine {
  const engine = router.engine("kv", {
    summary: "Key-value secrets engine.",
    normalizeOptions: (options) => {
      const version = options.version ?? "1";
      if (version !== "1" && version !== "2") throw badRequest(`invalid key-value engine version "${version}": must be 1 or 2`);
      return { ...options, version };
    },
  });
  registerVersion1(engine);
  registerVersion2(engine);
  return engine;
}
