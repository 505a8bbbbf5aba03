/**
 * `primary/enable`: makes a disabled cluster a performance primary (one row of the replication
 * table). Requests: a status read, the enable, a status read for the new cluster ID.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { clusterShape, modeOf, readStatus, transition } from "./common";

export const primaryEnableSpec = transition({
  type: "ReplicationPrimaryEnable",
  description: "Enables performance replication on a cluster as the primary (an operation)",
  inputs: z.object({
    /**
     * Cluster address the primary gives its secondaries (`https://<host>:8201`); the cluster's
     * configured cluster address when left out.
     */
    primaryClusterAddr: z.string().url("must be a URL such as https://keep-a.internal:8201").optional(),
    ...clusterShape,
  }),
  what: "enable a performance primary",
  from: "disabled",
  holds: (status) => (status.mode === "primary" ? `already a performance primary (cluster ID ${status.cluster_id})` : undefined),
  request: (values) => ({ row: replication.enablePrimary, body: values.primaryClusterAddr ? { primary_cluster_addr: values.primaryClusterAddr } : {} }),
  after: async (_ctx, client) => modeOf(await readStatus(client)),
  example: { inputs: () => ({ primaryClusterAddr: "https://main.example:8201" }) },
});

/**
 * Enables performance replication on the cluster as the primary. Only one primary should be active
 * in a replication set: several may lose data. Nothing is done when the cluster is a primary already.
 */
export const PrimaryEnable = defineResource(primaryEnableSpec);
export type PrimaryEnable = InstanceType<typeof PrimaryEnable>;
export type PrimaryEnableArgs = OperationArgs<typeof primaryEnableSpec.inputs>;
