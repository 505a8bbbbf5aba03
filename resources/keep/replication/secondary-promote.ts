/**
 * `secondary/promote`: a secondary becomes a primary of the same replication set; the other
 * secondaries need new tokens (`UpdatePrimary`). The service refuses while its safety checks fail
 * (its primary is still active, it never synced) unless `force`, which may lose data and so asks
 * for its own acknowledgement. Requests: a status read, the promote.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { clusterShape, modeOf, transition } from "./common";

export const secondaryPromoteSpec = transition({
  type: "ReplicationSecondaryPromote",
  description: "Promotes a performance secondary to the primary (an operation)",
  inputs: z.object({
    /** Cluster address the new primary gives its secondaries; the configured one when left out. */
    primaryClusterAddr: z.string().url("must be a URL such as https://keep-b.internal:8201").optional(),
    /** Promote even when the service's safety checks fail (its primary still active, no sync yet). */
    force: z.boolean().default(false),
    /** Must be true with `force`: a forced promotion may lose data (two primaries, or a secondary behind). */
    acceptDataLoss: z.boolean().optional(),
    ...clusterShape,
  }),
  acknowledgements: [
    {
      input: "acceptDataLoss",
      accepts: "a forced promotion may lose data: writes its primary took that it has not received, or two primaries writing at once",
      when: (values) => values.force,
    },
  ],
  what: "promote a secondary",
  from: "secondary",
  holds: (status) => (status.mode === "primary" ? `already a primary (cluster ID ${status.cluster_id})` : undefined),
  request: (values) => ({
    row: replication.promoteSecondary,
    body: { ...(values.primaryClusterAddr ? { primary_cluster_addr: values.primaryClusterAddr } : {}), force: values.force },
  }),
  after: async (_ctx, _client, _values, before) => ({ ...modeOf(before), mode: "primary" }),
  example: { inputs: () => ({ force: true, acceptDataLoss: true, cluster: "dr" }) },
});

/** Promotes the secondary to the primary of its replication set. */
export const SecondaryPromote = defineResource(secondaryPromoteSpec);
export type SecondaryPromote = InstanceType<typeof SecondaryPromote>;
export type SecondaryPromoteArgs = OperationArgs<typeof secondaryPromoteSpec.inputs>;
