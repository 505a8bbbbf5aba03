/**
 * `secondary/enable`: a disabled cluster becomes a performance secondary of the primary that issued
 * the activation token. Every piece of data on the cluster is wiped at once (hence the
 * acknowledgement); the run then waits until the secondary reports `stream-wals`, or fails with its
 * status. Requests: a status read, the enable, then status reads until it streams (one when it
 * streams at once).
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { clusterShape, DEFAULT_WAIT_SECONDS, StatusAnswer, tokenPrimaryAddress, transition, waitForStreaming } from "./common";

/** Where a secondary streams from and how, as outputs. */
export const streamOutputs = z.object({
  /** Cluster address of the primary it follows ("" when none). */
  primaryClusterAddr: z.string(),
  /** The secondary's replication state (`stream-wals` once it streams). */
  state: z.string(),
  /** Its ID at the primary (the `id` of its token). */
  secondaryId: z.string(),
});

export function streamOf(status: StatusAnswer) {
  return status.mode === "secondary"
    ? { primaryClusterAddr: status.primary_cluster_addr, state: status.state, secondaryId: status.secondary_id }
    : { primaryClusterAddr: "", state: "", secondaryId: "" };
}

/** Whether the secondary follows the primary at `address` (the token's, or the given one). */
export function followsPrimary(status: StatusAnswer, address: string | undefined): boolean {
  const primary = status.mode === "secondary" ? status.primaries[0] : undefined;
  return primary !== undefined && (address === undefined || primary.api_address.replace(/\/+$/, "") === address.replace(/\/+$/, ""));
}

/** Options of a connection to a primary, shared with UpdatePrimary. */
export const connectionShape = {
  /** API address of the primary, when the one in the token does not reach it (a load balancer, say). */
  primaryApiAddr: z.string().url("must be a URL such as https://keep-a.example:8200").optional(),
  /** Path of a PEM CA file on the secondary's hosts, to verify the primary's TLS certificate. */
  caFile: z.string().min(1).optional(),
  /** Directory of PEM CA files on the secondary's hosts; system roots when neither is given. */
  caPath: z.string().min(1).optional(),
  /** How long to wait for the secondary to report `stream-wals`, in seconds (default 300). */
  waitSeconds: z.number().positive("must be a positive number of seconds").default(DEFAULT_WAIT_SECONDS),
};

export const connectionBody = (values: { primaryApiAddr?: string; caFile?: string; caPath?: string }) => ({
  ...(values.primaryApiAddr ? { primary_api_addr: values.primaryApiAddr } : {}),
  ...(values.caFile ? { ca_file: values.caFile } : {}),
  ...(values.caPath ? { ca_path: values.caPath } : {}),
});

const tokenText = (token: unknown) => (typeof token === "string" ? token : "");

export const secondaryEnableSpec = transition({
  type: "ReplicationSecondaryEnable",
  description: "Enables performance replication on a cluster as a secondary of the primary that issued the token (an operation)",
  inputs: z.object({
    /**
     * The activation token (`token` of a `SecondaryToken`), best as a Pulumi secret, or a reference
     * ({ fromConfig }, { fromEnv }, { fromFile }). Blank only when the cluster is a secondary already.
     */
    token: z.union([z.literal(""), secretInput("activation token")]),
    ...connectionShape,
    /** Must be true: every piece of data on this cluster is wiped when it becomes a secondary. */
    acceptDataWipe: z.boolean().optional(),
    ...clusterShape,
  }),
  outputs: streamOutputs,
  secretInputs: ["token"],
  acknowledgements: [
    {
      input: "acceptDataWipe",
      accepts: "every piece of data on this cluster (policies, secrets, mounts, namespaces) is wiped at once and replaced by the primary's",
    },
  ],
  what: "enable a performance secondary",
  from: "disabled",
  holds: (status, values) => {
    const address = values.primaryApiAddr ?? tokenPrimaryAddress(tokenText(values.token));
    if (status.mode !== "secondary" || !followsPrimary(status, address)) return undefined;
    return `already a secondary of ${status.primary_cluster_addr} (state "${status.state}"): nothing was wiped`;
  },
  refuse: (status, values) => {
    if (status.mode === "secondary" && status.primaries.length === 0) return "the cluster is a secondary following no primary: give it a primary with keep.replication.UpdatePrimary";
    if (status.mode === "secondary") return `the cluster is already a secondary of another primary (${status.primaries[0].api_address}): follow a new primary with keep.replication.UpdatePrimary, which wipes nothing`;
    if (status.mode === "disabled" && tokenText(values.token) === "") return "the activation token is blank";
    return undefined;
  },
  unchanged: (status) => streamOf(status),
  request: (values) => ({ row: replication.enableSecondary, body: { token: tokenText(values.token), ...connectionBody(values) } }),
  after: async (_ctx, client, values) => {
    const status = await waitForStreaming(client, values.cluster, values.waitSeconds);
    return { mode: status.mode, clusterId: status.cluster_id, ...streamOf(status) };
  },
  example: { inputs: () => ({ token: { fromConfig: "app:secret" }, acceptDataWipe: true, cluster: "dr" }) },
});

/**
 * Enables replication on the cluster as a secondary: its data is wiped and replaced by the
 * primary's; the run ends once it streams. `clusterId` is the secondary's cluster ID (the ID of its
 * `PathsFilter`). Nothing is done (nothing wiped) when it is a secondary of that primary already.
 */
export const SecondaryEnable = defineResource(secondaryEnableSpec);
export type SecondaryEnable = InstanceType<typeof SecondaryEnable>;
export type SecondaryEnableArgs = OperationArgs<typeof secondaryEnableSpec.inputs>;
