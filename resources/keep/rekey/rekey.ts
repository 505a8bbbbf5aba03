/**
 * `keep.Rekey`: a rekey of the secrets service's unseal keys (`sys/rekey/*`) as an operation
 * (ARCHITECTURE.md, "Operations are resources"), and the share inputs and verification `keep.RekeyVerify` shares.
 *
 * `keep.Rekey` runs one attempt end to end: it reads the status first (an attempt already in
 * progress fails the run unless `cancelExisting`), starts the attempt, gives the current shares with
 * the attempt's nonce until the threshold, and, with `requireVerification` or plain shares, gives a
 * threshold of the new shares back to `verify`. New shares encrypted with PGP cannot be given back by the provider: it
 * stops after `update` and reports `verificationNonce`; `keep.RekeyVerify` takes the decrypted shares
 * later. A failure part-way cancels the attempt it started, so the current shares stay valid.
 *
 * Requests of a run: 1 status read, 1 init, then one update per current share up to the current
 * threshold, then (verification with plain shares) one verify per new share up to the new
 * threshold, plus 1 verification read.
 */
import { z } from "zod";
import { failureMessage } from "../../../provider/advice";
import { OperationContext } from "../../../provider/context";
import { rekey as rows, RekeyCompletion, RekeyStatus, RekeyVerification } from "../../../provider/contracts/keep";
import { ApiError } from "../../../provider/errors";
import type { KeepClient } from "../../../provider/keep-client";
import { clusterInput } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { operationSpec } from "../../../provider/spec";

/** Whether a failed verification read means that no verification is in progress (the service answers 400). */
const noVerification = (e: unknown): e is ApiError => e instanceof ApiError && (e.status === 400 || e.status === 404);

const HEX_OR_BASE64 = /^(?:[0-9a-fA-F]{2})+$|^[A-Za-z0-9+/]+={0,2}$/;

const share = z.string().trim().regex(HEX_OR_BASE64, "must be a key share in hex or base64");

/**
 * Key shares: a list (best as a Pulumi secret), or a reference the provider host resolves
 * (`{ fromConfig }`, `{ fromEnv }`, `{ fromFile }`) to a JSON array or to shares separated by commas
 * or new lines; a reference keeps the shares out of state (ARCHITECTURE.md, "Secrets by reference").
 */
export const sharesInput = (what: string) =>
  z.union([z.array(share).min(1, `${what} must hold at least one share`), secretInput(what)], {
    error: `must be the ${what}: a list of shares in hex or base64, or a reference { fromConfig }, { fromEnv } or { fromFile } to a JSON array or to shares separated by commas or new lines`,
  });

/** The shares a checked input stands for, once references are resolved (text: a JSON array, or separated by commas or new lines). */
export function sharesOf(value: unknown, what: string): string[] {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === "string" && value.trim().startsWith("[")) {
    try {
      items = JSON.parse(value);
    } catch {
      throw new Error(`${what}: the text starts like a JSON array but is not one`);
    }
    if (!Array.isArray(items)) throw new Error(`${what}: the text is not a JSON array`);
  } else if (typeof value === "string") items = value.split(/[\s,]+/);
  else throw new Error(`${what}: expected shares`);
  const shares = items.map((item) => (typeof item === "string" ? item.trim() : "")).filter((item) => item !== "");
  if (shares.length === 0) throw new Error(`${what}: no share given`);
  // Never echo a share in a message: say which one is wrong by position.
  shares.forEach((s, i) => {
    if (!HEX_OR_BASE64.test(s)) throw new Error(`${what}: share ${i + 1} is not hex or base64`);
  });
  if (new Set(shares).size !== shares.length) throw new Error(`${what}: the same share is given twice`);
  return shares;
}

const rekeyInputs = z
  .object({
    /** Number of new key shares (1 to 255; 1 for a seal that stores keys). */
    secretShares: z.number().int("must be a whole number").min(1, "must be at least 1").max(255, "must be at most 255"),
    /** New shares needed to rebuild the master key: at most `secretShares`, 2 or more when there are several shares. */
    secretThreshold: z.number().int("must be a whole number").min(1, "must be at least 1").max(255, "must be at most 255"),
    /**
     * PGP public keys (base64 of binary keys), one per new share, in order: share i is encrypted to
     * key i and only its holder can read it. Without them the new shares are plain and kept in state.
     */
    pgpKeys: z.array(z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be a binary PGP public key in base64")).optional(),
    /**
     * Also store the PGP-encrypted new shares on the service (`sys/rekey/backup`), so they can be read
     * back if an answer is lost; only with `pgpKeys`. Delete it with `keep.RekeyBackupDeletion` once
     * every holder has their share.
     */
    backup: z.boolean().default(false),
    /**
     * Rotate the master key only once a threshold of the new shares has been given back: proves the
     * new shares work before the old ones stop working. With `pgpKeys`, `keep.RekeyVerify` gives them.
     */
    requireVerification: z.boolean().default(false),
    /** The current unseal key shares (at least the current threshold): a list, or a reference that keeps them out of state. */
    unsealKeys: sharesInput("current unseal key shares"),
    /**
     * Cancel a rekey attempt already in progress (started elsewhere, or by a run whose state was
     * lost) instead of failing; its progress is lost, the current shares stay valid.
     */
    cancelExisting: z.boolean().default(false),
    /**
     * Must be true when the new shares are plain (no `pgpKeys`): they are kept in this stack's state
     * as Pulumi secrets, so whoever can decrypt the state can unseal the service.
     */
    acceptSharesInState: z.boolean().optional(),
    /** Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection. */
    cluster: clusterInput,
  })
  .superRefine((v, ctx) => {
    if (v.secretThreshold > v.secretShares) ctx.addIssue({ code: "custom", path: ["secretThreshold"], message: "must be at most secretShares" });
    if (v.secretShares > 1 && v.secretThreshold < 2) {
      ctx.addIssue({ code: "custom", path: ["secretThreshold"], message: "must be at least 2 when there are several shares (one share would rebuild the key alone)" });
    }
    if (v.pgpKeys && v.pgpKeys.length !== v.secretShares) {
      ctx.addIssue({ code: "custom", path: ["pgpKeys"], message: `must hold one key per new share (${v.secretShares}), not ${v.pgpKeys.length}` });
    }
    if (v.backup && !v.pgpKeys) ctx.addIssue({ code: "custom", path: ["backup"], message: "needs pgpKeys: only PGP-encrypted shares are backed up" });
  });

type RekeyInputs = z.output<typeof rekeyInputs>;

const rekeyOutputs = z.object({
  /** The nonce of the attempt this run made. */
  nonce: z.string(),
  /** The new shares in hex, a Pulumi secret; empty when they are PGP-encrypted or the seal stores keys. */
  keys: z.array(z.string()),
  /** The new shares in base64, a Pulumi secret; empty when they are PGP-encrypted or the seal stores keys. */
  keysBase64: z.array(z.string()),
  /** The PGP-encrypted new shares (hex of binary OpenPGP messages), in the order of `pgpKeys`; empty without PGP. */
  encryptedKeys: z.array(z.string()),
  /** The same, base64 (`base64 -d | gpg -d` reads one). */
  encryptedKeysBase64: z.array(z.string()),
  /** Fingerprints of `pgpKeys`, in order. */
  pgpFingerprints: z.array(z.string()),
  /** Whether the service stored the encrypted shares as a backup. */
  backupStored: z.boolean(),
  /** Whether the master key was rotated; false while verification waits for `keep.RekeyVerify`. */
  complete: z.boolean(),
  /** The verification nonce to give `keep.RekeyVerify`, while verification waits (PGP-encrypted shares). */
  verificationNonce: z.string().optional(),
});

type RekeyOutputs = z.output<typeof rekeyOutputs>;

const CANCELLED = "the rekey attempt was cancelled: the current unseal key shares stay valid";

function describeAttempt(status: RekeyStatus): string {
  const phase = status.verification_required ? ", verification required" : "";
  return `nonce ${status.nonce}, ${status.t} of ${status.n} new shares${phase}, ${status.progress} of ${status.required} current shares given`;
}

/**
 * What failed and why. A 400 is the service refusing a share or a step, which its message says; the
 * generic advice ("fix the property it names") would mislead there.
 */
function reasonOf(what: string, cause: unknown): string {
  return failureMessage(what, cause).replace(/\.$/, "");
}

/**
 * Whether the attempt holds the rotation back until the new shares are given back. Plain new shares
 * always are, by this provider itself: the answer that carries them may be lost, and the master key
 * must not rotate before the provider holds them (cancelling then keeps the current shares valid).
 * A single share is left out: a seal that stores keys (which makes one) refuses verification.
 */
const verifying = (values: RekeyInputs): boolean => values.requireVerification || (values.pgpKeys === undefined && values.secretShares > 1);

/** Cancels the attempt after a failure; a cancel that fails too is told, never hidden. */
async function cancelAfter(client: KeepClient, cause: unknown, what: string): Promise<never> {
  const reason = reasonOf(what, cause);
  try {
    await client.send(rows.cancel);
  } catch (e) {
    throw new Error(`${reason}; cancelling the attempt failed as well (${(e as Error).message}): cancel it with DELETE sys/rekey/init`, { cause });
  }
  throw new Error(`${reason}; ${CANCELLED}`, { cause });
}

/** Gives a threshold of new shares (from `what`, named in messages) to `verify`; restarts verification first when someone left progress. */
export async function verifyShares(ctx: OperationContext, client: KeepClient, nonce: string, shares: readonly string[], what: string): Promise<string> {
  let status: RekeyVerification;
  try {
    status = (await client.send(rows.verification)).body;
  } catch (e) {
    if (!noVerification(e)) throw e;
    throw new Error(`no rekey verification is in progress (the attempt was completed or cancelled elsewhere, or never reached verification): ${reasonOf("reading it", e)}`, { cause: e });
  }
  if (status.nonce !== nonce) {
    throw new Error(
      `the verification in progress has another nonce (${status.nonce}): it was restarted since; if the shares given are the new shares of this attempt, use that nonce`,
    );
  }
  if (shares.length < status.t) throw new Error(`${what}: ${shares.length} new shares given; verification needs ${status.t} (the new threshold)`);
  if (status.progress > 0) {
    // Shares given before (a run that failed part-way) would be refused as repeats: start over.
    status = (await client.send(rows.restartVerification)).body;
    ctx.info(`keep rekey: verification had ${status.progress} shares already: restarted it (new nonce ${status.nonce})`);
  }
  for (const key of shares.slice(0, status.t)) {
    try {
      const answer = (await client.send(rows.submitNewShare, { body: { key, nonce: status.nonce } })).body;
      if ("complete" in answer) return answer.nonce;
    } catch (e) {
      // A verify whose answer was lost may have rotated the master key: when no attempt is in
      // progress any more, it did, with the new shares given here.
      if (e instanceof ApiError && e.mayHaveActed && !((await client.send(rows.status)).body).started) {
        ctx.warn(`keep rekey: ${reasonOf("a verify got no answer", e)}; no attempt is in progress any more: the master key was rotated`);
        return status.nonce;
      }
      throw e;
    }
  }
  throw new Error(`the service did not complete verification after ${status.t} new shares`);
}

async function rekey(ctx: OperationContext, values: RekeyInputs): Promise<RekeyOutputs> {
  const client = ctx.keep(values.cluster);
  const current = sharesOf(values.unsealKeys, "unsealKeys");

  // Read before acting: another attempt (or one of a run whose state was lost) is never resumed blindly.
  const status = (await client.send(rows.status)).body;
  if (status.started) {
    if (!values.cancelExisting) {
      throw new Error(
        `a rekey attempt is already in progress (${describeAttempt(status)}), started elsewhere or by an earlier run whose state was lost: finish or cancel it, or set cancelExisting to cancel it (its progress is lost; the current unseal key shares stay valid)`,
      );
    }
    await client.send(rows.cancel);
    ctx.info(`keep rekey: cancelled the attempt in progress (${describeAttempt(status)}) as cancelExisting asks`);
  }
  if (current.length < status.required) {
    throw new Error(`unsealKeys holds ${current.length} shares; the service needs ${status.required} (its current threshold); nothing was started`);
  }

  let started: RekeyStatus;
  try {
    started = (await client.send(rows.start, { body: {
      secret_shares: values.secretShares,
      secret_threshold: values.secretThreshold,
      ...(values.pgpKeys ? { pgp_keys: values.pgpKeys } : {}),
      backup: values.backup,
      require_verification: verifying(values),
    } })).body;
  } catch (e) {
    // An init that got no answer may have started the attempt: cancel it rather than leave it.
    if (e instanceof ApiError && e.mayHaveActed) return cancelAfter(client, e, "starting the rekey attempt");
    throw e;
  }

  let completion: RekeyCompletion | undefined;
  const given = current.slice(0, started.required);
  for (const [index, key] of given.entries()) {
    try {
      const answer = (await client.send(rows.submitShare, { body: { key, nonce: started.nonce } })).body;
      if ("complete" in answer) {
        completion = answer;
        break;
      }
    } catch (e) {
      const last = index === given.length - 1;
      if (last && e instanceof ApiError && e.mayHaveActed && !((await client.send(rows.status)).body).started) {
        // The last share may have completed the rekey and its answer, the new shares, was lost.
        const backup = values.backup ? "; the PGP-encrypted new shares can be read with keep.getRekeyBackup()" : "";
        throw new Error(`${reasonOf("giving the last current share", e)}; the service may have rotated the master key: no attempt is in progress any more${backup}`, { cause: e });
      }
      const wrong = e instanceof ApiError && e.status === 400 && last ? "the current unseal key shares given do not rebuild the master key" : `giving current share ${index + 1}`;
      return cancelAfter(client, e, wrong);
    }
  }
  if (!completion) return cancelAfter(client, new Error(`the service did not complete the rekey after ${given.length} shares`), "giving the current shares");

  const encrypted = values.pgpKeys !== undefined;
  const outputs: RekeyOutputs = {
    nonce: completion.nonce,
    keys: encrypted ? [] : completion.keys,
    keysBase64: encrypted ? [] : completion.keys_base64,
    encryptedKeys: encrypted ? completion.keys : [],
    encryptedKeysBase64: encrypted ? completion.keys_base64 : [],
    pgpFingerprints: completion.pgp_fingerprints,
    backupStored: completion.backup,
    complete: !verifying(values),
  };
  if (!verifying(values)) return outputs;

  const verificationNonce = completion.verification_nonce;
  if (!verificationNonce) return cancelAfter(client, new Error("the service answered no verification nonce"), "starting verification");
  if (encrypted) {
    ctx.info(`keep rekey: the new shares wait for verification (nonce ${verificationNonce}): give a threshold of the decrypted shares to keep.RekeyVerify`);
    return { ...outputs, verificationNonce };
  }
  try {
    await verifyShares(ctx, client, verificationNonce, completion.keys, "the new shares");
  } catch (e) {
    // Nothing was rotated (verifyShares tells a lost answer that did rotate): cancelling keeps the current shares.
    return cancelAfter(client, e, "verifying the new shares");
  }
  return { ...outputs, complete: true };
}

export const rekeySpec = operationSpec({
  module: "keep",
  type: "Rekey",
  description: "Rekeys the unseal key shares: a new master key split into new shares (an operation)",
  inputs: rekeyInputs,
  computed: rekeyOutputs,
  secretInputs: ["unsealKeys"],
  secretOutputs: ["keys", "keysBase64"],
  acknowledgements: [
    {
      input: "acceptSharesInState",
      accepts: "the new unseal key shares are kept in this stack's state as Pulumi secrets (give pgpKeys to keep them out)",
      when: (values) => values.pgpKeys === undefined,
    },
  ],
  label: (values) => `rekey-${values.secretThreshold}-of-${values.secretShares}`,
  run: rekey,
  example: { inputs: () => ({ secretShares: 5, secretThreshold: 3, unsealKeys: { fromConfig: "app:secret" }, acceptSharesInState: true }) },
});

/**
 * Rekeys the unseal key shares once: a new master key split into `secretShares` shares, the old
 * shares stop working. Every input change and `triggers` rekey again; destroy does nothing.
 */
export const Rekey = defineResource(rekeySpec);
export type Rekey = InstanceType<typeof Rekey>;
export type RekeyArgs = OperationArgs<typeof rekeySpec.inputs>;
