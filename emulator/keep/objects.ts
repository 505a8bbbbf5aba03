/**
 * Out-of-band access to everything the secrets service emulator stores, for tests: read, write,
 * change and delete any object by namespace, mount, kind and name, as someone acting behind the
 * program's back (another operator, a drifted cluster) would. No validation happens here beyond
 * the kind's name rule; changes are announced to change listeners with source "out-of-band".
 */
import type { KeepRouter } from "./router";
import type { KeepMount } from "./state";

/** Where a kind of object lives. */
export interface KindRef {
  /** Namespace path ("team-a", "team-a/dev"); the root when absent. */
  namespace?: string;
  /** Mount path: "sys" for system objects (policies), else where the engine is mounted ("secret", "tx/prod"). */
  mount: string;
  /** Kind relative to the mount, as in the URL: "policies/acl" under sys, "role" in a transform mount. */
  kind: string;
}

/** One stored object. */
export interface ObjectRef extends KindRef {
  /** Name as a request would give it; the kind's name rule applies (policy names are lower-cased). */
  name: string;
}

export class KeepObjects {
  constructor(private readonly router: KeepRouter) {}

  private locate(ref: KindRef): KeepMount {
    const state = this.router.state;
    return state.requireMount(state.requireNamespace(ref.namespace), ref.mount);
  }

  private nameOf(mount: KeepMount, ref: ObjectRef): string {
    return this.router.findEngine(mount.type)?.normalizeName(ref.kind, ref.name) ?? ref.name;
  }

  /** A copy of the stored object, or undefined. */
  read<T = unknown>(ref: ObjectRef): T | undefined {
    const mount = this.locate(ref);
    const stored = mount.store.get<T>(ref.kind, this.nameOf(mount, ref));
    return stored === undefined ? undefined : structuredClone(stored);
  }

  /** The object as a read over HTTP answers its fields (the `data` of the answer), or undefined. */
  view<T = Record<string, unknown>>(ref: ObjectRef): T | undefined {
    const mount = this.locate(ref);
    const name = this.nameOf(mount, ref);
    const stored = mount.store.get(ref.kind, name);
    if (stored === undefined) return undefined;
    const collection = this.router.findEngine(mount.type)?.collections.get(ref.kind);
    return structuredClone((collection ? collection.view(stored, name) : stored) as T);
  }

  /** Stores `value` as is (a copy), replacing any object of that name. */
  write(ref: ObjectRef, value: unknown): void {
    const mount = this.locate(ref);
    mount.store.put(ref.kind, this.nameOf(mount, ref), structuredClone(value), "out-of-band");
  }

  /**
   * Changes an existing object behind the program's back: `change` is merged into it, or a
   * function receives a copy and returns the new object. Throws when the object does not exist.
   */
  change<T extends object = Record<string, unknown>>(ref: ObjectRef, change: Partial<T> | ((current: T) => T)): T {
    const mount = this.locate(ref);
    const name = this.nameOf(mount, ref);
    const current = mount.store.get<T>(ref.kind, name);
    if (current === undefined) throw new Error(`keep emulator: no ${ref.kind} "${name}" in ${mount.displayPath}`);
    const copy = structuredClone(current);
    const next = typeof change === "function" ? change(copy) : { ...copy, ...structuredClone(change) };
    mount.store.put(ref.kind, name, next, "out-of-band");
    return structuredClone(next);
  }

  /** Removes the object; false when there was none. */
  delete(ref: ObjectRef): boolean {
    const mount = this.locate(ref);
    return mount.store.delete(ref.kind, this.nameOf(mount, ref), "out-of-band");
  }

  /** Names stored under a kind, sorted. */
  list(ref: KindRef): string[] {
    return this.locate(ref).store.names(ref.kind);
  }
}
