/**
 * Several secrets-service clusters in one process, each with its own server (address), state,
 * cluster ID and replication mode, on one replication network: a primary and its secondaries for
 * tests, benchmarks and examples. Each cluster is a full `KeepEmulator` with the replication routes.
 *
 * ```ts
 * const set = await startKeepClusters(["main", "dr"]);
 * set.clusters.main.url; set.clusters.dr.rootToken;
 * ```
 */
import { KeepEmulator, KeepEmulatorOptions, startKeepEmulator } from "../index";
import { ReplicationNetwork, ReplicationNode } from "./node";
import { registerReplicationRoutes } from "./routes";

export interface KeepCluster extends KeepEmulator {
  /** The cluster's name in the set ("main", "dr"). */
  name: string;
  /** Its replication mode and links, for assertions. */
  replication: ReplicationNode;
}

export interface KeepClusterSet {
  /** Clusters by name. */
  clusters: Record<string, KeepCluster>;
  /** The network they share: unreachable addresses, bootstrap reads and the token clock for tests. */
  network: ReplicationNetwork;
  /** Starts one more cluster on the same network. */
  add(name: string, options?: KeepEmulatorOptions): Promise<KeepCluster>;
  close(): Promise<void>;
}

/** Starts one cluster on `network`; it listens before the promise resolves. */
export async function startKeepCluster(network: ReplicationNetwork, name: string, options: KeepEmulatorOptions = {}): Promise<KeepCluster> {
  let node: ReplicationNode | undefined;
  const emulator = await startKeepEmulator({
    ...options,
    register: (router) => {
      node = new ReplicationNode(name, network, router.state, router);
      registerReplicationRoutes(router, node);
      options.register?.(router);
    },
  });
  node!.apiAddress = emulator.url;
  return Object.assign(emulator, { name, replication: node! });
}

/** Starts clusters named `names` (options per name) on one new network. */
export async function startKeepClusters(names: readonly string[], options: Record<string, KeepEmulatorOptions> = {}): Promise<KeepClusterSet> {
  const network = new ReplicationNetwork();
  const clusters: Record<string, KeepCluster> = {};
  for (const name of names) clusters[name] = await startKeepCluster(network, name, options[name]);
  return {
    clusters,
    network,
    add: async (name, clusterOptions) => {
      if (clusters[name]) throw new Error(`keep emulator: a cluster named "${name}" is already in the set`);
      clusters[name] = await startKeepCluster(network, name, clusterOptions);
      return clusters[name];
    },
    close: async () => {
      await Promise.all(Object.values(clusters).map((c) => c.close()));
    },
  };
}
