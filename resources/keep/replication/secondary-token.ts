/**
 * `primary/secondary-token`: the primary issues a wrapped, single-use activation token for the
 * secondary `secondaryId` (sudo needed). The token is a secret output with its wrapping accessor, TTL and
 * creation time. Destroy revokes that secondary when `revokeOnDestroy` asks for it. Requests: a
 * status read, the token. (The secondary's ID is `secondaryId`: `id` names the resource's own ID in Pulumi.)
 */
import { z } from "zod";
import { replication } from "../../../provider/contracts/keep";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { nth, operationSpec } from "../../../provider/spec";
import { clusterLabel, clusterShape, notAllowed, readStatus } from "./common";

const DURATION = /^(\d+h)?(\d+m)?(\d+s)?$/;

const inputs = z.object({
  /** The secondary's ID at the primary (the service's `id`): a unique opaque name ("dr", "eu-west"). */
  secondaryId: z.string().min(1, "must name the secondary").regex(/^[^/]+$/, "must not contain '/'"),
  /** How long the token can be used: a duration such as "30m" (the default) or "2h". */
  ttl: z
    .string()
    .refine((s) => s !== "" && DURATION.test(s), "must be a duration such as 30m, 1h or 90s")
    .optional(),
  /** A public key the secondary generated (`secondary/generate-public-key`), used instead of response wrapping (service 1.3+). */
  secondaryPublicKey: z.string().min(1).optional(),
  /** Destroy revokes the secondary (`RevokeSecondary`): it disconnects until it gets a new token. */
  revokeOnDestroy: z.boolean().default(false),
  ...clusterShape,
});

const outputs = z.object({
  /** The activation token, a Pulumi secret; give it to `SecondaryEnable` or `UpdatePrimary`. "" when none was issued. */
  token: z.string(),
  /** The wrapping's accessor (look the token up or revoke it by it). */
  accessor: z.string(),
  /** Seconds the token can be used, from `creationTime`. */
  ttlSeconds: z.number(),
  /** When the token was made (RFC 3339). */
  creationTime: z.string(),
});

export const secondaryTokenSpec = operationSpec({
  module: "keep",
  type: "ReplicationSecondaryToken",
  description: "Issues an activation token for a performance secondary on the primary (an operation)",
  inputs,
  computed: outputs,
  secretOutputs: ["token"],
  label: (values) => `secondary-token-${values.secondaryId}`,
  async current(ctx, values) {
    const status = await readStatus(ctx.keep(values.cluster));
    if (status.mode !== "primary") throw notAllowed("generate a secondary activation token", values.cluster, status.mode);
    if (!status.known_secondaries.includes(values.secondaryId)) return undefined;
    return {
      computed: { token: "", accessor: "", ttlSeconds: 0, creationTime: "" },
      message: `${clusterLabel(values.cluster)}: secondary "${values.secondaryId}" is already known to the primary (a token was issued for it, used or not): no new token was issued; revoke it (keep.replication.RevokeSecondary) to issue another`,
    };
  },
  async run(ctx, values) {
    const body = {
      id: values.secondaryId,
      ...(values.ttl ? { ttl: values.ttl } : {}),
      ...(values.secondaryPublicKey ? { secondary_public_key: values.secondaryPublicKey } : {}),
    };
    const { body: token } = await ctx.keep(values.cluster).send(replication.secondaryToken, { body });
    return { token: token.token, accessor: token.accessor, ttlSeconds: token.ttl, creationTime: token.creation_time };
  },
  undo: {
    input: "revokeOnDestroy",
    async run(ctx, state) {
      const cluster = state.cluster as string | undefined;
      const client = ctx.keep(cluster);
      const status = await readStatus(client);
      if (status.mode !== "primary") {
        ctx.warn(`${clusterLabel(cluster)} is no longer a primary (mode "${status.mode}"): secondary "${state.secondaryId}" was not revoked there`);
        return;
      }
      if (!status.known_secondaries.includes(String(state.secondaryId))) return;
      await client.send(replication.revokeSecondary, { body: { id: String(state.secondaryId) } });
    },
  },
  example: { inputs: (n) => ({ secondaryId: nth("dr", n), ttl: "30m", revokeOnDestroy: true }) },
});

/**
 * An activation token for the secondary `secondaryId`, from the primary: `token` is a secret output, used
 * once by `SecondaryEnable` (or `UpdatePrimary`) within `ttlSeconds`. Nothing is issued when the
 * secondary is already known to the primary.
 */
export const SecondaryToken = defineResource(secondaryTokenSpec);
export type SecondaryToken = InstanceType<typeof SecondaryToken>;
export type SecondaryTokenArgs = OperationArgs<typeof secondaryTokenSpec.inputs>;
