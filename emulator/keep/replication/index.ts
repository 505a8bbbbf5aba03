/** Performance replication of the secrets-service emulator: several clusters, one network. */
export { startKeepCluster, startKeepClusters } from "./cluster-set";
export type { KeepCluster, KeepClusterSet } from "./cluster-set";
export { ReplicationNetwork, ReplicationNode, ALLOWED_FROM } from "./node";
export type { ReplicationMode } from "./node";
export type { PathsFilter, FilterMode } from "./filter";
