/**
 * Rekey of the secrets service's unseal key shares, in three `pulumi up`s.
 *
 * 1. The holders' PGP public keys (base64 of binary keys, one per holder) go in `rekey:pgpKeys`, the
 *    current shares in `rekey:unsealKeys` (a secret, a JSON array); `pulumi up` makes new shares,
 *    each encrypted to one holder, backed up on the service, waiting for verification:
 *      pulumi config set --path 'rekey:pgpKeys[0]' "$(gpg --export ann | base64 -w0)"   # ... one per holder
 *      pulumi config set --secret rekey:unsealKeys '["<share 1>", "<share 2>", "<share 3>"]'
 * 2. Each holder decrypts their share (`pulumi stack output encryptedShares` then
 *    `base64 -d | gpg -d | xxd -p -c 100`); a threshold of them go in `rekey:newKeys`; `pulumi up`
 *    gives them to verification and the master key is rotated: the old shares stop working.
 * 3. Once every holder has their share, `pulumi config set rekey:sharesReceived true` and `pulumi up`
 *    delete the backup.
 *
 * The shares never enter the state: the program passes references to the stack config, which the
 * provider host resolves when it applies.
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";

export = async () => {
  const config = new pulumi.Config("rekey");
  const holders = config.requireObject<string[]>("pgpKeys");

  const rekey = new keep.Rekey("unseal-keys", {
    secretShares: holders.length,
    secretThreshold: config.getNumber("threshold") ?? Math.min(3, holders.length),
    pgpKeys: holders,
    backup: true,
    requireVerification: true,
    unsealKeys: { fromConfig: "rekey:unsealKeys" },
  });

  const outputs: Record<string, unknown> = {
    encryptedShares: rekey.encryptedKeysBase64,
    fingerprints: rekey.pgpFingerprints,
    verificationNonce: rekey.verificationNonce,
  };

  // Stage 2: the holders' decrypted shares, given back to verification.
  if (config.get("newKeys") !== undefined) {
    const verify = new keep.RekeyVerify("unseal-keys-verified", {
      nonce: rekey.verificationNonce.apply((nonce) => nonce ?? ""),
      keys: { fromConfig: "rekey:newKeys" },
    });
    outputs.rotated = verify.complete;

    // Stage 3: the backup of the encrypted shares is deleted once every holder has theirs.
    if (config.getBoolean("sharesReceived")) {
      const dropped = new keep.RekeyBackupDeletion("unseal-keys-backup", { nonce: rekey.nonce, confirmSharesReceived: true }, { dependsOn: verify });
      outputs.backupDeleted = dropped.deleted;
    }
  }
  return outputs;
};
