/** `keep.RekeyVerify`: the new shares of a rekey given back to verification, which rotates the master key. */
import { z } from "zod";
import { clusterInput } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { operationSpec } from "../../../provider/spec";
import { sharesInput, sharesOf, verifyShares } from "./rekey";

const verifyInputs = z.object({
  /** The verification nonce (`verificationNonce` of the `keep.Rekey` that made the shares). */
  nonce: z.string().min(1, "must be the verification nonce"),
  /** The new shares, decrypted (at least the new threshold): a list, or a reference that keeps them out of state. */
  keys: sharesInput("new unseal key shares"),
  /** Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection. */
  cluster: clusterInput,
});

export const rekeyVerifySpec = operationSpec({
  module: "keep",
  type: "RekeyVerify",
  description: "Gives the new shares of a rekey back to verification, which rotates the master key (an operation)",
  inputs: verifyInputs,
  computed: z.object({
    /** True once the master key was rotated. */
    complete: z.boolean(),
  }),
  secretInputs: ["keys"],
  label: () => "rekey-verify",
  async run(ctx, values) {
    const client = ctx.keep(values.cluster);
    await verifyShares(ctx, client, values.nonce, sharesOf(values.keys, "keys"), "keys");
    return { complete: true };
  },
  example: { inputs: () => ({ nonce: "nonce-1", keys: { fromConfig: "app:secret" } }) },
});

/**
 * Completes a rekey that waits for verification: gives a threshold of the new (decrypted) shares
 * with the verification nonce; the master key is rotated then. A failure leaves the attempt waiting.
 */
export const RekeyVerify = defineResource(rekeyVerifySpec);
export type RekeyVerify = InstanceType<typeof RekeyVerify>;
export type RekeyVerifyArgs = OperationArgs<typeof rekeyVerifySpec.inputs>;
