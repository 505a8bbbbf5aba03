/**
 * In-memory state of the secrets service emulator: accepted tokens, the namespace tree, each
 * namespace's mount table (every mount holds its objects in an ObjectStore), change events, and a
 * slot per route module for state of its own, cluster-wide, per namespace or per mount.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { badRequest } from "./replies";

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Short random identifier in the style of the service's namespace ids. */
export function randomId(length = 5): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
}

/** Names the service keeps for itself at every level of the tree. */
const RESERVED_NAMESPACE_NAMES = ["root", "sys", "audit", "auth", "cubbyhole", "identity"];

/** "team-a/", "/team-a/dev" and "team-a/dev/" all name the same namespace; "" is the root. */
export function normalizeNamespacePath(path: string | undefined): string {
  return (path ?? "").split("/").filter((segment) => segment !== "").join("/");
}

/** Holds state that route modules attach by key, created on first use. */
class ModuleSlots {
  private readonly slots = new Map<string, unknown>();

  moduleState<T>(key: string, create: () => T): T {
    if (!this.slots.has(key)) this.slots.set(key, create());
    return this.slots.get(key) as T;
  }
}

/** Where a change came from: a request to the API, or a test changing state behind its back. */
export type ChangeSource = "api" | "out-of-band";

/** One change to the stored objects or to a mount table, as listeners of `KeepState.onChange` see it. */
export type KeepChange =
  | {
      change: "write" | "delete";
      namespace: KeepNamespace;
      mount: KeepMount;
      /** Kind of object, relative to its mount: "policies/acl" under sys, "secret" in a key-value mount. */
      kind: string;
      name: string;
      /** The stored object after a write; the removed one after a delete. */
      value: unknown;
      source: ChangeSource;
      /** What the engine says about the write (the key-value engine: `{ version }` of a new version). */
      detail?: Record<string, unknown>;
    }
  | { change: "mount" | "unmount"; namespace: KeepNamespace; mount: KeepMount; source: ChangeSource };

export type ChangeListener = (change: KeepChange) => void;

/**
 * What the state needs to know of an engine type (the router keeps the routes): objects a new
 * store starts with, and how mount options are checked.
 */
export interface EngineDescriptor {
  type: string;
  /** Objects each mount of this type starts with, by kind then name. */
  seedOf(kind: string): Record<string, unknown> | undefined;
  /** Checks and completes the options of a new mount; throws a 400 KeepError when invalid. */
  normalizeOptions(options: Record<string, string>): Record<string, string>;
  /** Name rule of a kind (policies are lower-cased); identity when the kind has none. */
  normalizeName(kind: string, name: string): string;
}

/**
 * Objects of one mount, by kind then name. Values are stored as given; callers that hand them out
 * of the emulator copy them. Every put and delete is announced to the state's listeners.
 */
export class ObjectStore {
  private readonly kinds = new Map<string, Map<string, unknown>>();

  constructor(
    private readonly mount: KeepMount,
    private readonly seedOf: (kind: string) => Record<string, unknown> | undefined,
    private readonly emit: ChangeListener,
  ) {}

  private kindMap(kind: string): Map<string, unknown> {
    let map = this.kinds.get(kind);
    if (!map) {
      // Seeds are applied on first use, so engines registered after a mount was made still seed it.
      map = new Map(Object.entries(structuredClone(this.seedOf(kind) ?? {})));
      this.kinds.set(kind, map);
    }
    return map;
  }

  get<T = unknown>(kind: string, name: string): T | undefined {
    return this.kindMap(kind).get(name) as T | undefined;
  }

  has(kind: string, name: string): boolean {
    return this.kindMap(kind).has(name);
  }

  put(kind: string, name: string, value: unknown, source: ChangeSource = "api", detail?: Record<string, unknown>): void {
    this.kindMap(kind).set(name, value);
    this.emit({ change: "write", namespace: this.mount.namespace, mount: this.mount, kind, name, value, source, detail });
  }

  delete(kind: string, name: string, source: ChangeSource = "api"): boolean {
    const map = this.kindMap(kind);
    if (!map.has(name)) return false;
    const value = map.get(name);
    map.delete(name);
    this.emit({ change: "delete", namespace: this.mount.namespace, mount: this.mount, kind, name, value, source });
    return true;
  }

  /** Kinds this store has held or seeded, sorted (replication copies and compares them all). */
  kindNames(): string[] {
    return [...this.kinds.keys()].sort();
  }

  /** Names of a kind, sorted. */
  names(kind: string): string[] {
    return [...this.kindMap(kind).keys()].sort();
  }
}

/** Engine types every namespace has mounted and no one can remove. */
export const SYSTEM_MOUNTS: ReadonlyArray<{ path: string; type: string; description: string }> = [
  { path: "cubbyhole", type: "cubbyhole", description: "per-token private secret storage" },
  { path: "identity", type: "identity", description: "identity store" },
  { path: "sys", type: "system", description: "system endpoints used for control, policy and debugging" },
];

/** First path segments no mount may use (they belong to the service or to auth methods). */
const RESERVED_MOUNT_ROOTS = ["sys", "auth", "cubbyhole", "identity", "audit"];

/** "secret/", "/secret" and "secret" name the same mount; "tx/prod/" keeps its inner slash. */
export function normalizeMountPath(path: string): string {
  return path.split("/").filter((segment) => segment !== "").join("/");
}

export interface MountSettings {
  /** Engine options (the key-value engine's `version`). */
  options?: Record<string, string>;
  description?: string;
  /** Lease settings as `sys/mounts` shows them. */
  config?: Record<string, unknown>;
  local?: boolean;
  sealWrap?: boolean;
}

/** An engine mounted at a path of a namespace. */
export class KeepMount extends ModuleSlots {
  /** `<type>_<8 hex>`, as the service's mount accessors look. */
  readonly accessor: string;
  readonly uuid = randomUUID();
  readonly store: ObjectStore;
  options: Record<string, string>;
  description: string;
  config: Record<string, unknown>;
  local: boolean;
  sealWrap: boolean;

  constructor(
    readonly namespace: KeepNamespace,
    /** "secret", "tx/prod": no leading or trailing slash. */
    readonly path: string,
    readonly type: string,
    settings: MountSettings,
    seedOf: (kind: string) => Record<string, unknown> | undefined,
    emit: ChangeListener,
  ) {
    super();
    this.accessor = `${type}_${randomBytes(4).toString("hex")}`;
    this.options = { ...(settings.options ?? {}) };
    this.description = settings.description ?? "";
    this.config = { default_lease_ttl: 0, force_no_cache: false, max_lease_ttl: 0, ...(settings.config ?? {}) };
    this.local = settings.local ?? false;
    this.sealWrap = settings.sealWrap ?? false;
    this.store = new ObjectStore(this, seedOf, emit);
  }

  /** "secret/", as the service prints mount paths. */
  get displayPath(): string {
    return `${this.path}/`;
  }

  get segments(): string[] {
    return this.path.split("/");
  }

  get isSystem(): boolean {
    return SYSTEM_MOUNTS.some((m) => m.path === this.path && m.type === this.type);
  }
}

export class KeepNamespace extends ModuleSlots {
  readonly id: string;
  customMetadata: Record<string, string> = {};
  /** Mount table by path ("secret", "tx/prod"). */
  readonly mounts = new Map<string, KeepMount>();

  /** `path` is "" for the root, otherwise "team-a" or "team-a/dev" (no trailing slash). */
  constructor(readonly path: string) {
    super();
    this.id = path === "" ? "root" : randomId();
  }

  get isRoot(): boolean {
    return this.path === "";
  }

  /** The path as the service prints it: with a trailing slash, empty for the root. */
  get displayPath(): string {
    return this.path === "" ? "" : `${this.path}/`;
  }
}

export class KeepState extends ModuleSlots {
  readonly tokens = new Set<string>();
  requireRequestHeader = false;
  private readonly namespaces = new Map<string, KeepNamespace>([["", new KeepNamespace("")]]);
  /** First path segments of registered routes: a namespace of that name would shadow them. */
  readonly routeRoots = new Set<string>();
  /** Engine types that can be mounted, filled by the router as route modules register. */
  readonly engines = new Map<string, EngineDescriptor>();
  private readonly listeners = new Set<ChangeListener>();

  constructor(readonly rootToken: string) {
    super();
    this.tokens.add(rootToken);
    this.addSystemMounts(this.root);
  }

  /**
   * Calls `listener` synchronously after every change to stored objects or mount tables, in every
   * namespace; returns a function that stops the calls. A listener that throws fails the request
   * that made the change.
   */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private readonly emit: ChangeListener = (change) => {
    for (const listener of [...this.listeners]) listener(change);
  };

  private seedsFor(type: string): (kind: string) => Record<string, unknown> | undefined {
    return (kind) => this.engines.get(type)?.seedOf(kind);
  }

  private addSystemMounts(namespace: KeepNamespace): void {
    for (const { path, type, description } of SYSTEM_MOUNTS) {
      namespace.mounts.set(path, new KeepMount(namespace, path, type, { description }, this.seedsFor(type), this.emit));
    }
  }

  /** The namespace's system backend (`sys/`), whose store holds policies and other system objects. */
  systemMount(namespace: KeepNamespace): KeepMount {
    return namespace.mounts.get("sys")!;
  }

  /**
   * Mounts an engine of a registered `type` at `path` in `namespace`. Refuses, as the service does,
   * reserved paths, a path in use, a path inside or above another mount, and a path a child
   * namespace already uses.
   */
  mount(namespace: KeepNamespace, path: string, type: string, settings: MountSettings = {}, source: ChangeSource = "api"): KeepMount {
    const normalized = normalizeMountPath(path);
    if (normalized === "") throw badRequest("missing mount path");
    const engine = this.engines.get(type);
    if (!engine || SYSTEM_MOUNTS.some((m) => m.type === type)) throw badRequest(`plugin not found in the catalog: ${type}`);
    const first = normalized.split("/")[0];
    if (RESERVED_MOUNT_ROOTS.includes(first)) throw badRequest(`cannot mount under reserved path "${first}/"`);
    for (const existing of namespace.mounts.values()) {
      const a = `${existing.path}/`;
      const b = `${normalized}/`;
      if (a.startsWith(b) || b.startsWith(a)) throw badRequest(`path is already in use at ${existing.displayPath}`);
    }
    if (this.findNamespace(namespace.isRoot ? first : `${namespace.path}/${first}`)) {
      throw badRequest(`path "${first}/" is already in use by a namespace`);
    }
    const options = engine.normalizeOptions({ ...(settings.options ?? {}) });
    const mount = new KeepMount(namespace, normalized, type, { ...settings, options }, this.seedsFor(type), this.emit);
    namespace.mounts.set(normalized, mount);
    this.emit({ change: "mount", namespace, mount, source });
    return mount;
  }

  /** Removes a mount with everything stored in it; false when nothing is mounted there. */
  unmount(namespace: KeepNamespace, path: string, source: ChangeSource = "api"): boolean {
    const mount = namespace.mounts.get(normalizeMountPath(path));
    if (!mount) return false;
    if (mount.isSystem) throw badRequest(`cannot unmount "${mount.displayPath}"`);
    namespace.mounts.delete(mount.path);
    this.emit({ change: "unmount", namespace, mount, source });
    return true;
  }

  /** The namespace's mounts, sorted by path. */
  mountsOf(namespace: KeepNamespace): KeepMount[] {
    return [...namespace.mounts.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  /** The mount at exactly `path`. */
  findMount(namespace: KeepNamespace, path: string): KeepMount | undefined {
    return namespace.mounts.get(normalizeMountPath(path));
  }

  /** For test helpers: a missing mount is a programming error there, not an HTTP answer. */
  requireMount(namespace: KeepNamespace, path: string): KeepMount {
    const mount = this.findMount(namespace, path);
    if (!mount) throw new Error(`keep emulator: nothing is mounted at "${normalizeMountPath(path)}/" in namespace "${namespace.path}"`);
    return mount;
  }

  /** A mount by its accessor, in any namespace (sync destinations name secrets by accessor). */
  findMountByAccessor(accessor: string): KeepMount | undefined {
    for (const namespace of this.namespaces.values()) {
      for (const mount of namespace.mounts.values()) if (mount.accessor === accessor) return mount;
    }
    return undefined;
  }

  /** The mount with the longest path that prefixes `segments`, and the segments after it. */
  resolveMount(namespace: KeepNamespace, segments: readonly string[]): { mount: KeepMount; rest: string[] } | undefined {
    let best: KeepMount | undefined;
    for (const mount of namespace.mounts.values()) {
      const parts = mount.segments;
      if (parts.length > segments.length || parts.some((part, i) => segments[i] !== part)) continue;
      if (!best || parts.length > best.segments.length) best = mount;
    }
    return best && { mount: best, rest: segments.slice(best.segments.length) };
  }

  get root(): KeepNamespace {
    return this.namespaces.get("")!;
  }

  findNamespace(path: string | undefined): KeepNamespace | undefined {
    return this.namespaces.get(normalizeNamespacePath(path));
  }

  /** For test helpers: a missing namespace is a programming error there, not an HTTP answer. */
  requireNamespace(path: string | undefined): KeepNamespace {
    const namespace = this.findNamespace(path);
    if (!namespace) throw new Error(`keep emulator: namespace "${normalizeNamespacePath(path)}" does not exist`);
    return namespace;
  }

  /** Direct children of `parent`, sorted by path. */
  childrenOf(parent: KeepNamespace): KeepNamespace[] {
    const prefix = parent.displayPath;
    return [...this.namespaces.values()]
      .filter((ns) => !ns.isRoot && ns.path.startsWith(prefix) && !ns.path.slice(prefix.length).includes("/"))
      .sort((a, b) => a.path.localeCompare(b.path));
  }

  /** Rejects names the service would refuse; throws a 400 KeepError. */
  validateNamespaceName(name: string): void {
    if (name === "" || name.includes("/")) throw badRequest(`invalid namespace name "${name}"`);
    if (RESERVED_NAMESPACE_NAMES.includes(name.toLowerCase())) throw badRequest(`"${name}" is a reserved path and cannot be used as a namespace name`);
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw badRequest(`namespace name "${name}" contains invalid characters`);
  }

  /** Creates `name` under `parent`; answers the existing namespace when it is already there. */
  createChildNamespace(parent: KeepNamespace, name: string): KeepNamespace {
    this.validateNamespaceName(name);
    // A namespace at the root named like a mount or system prefix would hide that prefix's routes.
    if (parent.isRoot && this.routeRoots.has(name)) throw badRequest(`namespace "${name}" conflicts with an existing path`);
    const path = parent.isRoot ? name : `${parent.path}/${name}`;
    const existing = this.namespaces.get(path);
    if (existing) return existing;
    // The namespace's name would be the first segment of the mount's paths: the service refuses that.
    const mountClash = [...parent.mounts.values()].find((mount) => mount.segments[0] === name);
    if (mountClash) throw badRequest(`namespace "${name}" conflicts with the mount "${mountClash.displayPath}"`);
    const created = new KeepNamespace(path);
    this.addSystemMounts(created);
    this.namespaces.set(path, created);
    return created;
  }

  /** Creates every missing level of `path` ("team-a/dev" creates "team-a" first). */
  ensureNamespace(path: string): KeepNamespace {
    let current = this.root;
    for (const name of normalizeNamespacePath(path).split("/").filter((s) => s !== "")) {
      current = this.createChildNamespace(current, name);
    }
    return current;
  }

  /** Removes a namespace with all its state; refuses while it has children. */
  deleteNamespace(namespace: KeepNamespace): void {
    if (namespace.isRoot) throw badRequest("cannot delete the root namespace");
    if (this.childrenOf(namespace).length > 0) {
      throw badRequest(`cannot delete namespace ("${namespace.displayPath}") containing child namespaces`);
    }
    this.namespaces.delete(namespace.path);
    for (const mount of this.mountsOf(namespace)) {
      if (!mount.isSystem) this.emit({ change: "unmount", namespace, mount, source: "api" });
    }
  }

  /**
   * Splits a full path (namespace prefix, then route path) at the longest existing namespace:
   * namespace paths exist only when their parents do, so walking segment by segment finds it.
   */
  resolveNamespace(segments: readonly string[]): { namespace: KeepNamespace; rest: string[] } {
    let namespace = this.root;
    let index = 0;
    while (index < segments.length) {
      const candidate = namespace.isRoot ? segments[index] : `${namespace.path}/${segments[index]}`;
      const next = segments[index] === "" ? undefined : this.namespaces.get(candidate);
      if (!next) break;
      namespace = next;
      index += 1;
    }
    return { namespace, rest: segments.slice(index) };
  }

  isValidToken(token: string | undefined): boolean {
    return token !== undefined && token !== "" && this.tokens.has(token);
  }
}
