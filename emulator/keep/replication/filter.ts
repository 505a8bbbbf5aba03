/**
 * Paths filters of performance replication: which namespaces and mounts of a primary a secondary
 * receives. A filter lists mount paths (`secret/`, `team-a/kv/`) and namespace paths (`team-a/`);
 * `deny` excludes what they name, `allow` includes only that. Everything under a namespace follows
 * the namespace. The system backend (policies and other `sys/` objects) goes wherever its namespace
 * goes; the root namespace always does. Local mounts never replicate.
 */
import type { KeepMount, KeepNamespace } from "../state";

export type FilterMode = "allow" | "deny";

export interface PathsFilter {
  mode: FilterMode;
  paths: string[];
}

/** "secret", "/secret/" and "secret/" name the same path; the filter compares them as "secret/". */
export function normalizeFilterPath(path: string): string {
  const trimmed = path.split("/").filter((s) => s !== "").join("/");
  return trimmed === "" ? "" : `${trimmed}/`;
}

const covers = (filterPath: string, target: string) => filterPath !== "" && target.startsWith(filterPath);

/** Whether the secondary receives the namespace (the root always). */
export function namespaceIncluded(filter: PathsFilter | undefined, namespace: KeepNamespace): boolean {
  if (!filter || namespace.isRoot) return true;
  const path = namespace.displayPath;
  const paths = filter.paths.map(normalizeFilterPath);
  if (filter.mode === "deny") return !paths.some((p) => covers(p, path));
  // Allowed when the namespace is listed (or an ancestor is), or when something inside it is.
  return paths.some((p) => covers(p, path) || p.startsWith(path));
}

/** Whether the secondary receives the mount and what it stores. */
export function mountIncluded(filter: PathsFilter | undefined, mount: KeepMount): boolean {
  if (mount.local) return false;
  if (!namespaceIncluded(filter, mount.namespace)) return false;
  if (!filter || mount.isSystem) return true;
  const full = `${mount.namespace.displayPath}${mount.displayPath}`;
  const paths = filter.paths.map(normalizeFilterPath);
  if (filter.mode === "deny") return !paths.some((p) => covers(p, full));
  return paths.some((p) => covers(p, full));
}
