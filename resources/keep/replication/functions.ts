/**
 * Replication functions: `getStatus` (`GET sys/replication/performance/status`, no token needed)
 * and `getDynamicFilter` (what a primary keeps from a secondary). Called from a TypeScript program
 * they run in its process with its stack configuration (`keep:address`, `keep-dr:address`, ...),
 * through `programContext()`; the provider plugin serves them through `Invoke`. They run in preview too.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { clusterShape, readStatus } from "./common";
import { FunctionError, functionFamily } from "../../../provider/functions";

/** A secondary as its primary reports it. */
export interface KnownSecondary {
  /** The secondary's API address. */
  apiAddress: string;
  /** The secondary's cluster address (replication traffic). */
  clusterAddress: string;
  /** `connected` or `disconnected`. */
  connectionStatus: string;
  /** Last contact (RFC 3339). */
  lastHeartbeat: string;
  /** The node of the secondary that last reported. */
  nodeId: string;
}

/** A primary as its secondary reports it. */
export interface KnownPrimary {
  /** The primary's API address. */
  apiAddress: string;
  /** The primary's cluster address (replication traffic). */
  clusterAddress: string;
  /** `connected` or `disconnected`. */
  connectionStatus: string;
  /** Last contact (RFC 3339). */
  lastHeartbeat: string;
}

/** A cluster that takes part in no replication. */
export interface DisabledStatus {
  /** The cluster's part in replication: `disabled`, `primary` or `secondary`. */
  mode: "disabled";
}

/** A primary's replication status. */
export interface PrimaryStatus {
  /** The cluster's part in replication: `disabled`, `primary` or `secondary`. */
  mode: "primary";
  /** The replication set's cluster ID. */
  clusterId: string;
  /** IDs of the secondaries that used a token and were not revoked. */
  knownSecondaries: string[];
  /** Index of the last write-ahead log entry; advances with every replicated write. */
  lastWal: number;
  /** Hash of the replicated data; a secondary that receives everything and is in sync reports the same. */
  merkleRoot: string;
  /** The secondaries that reported to this primary. */
  secondaries: KnownSecondary[];
}

/** A secondary's replication status. */
export interface SecondaryStatus {
  /** The cluster's part in replication: `disabled`, `primary` or `secondary`. */
  mode: "secondary";
  /** The replication set's cluster ID. */
  clusterId: string;
  /** The cluster addresses of the primary's nodes the secondary knows. */
  knownPrimaryClusterAddrs: string[];
  /** Index of the last entry received from the primary. */
  lastRemoteWal: number;
  /** Hash of the replicated data; equal to the primary's when in sync. */
  merkleRoot: string;
  /** The primaries the secondary reported to. */
  primaries: KnownPrimary[];
  /** The cluster address of the primary it streams from. */
  primaryClusterAddr: string;
  /** Its ID at the primary. */
  secondaryId: string;
  /** `stream-wals` while it streams from its primary. */
  state: string;
}

export type ReplicationStatus = DisabledStatus | PrimaryStatus | SecondaryStatus;

/** What a primary keeps from one secondary: the mounts and namespaces its paths filter excludes. */
export interface DynamicFilter {
  /** Mount paths the secondary does not receive. */
  mounts: string[];
  /** Namespace paths the secondary does not receive. */
  namespaces: string[];
}

const statusArgs = z.strictObject({ ...clusterShape });

const dynamicFilterArgs = z.strictObject({
  /** `primary`: ask the primary about a secondary; `secondary`: ask the secondary about itself. */
  side: z.enum(["primary", "secondary"]),
  /** The secondary's cluster ID. */
  id: z.string().min(1, "must be the secondary's cluster ID").regex(/^[^/]+$/, "must not contain '/'"),
  ...clusterShape,
});

export interface GetStatusArgs extends z.input<typeof statusArgs> {}
export interface GetDynamicFilterArgs extends z.input<typeof dynamicFilterArgs> {}

export class ReplicationFunctionError extends FunctionError {}

const family = functionFamily({ prefix: "keep.replication", error: ReplicationFunctionError, bareRefusals: true });

/** The cluster's replication status (one request, no token needed), typed by mode. */
export const getStatus = family.define<GetStatusArgs, ReplicationStatus>({
  name: "getStatus",
  args: statusArgs,
  run: async ({ cluster }, ctx) => statusOf(await readStatus(ctx.keep(cluster))),
});

function statusOf(s: Awaited<ReturnType<typeof readStatus>>): ReplicationStatus {
  switch (s.mode) {
    case "disabled":
      return { mode: "disabled" };
    case "primary":
      return {
        mode: "primary",
        clusterId: s.cluster_id,
        knownSecondaries: s.known_secondaries,
        lastWal: s.last_wal,
        merkleRoot: s.merkle_root,
        secondaries: s.secondaries.map((x) => ({
          apiAddress: x.api_address,
          clusterAddress: x.cluster_address,
          connectionStatus: x.connection_status,
          lastHeartbeat: x.last_heartbeat,
          nodeId: x.node_id,
        })),
      };
    case "secondary":
      return {
        mode: "secondary",
        clusterId: s.cluster_id,
        knownPrimaryClusterAddrs: s.known_primary_cluster_addrs,
        lastRemoteWal: s.last_remote_wal,
        merkleRoot: s.merkle_root,
        primaries: s.primaries.map((x) => ({
          apiAddress: x.api_address,
          clusterAddress: x.cluster_address,
          connectionStatus: x.connection_status,
          lastHeartbeat: x.last_heartbeat,
        })),
        primaryClusterAddr: s.primary_cluster_addr,
        secondaryId: s.secondary_id,
        state: s.state,
      };
  }
}

/**
 * The mounts and namespaces a primary keeps from a secondary (one request): on the primary
 * (`side: "primary"`, `cluster` the primary's) or as the secondary sees it (`side: "secondary"`).
 * Undefined when the service knows no such secondary (it answers with an empty body).
 */
export const getDynamicFilter = family.define<GetDynamicFilterArgs, DynamicFilter | undefined, z.output<typeof dynamicFilterArgs>>({
  name: "getDynamicFilter",
  args: dynamicFilterArgs,
  async run({ side, id, cluster }, ctx) {
    const fields = (await ctx.keep(cluster).send(replication.dynamicFilter, { params: { side, id } }))?.body;
    if (!fields) return undefined;
    return { mounts: fields.dynamic_filtered_mounts, namespaces: fields.dynamic_filtered_namespaces };
  },
});
