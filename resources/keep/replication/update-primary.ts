/**
 * `secondary/update-primary`: a secondary follows a new primary of its replication set (after a
 * promotion, or a revocation) with a new activation token, without a wipe; a blank token with
 * `forgetPrimary` forgets the past primary and the cluster stays a secondary. Paths filters for it
 * must be made again on the primary. Requests: a status read, the update, then status reads until
 * it streams.
 *
 * A blank token alone does nothing: a `SecondaryToken` run again after lost state issues none (its
 * secondary is known already) and answers "", which must not disconnect the secondary it feeds.
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { clusterShape, modeOf, tokenPrimaryAddress, transition, waitForStreaming } from "./common";
import { connectionBody, connectionShape, followsPrimary, streamOf, streamOutputs } from "./secondary-enable";

const tokenText = (token: unknown) => (typeof token === "string" ? token : "");

export const updatePrimarySpec = transition({
  type: "ReplicationUpdatePrimary",
  description: "Points a performance secondary at a new primary with a new activation token, or forgets its primary (an operation)",
  inputs: z
    .object({
      /**
       * A new activation token from the primary to follow (a Pulumi secret or a reference), or ""
       * with `forgetPrimary` to forget the past primary while staying a secondary.
       */
      token: z.union([z.literal(""), secretInput("activation token")]),
      /** With a blank token: forget the past primary (the cluster stays a secondary). */
      forgetPrimary: z.boolean().default(false),
      ...connectionShape,
      ...clusterShape,
    })
    .superRefine((v, ctx) => {
      if (v.forgetPrimary && v.token !== "") ctx.addIssue({ code: "custom", path: ["forgetPrimary"], message: 'takes a blank token (token: ""): a token names a primary to follow' });
    }),
  outputs: streamOutputs,
  secretInputs: ["token"],
  what: "update the primary of a secondary",
  from: "secondary",
  holds: (status, values) => {
    if (status.mode !== "secondary") return undefined;
    const token = tokenText(values.token);
    if (token === "" && !values.forgetPrimary) {
      return "no activation token given (a SecondaryToken issues none for a secondary its primary knows already): the secondary was left as it is; set forgetPrimary to forget its primary";
    }
    if (token === "") return status.primaries.length === 0 && status.known_primary_cluster_addrs.length === 0 ? "already follows no primary" : undefined;
    const address = values.primaryApiAddr ?? tokenPrimaryAddress(token);
    if (address !== undefined && status.state === "stream-wals" && followsPrimary(status, address)) return `already streams from the primary at ${address}`;
    return undefined;
  },
  unchanged: (status) => streamOf(status),
  request: (values) => ({ row: replication.updatePrimary, body: { token: tokenText(values.token), ...connectionBody(values) } }),
  after: async (_ctx, client, values, before) => {
    if (tokenText(values.token) === "") return { ...modeOf(before), primaryClusterAddr: "", state: "idle", secondaryId: "" };
    const status = await waitForStreaming(client, values.cluster, values.waitSeconds);
    return { mode: status.mode, clusterId: status.cluster_id, ...streamOf(status) };
  },
  example: { inputs: () => ({ token: { fromEnv: "APP_SECRET" }, cluster: "dr" }) },
});

/** Points the secondary at a new primary (no wipe), or forgets its primary (a blank token with `forgetPrimary`). */
export const UpdatePrimary = defineResource(updatePrimarySpec);
export type UpdatePrimary = InstanceType<typeof UpdatePrimary>;
export type UpdatePrimaryArgs = OperationArgs<typeof updatePrimarySpec.inputs>;
