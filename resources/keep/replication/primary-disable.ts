/**
 * `primary/disable`: replication stops on the primary. Its secondaries can no longer connect, and
 * enabling it again makes a new cluster ID, so they would need a storage wipe to rejoin: hence the
 * acknowledgement. Requests: a status read, the disable.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { clusterShape, transition } from "./common";

export const primaryDisableSpec = transition({
  type: "ReplicationPrimaryDisable",
  description: "Disables performance replication on a primary (an operation)",
  inputs: z.object({
    /**
     * Must be true: the secondaries can no longer connect, and a re-enabled primary has a new
     * cluster ID, so each secondary must be wiped and enabled again to rejoin.
     */
    acceptSecondariesDisconnected: z.boolean().optional(),
    ...clusterShape,
  }),
  acknowledgements: [
    {
      input: "acceptSecondariesDisconnected",
      accepts: "its secondaries can no longer connect, and re-enabling it changes the cluster ID so each secondary needs a storage wipe to rejoin",
    },
  ],
  what: "disable a primary",
  from: "primary",
  holds: (status) => (status.mode === "disabled" ? "replication is already disabled" : undefined),
  request: () => ({ row: replication.disablePrimary, body: {} }),
  after: async () => ({ mode: "disabled", clusterId: "" }),
  example: { inputs: () => ({ acceptSecondariesDisconnected: true }) },
});

/** Disables replication on the primary; its secondaries can no longer connect. */
export const PrimaryDisable = defineResource(primaryDisableSpec);
export type PrimaryDisable = InstanceType<typeof PrimaryDisable>;
export type PrimaryDisableArgs = OperationArgs<typeof primaryDisableSpec.inputs>;
