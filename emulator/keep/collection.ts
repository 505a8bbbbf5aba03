/**
 * Collections: the commonest shape of the secrets service's API, objects stored by name under a
 * prefix with `POST/GET/LIST/DELETE <prefix>/:name`. A route module describes the kind once
 * (how a request body becomes the stored object, how a stored object reads) and gets the routes,
 * the answer shapes of its backend (system or engine) and out-of-band access for tests.
 */
import type { RequestBody } from "./fields";
import { KeepReply, engineReply, notFound, requireListResults, systemReply } from "./replies";
import type { KeepEngine, KeepRequest } from "./router";
import type { ObjectStore } from "./state";

export interface CollectionSpec<Stored extends object> {
  /**
   * Path of the collection: relative to the mount for an engine (`roles`, `transformations/fpe`),
   * from the namespace for the system backend (`sys/policies/acl`).
   */
  path: string;
  /** Kind the objects are stored under; defaults to `path` relative to the mount (`policies/acl` under sys). */
  kind?: string;
  /** Noun for help texts: "transform role". */
  label: string;
  /** Help text of the `name` parameter. */
  nameHelp?: string;
  /** The name rule of the kind (policies are lower-cased); names are stored normalised. */
  normalizeName?: (name: string) => string;
  /**
   * Turns a request body into the object to store: checks it (throw `badRequest`), applies
   * defaults; `existing` is the stored object on an update.
   */
  parse: (body: RequestBody, context: { name: string; existing?: Stored; request: KeepRequest }) => Stored;
  /** The fields a read answers; the stored object when absent. */
  view?: (stored: Stored, name: string) => Record<string, unknown>;
  /** Fields a list answers besides `keys` (EGP's `name_path_map`). */
  listExtras?: (store: ObjectStore, names: string[], request: KeepRequest) => Record<string, unknown>;
  /** Called before a write is stored; throw to refuse it (the root policy cannot change). */
  beforeWrite?: (name: string, request: KeepRequest) => void;
  /** Called before a delete; throw to refuse it. */
  beforeDelete?: (name: string, request: KeepRequest) => void;
  /** Objects each new mount (each namespace, for the system backend) starts with, by name. */
  seed?: Record<string, Stored>;
  /** A write answers 204 (default) or the object as a read would answer it. */
  writeAnswer?: "none" | "view";
  /** Summary of the delete operation, when more than "Delete the <label>." */
  deleteSummary?: string;
}

/** Handles of a registered collection, for route modules that add operations of their own. */
export interface Collection<Stored extends object> {
  kind: string;
  normalizeName(name: string): string;
  view(stored: Stored, name: string): Record<string, unknown>;
  /** The stored object `name` in the request's mount. */
  get(request: KeepRequest, name: string): Stored | undefined;
}

/** Registers `<path>` (list) and `<path>/:name` (read, write, delete) on `engine`. */
export function addCollection<Stored extends object>(engine: KeepEngine, spec: CollectionSpec<Stored>): Collection<Stored> {
  const isSystem = engine.type === "system";
  const kind = spec.kind ?? (isSystem ? spec.path.replace(/^sys\//, "") : spec.path);
  const normalizeName = spec.normalizeName ?? ((name: string) => name);
  const view = (stored: Stored, name: string) => (spec.view ? spec.view(stored, name) : ({ ...stored } as Record<string, unknown>));
  const answer = (data: Record<string, unknown>, request: KeepRequest): KeepReply =>
    isSystem ? systemReply(data) : engineReply(data, request.mount.type);
  const storeOf = (request: KeepRequest) => request.mount.store;

  if (engine.collections.has(kind)) throw new Error(`keep collection ${kind} is already registered on ${engine.type}`);
  engine.collections.set(kind, {
    kind,
    normalizeName,
    view: (stored, name) => view(stored as Stored, name),
    seed: spec.seed,
  });

  engine.add({
    path: spec.path,
    summary: `The ${spec.label} collection.`,
    operations: {
      list: {
        summary: `List ${spec.label} names.`,
        handler: (request) => {
          const store = storeOf(request);
          const keys = store.names(kind);
          requireListResults(keys);
          return answer({ keys, ...(spec.listExtras?.(store, keys, request) ?? {}) }, request);
        },
      },
    },
  });

  engine.add({
    path: `${spec.path}/:name`,
    summary: `One ${spec.label}, by name.`,
    params: { name: spec.nameHelp ?? `Name of the ${spec.label}.` },
    operations: {
      read: {
        summary: `Read the ${spec.label}.`,
        handler: (request) => {
          const name = normalizeName(request.params.name);
          const stored = storeOf(request).get<Stored>(kind, name);
          if (!stored) throw notFound();
          return answer(view(stored, name), request);
        },
      },
      write: {
        summary: `Create or update the ${spec.label}.`,
        status: spec.writeAnswer === "view" ? 200 : undefined,
        handler: (request) => {
          const name = normalizeName(request.params.name);
          spec.beforeWrite?.(name, request);
          const store = storeOf(request);
          const existing = store.get<Stored>(kind, name);
          const stored = spec.parse(request.body, { name, existing, request });
          store.put(kind, name, stored);
          if (spec.writeAnswer === "view") return answer(view(stored, name), request);
        },
      },
      delete: {
        summary: spec.deleteSummary ?? `Delete the ${spec.label}.`,
        handler: (request) => {
          const name = normalizeName(request.params.name);
          spec.beforeDelete?.(name, request);
          // Deleting an absent object succeeds, as in the service.
          storeOf(request).delete(kind, name);
        },
      },
    },
  });

  return {
    kind,
    normalizeName,
    view,
    get: (request, name) => storeOf(request).get<Stored>(kind, normalizeName(name)),
  };
}
