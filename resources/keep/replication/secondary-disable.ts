/**
 * `secondary/disable`: replication stops on a secondary. It can no longer connect to its primary,
 * and enabling it again makes a new cluster ID and wipes it: hence the acknowledgement. Requests: a
 * status read, the disable.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { clusterShape, transition } from "./common";

export const secondaryDisableSpec = transition({
  type: "ReplicationSecondaryDisable",
  description: "Disables performance replication on a secondary (an operation)",
  inputs: z.object({
    /**
     * Must be true: the cluster stops receiving from its primary for good; enabling it again as a
     * secondary gives it a new cluster ID and wipes its data.
     */
    acceptDisconnection: z.boolean().optional(),
    ...clusterShape,
  }),
  acknowledgements: [
    {
      input: "acceptDisconnection",
      accepts: "the cluster can no longer connect to its primary, and re-enabling it changes its cluster ID and wipes its data",
    },
  ],
  what: "disable a secondary",
  from: "secondary",
  holds: (status) => (status.mode === "disabled" ? "replication is already disabled" : undefined),
  request: () => ({ row: replication.disableSecondary, body: {} }),
  after: async () => ({ mode: "disabled", clusterId: "" }),
  example: { inputs: () => ({ acceptDisconnection: true, cluster: "dr" }) },
});

/** Disables replication on the secondary; it stops receiving from its primary. */
export const SecondaryDisable = defineResource(secondaryDisableSpec);
export type SecondaryDisable = InstanceType<typeof SecondaryDisable>;
export type SecondaryDisableArgs = OperationArgs<typeof secondaryDisableSpec.inputs>;
