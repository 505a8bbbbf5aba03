/**
 * In-memory state of the secrets service emulator: accepted tokens, the namespace tree, and a slot
 * per route module for its own state, cluster-wide or per namespace.
 */
import { randomBytes } from "node:crypto";
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

export class KeepNamespace extends ModuleSlots {
  readonly id: string;
  customMetadata: Record<string, string> = {};

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

  constructor(readonly rootToken: string) {
    super();
    this.tokens.add(rootToken);
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
    const created = new KeepNamespace(path);
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
