/** The rekey functions: the attempt's status and the stored backup, read in the program (preview too). */
import { rekey as rows } from "../../../provider/contracts/keep";
import { FunctionError, functionFamily } from "../../../provider/functions";

/** Which connection the rekey functions use. */
export interface RekeyTarget {
  /** Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection. */
  cluster?: string;
}

/** The rekey attempt, as `GET sys/rekey/init` tells it. */
export interface RekeyStatus {
  /** Whether an attempt is in progress. */
  started: boolean;
  /** Nonce of the attempt ("" when none). */
  nonce: string;
  /** Threshold of the new shares. */
  t: number;
  /** Number of new shares. */
  n: number;
  /** Current shares given so far. */
  progress: number;
  /** Current shares needed: the current threshold. */
  required: number;
  /** Fingerprints of the PGP keys the new shares are encrypted to (empty when they are not). */
  pgpFingerprints: string[];
  /** Whether the encrypted new shares are kept as a backup on the service. */
  backup: boolean;
  /** Whether the new shares must be verified before they take effect. */
  verificationRequired: boolean;
}

/** The stored backup of PGP-encrypted new shares. */
export interface RekeyBackup {
  /** Nonce of the attempt that made them. */
  nonce: string;
  /** PGP key fingerprint → the shares encrypted to it (hex of binary OpenPGP messages). */
  keys: Record<string, string[]>;
}

export class RekeyFunctionError extends FunctionError {}

const family = functionFamily({ prefix: "keep", error: RekeyFunctionError });

/** The rekey attempt in progress, if any (one status read). Runs in the program, in preview too. */
export const getRekeyStatus = family.define<RekeyTarget, RekeyStatus>({
  name: "getRekeyStatus",
  async run(args, ctx) {
    const s = (await ctx.keep(args.cluster).send(rows.status)).body;
    return {
      started: s.started,
      nonce: s.nonce,
      t: s.t,
      n: s.n,
      progress: s.progress,
      required: s.required,
      pgpFingerprints: s.pgp_fingerprints,
      backup: s.backup,
      verificationRequired: s.verification_required,
    };
  },
});

/**
 * The stored backup of PGP-encrypted shares, or undefined when none is stored (one read). Only the
 * holders' private keys open the shares.
 */
export const getRekeyBackup = family.define<RekeyTarget, RekeyBackup | undefined>({
  name: "getRekeyBackup",
  async run(args, ctx) {
    const backup = (await ctx.keep(args.cluster).send(rows.backup))?.body;
    return backup ? { nonce: backup.nonce, keys: backup.keys } : undefined;
  },
});
