/**
 * Local emulator of the secrets, workspace and mesh services: a test double that follows the specs'
 * state tables, status codes and error bodies, used by the tests, the benchmark and the quickstart.
 * It is not a substitute for the real services.
 *
 * The package `keepstack-emulator`: a program's tests install it as a development dependency and
 * start it with `npx keepstack-emulator` or `startEmulator`; it imports nothing from pulumi-keepstack.
 * The emulator users start is the one the tests run:
 * every secrets engine the package covers mounted at its conventional path (unless `bare`), and as
 * many secrets-service clusters on one replication network as `clusters` names.
 */
import { KeepCluster, ReplicationNetwork, startKeepClusters } from "./keep/replication";
import { startWorkspacesEmulator, WorkspacesEmulator } from "./workspaces";
import { startMeshEmulator, MeshEmulator } from "./mesh";

export { startKeepEmulator, DEFAULT_MOUNTS } from "./keep";
export type { KeepEmulator, KeepEmulatorOptions, MountInfo, MountOptions } from "./keep";
export { startKeepCluster, startKeepClusters, ReplicationNetwork } from "./keep/replication";
export type { KeepCluster, KeepClusterSet, ReplicationMode, PathsFilter, FilterMode } from "./keep/replication";
export { startWorkspacesEmulator } from "./workspaces";
export type { WorkspacesEmulator } from "./workspaces";
export { startMeshEmulator } from "./mesh";
export type { MeshEmulator } from "./mesh";
export { RequestLog, Faults } from "./common";
export type { FaultSpec, RequestRecord } from "./common";

/** A cluster name: lower-case letters, digits and dashes (it names `keep-<name>:` settings and `KEEP_<NAME>_ADDR`). */
const CLUSTER_NAME = /^[a-z][a-z0-9-]*$/;

export interface EmulatorOptions {
  /** Loopback address to bind (default 127.0.0.1). */
  host?: string;
  /** Fixed ports per service (`keep` is the first cluster's); 0 or absent picks a free port. */
  ports?: { keep?: number; workspaces?: number; mesh?: number };
  /**
   * Secrets-service clusters, on one replication network: the first is the default connection
   * (`keep:`, `KEEP_ADDR`), each other one a named cluster (`keep-dr:`, `KEEP_DR_ADDR`) on a free
   * port. Default `["main"]`.
   */
  clusters?: string[];
  /** Start the secrets service with no engine mounted (by default every engine is, at its conventional path). */
  bare?: boolean;
}

export interface Emulator {
  /** The first secrets-service cluster: the default connection. */
  keep: KeepCluster;
  /** Every secrets-service cluster by name, the first included. */
  clusters: Record<string, KeepCluster>;
  /** The clusters' replication network (unreachable addresses, token clock) for tests. */
  replication: ReplicationNetwork;
  workspaces: WorkspacesEmulator;
  mesh: MeshEmulator;
  /** Requests received by all services since start or the last `clearLogs`. */
  requestCount(): number;
  clearLogs(): void;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const names = options.clusters ?? ["main"];
  if (names.length === 0) throw new Error("emulator: clusters must name at least one cluster");
  for (const name of names) {
    if (!CLUSTER_NAME.test(name)) throw new Error(`emulator: cluster "${name}" is not a valid name (lower-case letters, digits and dashes)`);
  }
  if (new Set(names).size !== names.length) throw new Error(`emulator: clusters names a cluster twice: ${names.join(", ")}`);
  const clusterOptions = Object.fromEntries(names.map((name, i) => [name, { host, port: i === 0 ? options.ports?.keep ?? 0 : 0, bare: options.bare }]));
  const started = await Promise.allSettled([
    startKeepClusters(names, clusterOptions),
    startWorkspacesEmulator({ host, port: options.ports?.workspaces ?? 0 }),
    startMeshEmulator({ host, port: options.ports?.mesh ?? 0 }),
  ] as const);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    // One service could not start (a port in use): the others stop, so nothing keeps the process alive.
    await Promise.all(started.map((s) => (s.status === "fulfilled" ? s.value.close() : undefined)));
    throw failed.reason;
  }
  const [set, workspaces, mesh] = started.map((s) => (s as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof startKeepClusters>>,
    WorkspacesEmulator,
    MeshEmulator,
  ];
  const services = [...Object.values(set.clusters), workspaces, mesh];
  return {
    keep: set.clusters[names[0]],
    clusters: set.clusters,
    replication: set.network,
    workspaces,
    mesh,
    requestCount: () => services.reduce((n, s) => n + s.log.count, 0),
    clearLogs: () => services.forEach((s) => s.log.clear()),
    close: async () => {
      await Promise.all(services.map((s) => s.close()));
    },
  };
}
