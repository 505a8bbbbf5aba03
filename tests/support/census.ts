/**
 * A census of what the services hold: each object by a key, so a test can tell what a run left
 * behind (an object duplicated, orphaned or lost). Secrets-service objects are followed through each
 * cluster's change feed (every write and delete it makes) from the moment the census starts; a
 * secondary's objects are its primary's copies and are not counted. Workspaces, their configuration
 * versions (pending ones included: the service can neither archive nor delete them) and partitions
 * are read over HTTP, as a client sees them.
 */
import type { KeepCluster, MeshEmulator, WorkspacesEmulator } from "keepstack-emulator";
import { resolveServiceConfig } from "../../provider/config";
import { WorkspacesClient } from "./by-path";

export interface CensusServices {
  clusters: KeepCluster[];
  workspaces: WorkspacesEmulator;
  mesh: MeshEmulator;
}

/** Starts following the services; the result lists the keys of every object they hold at the time it is called. */
export function followCensus({ clusters, workspaces, mesh }: CensusServices): () => Promise<Set<string>> {
  const keepObjects = new Set<string>();
  for (const cluster of clusters) {
    cluster.onChange((c) => {
      if (c.change !== "write" && c.change !== "delete") return;
      if (cluster.replication.mode === "secondary") return;
      const key = `keep|${cluster.name}|${c.namespace.path}|${c.mount.path}|${c.kind}|${c.name}`;
      if (c.change === "write") keepObjects.add(key);
      else keepObjects.delete(key);
    });
  }
  const settings: Record<string, string> = { "workspaces:address": workspaces.url, "workspaces:token": workspaces.tokens.user, "workspaces:organization": workspaces.organization };
  const workspacesByPath = new WorkspacesClient(resolveServiceConfig("workspaces", (key) => settings[key], {}));
  return async () => {
    const keys = new Set(keepObjects);
    for (const organization of [workspaces.organization, workspaces.secondOrganization]) {
      for (const ws of await workspacesByPath.list(`/organizations/${organization}/workspaces`)) {
        keys.add(`workspaces|workspace|${ws.id}`);
        for (const cv of await workspacesByPath.list(`/workspaces/${ws.id}/configuration-versions`)) {
          if (cv.attributes.status !== "archived") keys.add(`workspaces|configuration-version|${cv.id}`);
        }
      }
    }
    const partitions = await fetch(`${mesh.url}/v1/partitions`, { headers: { "X-Mesh-Token": mesh.rootToken } });
    if (!partitions.ok) throw new Error(`census: GET /v1/partitions returned ${partitions.status}`);
    for (const p of (await partitions.json()) as { Name: string; DeletedAt?: string }[]) if (!p.DeletedAt) keys.add(`mesh|partition|${p.Name}`);
    return keys;
  };
}
