/**
 * What replication does to a cluster's data: wipe it (a secondary's enable), bring a secondary in
 * line with its primary (the namespace tree, the mount tables, every stored object, minus what the
 * paths filter excludes), apply one change streamed from the primary, and the merkle root that
 * tells whether two clusters hold the same replicated data.
 *
 * The replicated data are the namespaces, the mount tables and the objects of every mount's store
 * (policies and other `sys/` objects, key-value secrets, engine objects). Module state kept beside
 * the stores (a seal, tokens of the transform engine's built-in store) stays with its cluster.
 */
import { createHash } from "node:crypto";
import type { KeepRouter } from "../router";
import type { KeepChange, KeepMount, KeepNamespace, KeepState } from "../state";
import { PathsFilter, mountIncluded, namespaceIncluded } from "./filter";

/** Every namespace of the tree, parents before children. */
export function allNamespaces(state: KeepState): KeepNamespace[] {
  const out: KeepNamespace[] = [];
  const walk = (namespace: KeepNamespace) => {
    out.push(namespace);
    for (const child of state.childrenOf(namespace)) walk(child);
  };
  walk(state.root);
  return out;
}

/** Kinds a store holds or that its engine seeds: both sides of a comparison see seeded objects alike. */
function kindsOf(router: KeepRouter, mount: KeepMount): string[] {
  const seeded = [...(router.findEngine(mount.type)?.collections.values() ?? [])].filter((c) => c.seed).map((c) => c.kind);
  return [...new Set([...mount.store.kindNames(), ...seeded])].sort();
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A replicated mount keeps its accessor and UUID (sync destinations name mounts by accessor). */
function copyMountIdentity(target: KeepMount, source: KeepMount): void {
  Object.assign(target, { accessor: source.accessor, uuid: source.uuid });
}

function copyMountSettings(target: KeepMount, source: KeepMount): void {
  target.options = { ...source.options };
  target.description = source.description;
  target.config = structuredClone(source.config);
  target.sealWrap = source.sealWrap;
}

/** Mounts a copy of `source` on the target cluster. */
function copyMount(target: KeepState, namespace: KeepNamespace, source: KeepMount): KeepMount {
  const settings = { options: { ...source.options }, description: source.description, config: structuredClone(source.config), sealWrap: source.sealWrap };
  const mount = target.mount(namespace, source.path, source.type, settings, "out-of-band");
  copyMountIdentity(mount, source);
  return mount;
}

/** Brings the objects of `target` in line with those of `source`, writing only what differs. */
function syncStore(source: { router: KeepRouter; mount: KeepMount }, target: { router: KeepRouter; mount: KeepMount }): void {
  const kinds = new Set([...kindsOf(source.router, source.mount), ...kindsOf(target.router, target.mount)]);
  for (const kind of kinds) {
    const wanted = new Set(source.mount.store.names(kind));
    for (const name of target.mount.store.names(kind)) if (!wanted.has(name)) target.mount.store.delete(kind, name, "out-of-band");
    for (const name of wanted) {
      const value = source.mount.store.get(kind, name);
      if (!same(value, target.mount.store.get(kind, name))) target.mount.store.put(kind, name, structuredClone(value), "out-of-band");
    }
  }
}

/** Removes namespaces deepest first (the service refuses to remove one that has children). */
function removeNamespaces(state: KeepState, keep: (namespace: KeepNamespace) => boolean): void {
  for (const namespace of allNamespaces(state).reverse()) {
    if (!namespace.isRoot && !keep(namespace)) state.deleteNamespace(namespace);
  }
}

/** Everything a cluster stores is cleared: namespaces, mounts (local ones too), system objects. */
export function wipe(state: KeepState): void {
  removeNamespaces(state, () => false);
  for (const mount of state.mountsOf(state.root)) {
    if (!mount.isSystem) state.unmount(state.root, mount.path, "out-of-band");
    else for (const kind of mount.store.kindNames()) for (const name of mount.store.names(kind)) mount.store.delete(kind, name, "out-of-band");
  }
}

export interface ClusterData {
  state: KeepState;
  router: KeepRouter;
}

/**
 * Makes the secondary hold what its primary holds, as the filter lets it: namespaces and mounts the
 * filter excludes (or the primary no longer has) are removed, missing ones made, objects copied.
 * The secondary's local mounts stay.
 */
export function syncFromPrimary(primary: ClusterData, secondary: ClusterData, filter: PathsFilter | undefined): void {
  const included = allNamespaces(primary.state).filter((ns) => namespaceIncluded(filter, ns));
  const wantedPaths = new Set(included.map((ns) => ns.path));
  removeNamespaces(secondary.state, (ns) => wantedPaths.has(ns.path));
  for (const source of included) {
    const target = secondary.state.findNamespace(source.path) ?? secondary.state.ensureNamespace(source.path);
    if (!source.isRoot) {
      target.customMetadata = { ...source.customMetadata };
      Object.assign(target, { id: source.id });
    }
    const mounts = primary.state.mountsOf(source).filter((m) => mountIncluded(filter, m));
    const byPath = new Map(mounts.map((m) => [m.path, m]));
    for (const existing of secondary.state.mountsOf(target)) {
      if (existing.isSystem || existing.local) continue;
      const wanted = byPath.get(existing.path);
      if (!wanted || wanted.type !== existing.type || wanted.accessor !== existing.accessor) secondary.state.unmount(target, existing.path, "out-of-band");
    }
    for (const mount of mounts) {
      let copy = secondary.state.findMount(target, mount.path);
      if (copy && copy.local) {
        // A local mount of the secondary stands where the primary has a replicated one: the replicated one wins.
        secondary.state.unmount(target, copy.path, "out-of-band");
        copy = undefined;
      }
      if (!copy) copy = copyMount(secondary.state, target, mount);
      else copyMountSettings(copy, mount);
      syncStore({ router: primary.router, mount }, { router: secondary.router, mount: copy });
    }
  }
}

/**
 * Applies one change of the primary on a secondary; false when it cannot be applied alone (its
 * mount or namespace is missing there), and the caller syncs the whole instead.
 */
export function applyChange(secondary: ClusterData, change: KeepChange): boolean {
  const namespace = secondary.state.findNamespace(change.namespace.path);
  if (!namespace) return false;
  switch (change.change) {
    case "mount": {
      if (secondary.state.findMount(namespace, change.mount.path)) return false;
      copyMount(secondary.state, namespace, change.mount);
      return true;
    }
    case "unmount": {
      secondary.state.unmount(namespace, change.mount.path, "out-of-band");
      return true;
    }
    case "write":
    case "delete": {
      const mount = secondary.state.findMount(namespace, change.mount.path);
      if (!mount || mount.type !== change.mount.type) return false;
      if (change.change === "write") mount.store.put(change.kind, change.name, structuredClone(change.value), "out-of-band", change.detail);
      else mount.store.delete(change.kind, change.name, "out-of-band");
      return true;
    }
  }
}

/**
 * A hash of the replicated data a cluster holds (namespaces, mounts, objects; local mounts left
 * out): equal on a primary and a secondary that receives everything, once it is in sync.
 */
export function merkleRoot(cluster: ClusterData): string {
  const hash = createHash("sha256");
  for (const namespace of allNamespaces(cluster.state)) {
    hash.update(`namespace ${namespace.path}\n`);
    for (const mount of cluster.state.mountsOf(namespace)) {
      if (mount.local) continue;
      hash.update(`mount ${mount.path} ${mount.type} ${JSON.stringify(mount.options)}\n`);
      for (const kind of kindsOf(cluster.router, mount)) {
        for (const name of mount.store.names(kind)) hash.update(`object ${kind} ${name} ${JSON.stringify(mount.store.get(kind, name))}\n`);
      }
    }
  }
  return hash.digest("hex");
}
