/** `keep.RekeyBackupDeletion`: the stored backup of a rekey's PGP-encrypted shares, deleted once. */
import { z } from "zod";
import { rekey as rows } from "../../../provider/contracts/keep";
import { clusterInput } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { operationSpec } from "../../../provider/spec";

const backupDeletionInputs = z.object({
  /** Delete only the backup of this attempt (the `nonce` of its `keep.Rekey`); any backup when absent. */
  nonce: z.string().min(1).optional(),
  /**
   * Must be true: once deleted, the encrypted shares exist only with their holders; a share lost
   * after that cannot be recovered.
   */
  confirmSharesReceived: z.boolean().optional(),
  /** Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection. */
  cluster: clusterInput,
});

export const rekeyBackupDeletionSpec = operationSpec({
  module: "keep",
  type: "RekeyBackupDeletion",
  description: "Deletes the backup of PGP-encrypted key shares a rekey stored (an operation)",
  inputs: backupDeletionInputs,
  computed: z.object({
    /** Whether a backup was deleted (false: none was stored). */
    deleted: z.boolean(),
  }),
  acknowledgements: [{ input: "confirmSharesReceived", accepts: "the backup of the encrypted key shares is gone for good: every holder must have their share" }],
  label: () => "rekey-backup-deletion",
  async current(ctx, values) {
    const backup = (await ctx.keep(values.cluster).send(rows.backup))?.body;
    if (!backup) return { computed: { deleted: false }, message: "no rekey backup is stored" };
    if (values.nonce && backup.nonce !== values.nonce) {
      throw new Error(`the stored rekey backup belongs to another attempt (nonce ${backup.nonce}, not ${values.nonce}): it was left in place`);
    }
    return undefined;
  },
  async run(ctx, values) {
    await ctx.keep(values.cluster).send(rows.deleteBackup);
    return { deleted: true };
  },
  example: { inputs: () => ({ confirmSharesReceived: true }) },
});

/** Deletes the stored backup of a rekey's encrypted shares, once; destroy does nothing. */
export const RekeyBackupDeletion = defineResource(rekeyBackupDeletionSpec);
export type RekeyBackupDeletion = InstanceType<typeof RekeyBackupDeletion>;
export type RekeyBackupDeletionArgs = OperationArgs<typeof rekeyBackupDeletionSpec.inputs>;
