/**
 * Emulator of the secrets service ("keep"): a labelled test double, never a substitute for the
 * real service. One fastify server on loopback; route modules register system routes and engines
 * on a shared KeepRouter, which handles authentication, namespaces, mounts, help and error bodies
 * for all. Unless started bare, every engine the package covers is mounted at its conventional path.
 */
import { randomBytes } from "node:crypto";
import { ServiceServer, startServiceServer } from "../common";
import { KeepObjects } from "./objects";
import { KvVersionEvent, KvVersionMetadata, KV_SECRET_KIND, kvVersionOf, onKvVersion, readKvSecret, registerKvEngine, writeKvVersion } from "./kv";
import { registerMountRoutes, resolveMountType, viewMount } from "./mounts";
import { registerNamespaceRoutes } from "./namespaces";
import { registerTransformEngine } from "./transform";
import { PolicyFields, PolicyKind, PolicyView, StoredPolicy, normalizePolicyName, policyStorageKind, registerPolicyRoutes } from "./policies";
import { errorBody } from "./replies";
import { KeepRouter } from "./router";
import { registerSync } from "./sync";
import { registerCloudCredentialsEngine } from "./cloud-credentials";
import { registerRekeyRoutes, SealEmulator, SealOptions } from "./rekey";
import { ChangeListener, KeepState } from "./state";

export type { PolicyKind, PolicyFields, PolicyView } from "./policies";
export type { KeepRoute, KeepRequest, KeepOperation, KeepHandler, KeepEngine, CollectionInfo } from "./router";
export type { CollectionSpec, Collection } from "./collection";
export type { KindRef, ObjectRef } from "./objects";
export type { KeepChange, ChangeListener, MountSettings } from "./state";
export type { KvVersionEvent, KvVersionMetadata, KvRecord } from "./kv";
export { KeepRouter } from "./router";
export { KeepState, KeepNamespace, KeepMount, ObjectStore } from "./state";
export { KeepObjects } from "./objects";
export { addCollection } from "./collection";
export { KeepError } from "./replies";

export interface KeepEmulatorOptions {
  /** Loopback address to bind (default 127.0.0.1). */
  host?: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** Token accepted everywhere; random when absent. */
  rootToken?: string;
  /** Behave like a proxy with `require_request_header`: demand `X-Keep-Request: true`. */
  requireRequestHeader?: boolean;
  /** The seal: unseal key shares and threshold (default 5 and 3), or a seal that stores keys. */
  seal?: SealOptions;
  /**
   * Registers more route modules (engines, system routes) before the server starts; mounts made
   * here exist from the start.
   */
  register?: (router: KeepRouter) => void;
  /**
   * Start with no engine mounted. Otherwise every engine the package covers is mounted at its
   * conventional path, as `DEFAULT_MOUNTS` lists: `secret/` (key-value version 2), `transform/`
   * and `cloudA/`.
   */
  bare?: boolean;
}

/** Engines mounted at start unless `bare`: path, type, options and description, as `sys/mounts` shows them. */
export const DEFAULT_MOUNTS: readonly { path: string; type: string; options?: Record<string, string>; description: string }[] = [
  { path: "secret", type: "kv", options: { version: "2" }, description: "key/value secret storage" },
  { path: "transform", type: "transform", description: "transform secrets engine" },
  { path: "cloudA", type: "cloudA", description: "cloud-credentials secrets engine" },
];

/** A row of the mount table, as `sys/mounts` shows it, with its path. */
export type MountInfo = ReturnType<typeof viewMount> & { path: string };

export interface MountOptions {
  /** Namespace path; the root when absent. */
  namespace?: string;
  /** Engine options (the key-value engine's `version`). */
  options?: Record<string, string>;
  description?: string;
}

/** A key-value secret: mount path (default "secret") and path inside it, in a namespace. */
export interface KvRef {
  namespace?: string;
  /** Mount path of a key-value engine; "secret" when absent. */
  mount?: string;
  path: string;
}

export interface KeepEmulator extends ServiceServer {
  /** Token accepted in every namespace. */
  rootToken: string;
  /** Switchable at run time; see KeepEmulatorOptions. */
  requireRequestHeader: boolean;
  /** The seal's master key and unseal key shares (real ones, split with Shamir's scheme), and the rekey attempt. */
  seal: SealEmulator;
  /** The emulator's whole state, for route modules and tests that need more than the helpers. */
  state: KeepState;
  /** The router, for tests that add engines or routes after start. */
  router: KeepRouter;
  /** Accepts `token` from now on, in every namespace. */
  addToken(token: string): void;
  /** Creates a namespace ("team-a", "team-a/dev"), with any missing parent. */
  addNamespace(path: string): void;
  hasNamespace(path: string): boolean;
  /** Mounts an engine of a registered `type` ("kv", "kv-v2", ...) at `path`; throws as the API would refuse. */
  mount(path: string, type: string, options?: MountOptions): MountInfo;
  /** Removes a mount and everything in it; false when nothing was mounted there. */
  unmount(path: string, options?: { namespace?: string }): boolean;
  /** The namespace's mount table, sorted by path (system mounts included). */
  mounts(namespace?: string): MountInfo[];
  /** Out-of-band access to every stored object, by namespace, mount ("sys" for system objects), kind and name. */
  objects: KeepObjects;
  /** Key-value secrets, out of band. */
  kv: {
    /** The latest (or the given) readable version, with its metadata for version 2; undefined otherwise. */
    read(ref: KvRef & { version?: number }): { data: Record<string, unknown>; metadata?: KvVersionMetadata } | undefined;
    /** Writes a new version (version 2) or replaces the object (version 1); announced like an API write. */
    write(ref: KvRef, data: Record<string, unknown>): KvVersionMetadata | undefined;
    /** Deletes the secret with all its versions; false when absent. */
    delete(ref: KvRef): boolean;
    /** Listens for new versions of version 2 secrets; returns an unsubscribe. */
    onVersion(listener: (event: KvVersionEvent) => void): () => void;
  };
  /** Listens for every change of stored objects and mount tables; returns an unsubscribe. */
  onChange(listener: ChangeListener): () => void;
  /** The policy as GET would answer its fields, or undefined. `namespace` defaults to the root. */
  getPolicy(kind: PolicyKind, name: string, namespace?: string): PolicyView | undefined;
  /** Writes a policy as an out-of-band change would: no validation beyond name normalisation. */
  putPolicy(kind: PolicyKind, name: string, fields: PolicyFields, namespace?: string): void;
  deletePolicy(kind: PolicyKind, name: string, namespace?: string): void;
  /** Policy names, sorted. */
  listPolicies(kind: PolicyKind, namespace?: string): string[];
}

/** Starts the emulator; it listens before the promise resolves. */
export async function startKeepEmulator(options: KeepEmulatorOptions = {}): Promise<KeepEmulator> {
  const rootToken = options.rootToken ?? `keep.${randomBytes(18).toString("base64url")}`;
  const state = new KeepState(rootToken);
  state.requireRequestHeader = options.requireRequestHeader ?? false;

  const router = new KeepRouter(state);
  registerNamespaceRoutes(router);
  registerPolicyRoutes(router);
  registerMountRoutes(router);
  registerKvEngine(router);
  registerTransformEngine(router);
  registerSync(router);
  registerCloudCredentialsEngine(router);
  const seal = await registerRekeyRoutes(router, options.seal);
  if (!options.bare) for (const m of DEFAULT_MOUNTS) state.mount(state.root, m.path, m.type, { options: m.options, description: m.description });
  options.register?.(router);

  const server = await startServiceServer(
    {
      name: "keep",
      host: options.host,
      port: options.port,
      errorBody: (_status, message) => errorBody([message]),
    },
    (app) => router.install(app),
  );

  const objects = new KeepObjects(router);
  const policyRef = (kind: PolicyKind, name: string, namespace?: string) => ({ namespace, mount: "sys", kind: policyStorageKind(kind), name });
  const mountInfo = (mount: ReturnType<KeepState["mountsOf"]>[number]): MountInfo => ({ path: mount.displayPath, ...viewMount(mount) });
  const kvMount = (ref: KvRef) => state.requireMount(state.requireNamespace(ref.namespace), ref.mount ?? "secret");

  return {
    ...server,
    rootToken,
    seal,
    state,
    router,
    get requireRequestHeader() {
      return state.requireRequestHeader;
    },
    set requireRequestHeader(on: boolean) {
      state.requireRequestHeader = on;
    },
    addToken: (token) => {
      state.tokens.add(token);
    },
    addNamespace: (path) => {
      state.ensureNamespace(path);
    },
    hasNamespace: (path) => state.findNamespace(path) !== undefined,
    mount: (path, type, mountOptions = {}) => {
      const resolved = resolveMountType(type, mountOptions.options);
      const settings = { options: resolved.options, description: mountOptions.description };
      return mountInfo(state.mount(state.requireNamespace(mountOptions.namespace), path, resolved.type, settings, "out-of-band"));
    },
    unmount: (path, unmountOptions = {}) => state.unmount(state.requireNamespace(unmountOptions.namespace), path, "out-of-band"),
    mounts: (namespace) => state.mountsOf(state.requireNamespace(namespace)).map(mountInfo),
    objects,
    kv: {
      read: (ref) => readKvSecret(kvMount(ref), ref.path, ref.version),
      write: (ref, data) => {
        const mount = kvMount(ref);
        if (kvVersionOf(mount) === 2) return writeKvVersion(mount, ref.path, data, { source: "out-of-band" });
        mount.store.put(KV_SECRET_KIND, ref.path, structuredClone(data), "out-of-band");
        return undefined;
      },
      delete: (ref) => kvMount(ref).store.delete(KV_SECRET_KIND, ref.path, "out-of-band"),
      onVersion: (listener) => onKvVersion(state, listener),
    },
    onChange: (listener) => state.onChange(listener),
    getPolicy: (kind, name, namespace) => objects.view<PolicyView>(policyRef(kind, name, namespace)),
    putPolicy: (kind, name, fields, namespace) => {
      const ref = policyRef(kind, name, namespace);
      const stored: StoredPolicy = { name: normalizePolicyName(name), policy: fields.policy };
      if (kind !== "acl") stored.enforcement_level = fields.enforcement_level;
      if (kind === "egp") stored.paths = [...(fields.paths ?? [])];
      objects.write(ref, stored);
    },
    deletePolicy: (kind, name, namespace) => {
      objects.delete(policyRef(kind, name, namespace));
    },
    listPolicies: (kind, namespace) => objects.list(policyRef(kind, "", namespace)),
  };
}
