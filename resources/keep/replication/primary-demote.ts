/**
 * `primary/demote`: a primary becomes a secondary connected to no primary; it keeps its cluster ID
 * and can rejoin the replication set without a wipe (`UpdatePrimary`). Requests: a status read, the demote.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { clusterShape, modeOf, transition } from "./common";

export const primaryDemoteSpec = transition({
  type: "ReplicationPrimaryDemote",
  description: "Demotes a performance primary to a secondary connected to no primary (an operation)",
  inputs: z.object({ ...clusterShape }),
  what: "demote a primary",
  from: "primary",
  holds: (status) => (status.mode === "secondary" ? "already a secondary: nothing to demote" : undefined),
  request: () => ({ row: replication.demotePrimary, body: {} }),
  after: async (_ctx, _client, _values, before) => ({ ...modeOf(before), mode: "secondary" }),
  example: { inputs: () => ({}) },
});

/** Demotes the primary to a secondary (its secondaries lose their primary until one is promoted). */
export const PrimaryDemote = defineResource(primaryDemoteSpec);
export type PrimaryDemote = InstanceType<typeof PrimaryDemote>;
export type PrimaryDemoteArgs = OperationArgs<typeof primaryDemoteSpec.inputs>;
