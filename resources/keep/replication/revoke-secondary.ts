/**
 * `primary/revoke-secondary`: the primary disconnects the secondary `secondaryId` at once; it stays
 * disconnected until it gets a new token (`UpdatePrimary`). Requests: a status read, the revoke.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { clusterShape, modeOf, transition } from "./common";
import { nth } from "../../../provider/spec";

export const revokeSecondarySpec = transition({
  type: "ReplicationRevokeSecondary",
  description: "Revokes a performance secondary on the primary; it disconnects at once (an operation)",
  inputs: z.object({
    /** The secondary's ID at the primary (`secondaryId` of its token; the service's `id`). */
    secondaryId: z.string().min(1, "must name the secondary"),
    ...clusterShape,
  }),
  label: (values) => `revoke-secondary-${values.secondaryId}`,
  what: "revoke a secondary",
  from: "primary",
  holds: (status, values) => (status.mode === "primary" && !status.known_secondaries.includes(values.secondaryId) ? `no secondary "${values.secondaryId}" is known to the primary: nothing to revoke` : undefined),
  request: (values) => ({ row: replication.revokeSecondary, body: { id: values.secondaryId } }),
  after: async (_ctx, _client, _values, before) => modeOf(before),
  example: { inputs: (n) => ({ secondaryId: nth("dr", n) }) },
});

/** Revokes the secondary `secondaryId` on the primary; it disconnects until given a new token. */
export const RevokeSecondary = defineResource(revokeSecondarySpec);
export type RevokeSecondary = InstanceType<typeof RevokeSecondary>;
export type RevokeSecondaryArgs = OperationArgs<typeof revokeSecondarySpec.inputs>;
