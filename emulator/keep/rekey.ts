/**
 * `sys/rekey/*` of the secrets service emulator, by the spec's rekey-attempt table: one attempt at
 * a time; `init` starts it with a nonce; `update` takes the current shares with that nonce until the
 * threshold, combines them for real and checks the result against the master key; at completion a
 * new master key is split into the new shares (PGP-encrypted when `pgp_keys` are given, backed up
 * when asked) and replaces the old one, unless `require_verification` holds the rotation back until
 * a threshold of the new shares comes back through `verify`. Root namespace only.
 *
 * Out-of-band access for tests and `npm run emulator`: the `SealEmulator` this module returns (the
 * current shares, the master key, the attempt, the backup).
 */
import { randomBytes, randomUUID } from "node:crypto";
import * as openpgp from "openpgp";
import { RequestBody, readBool, readInteger, readString, readStringList } from "./fields";
import { KeepError, badRequest, notFound, ok, systemReply, unsupportedPath } from "./replies";
import type { KeepRequest, KeepRouter } from "./router";
import { MASTER_KEY_BYTES, Seal, SealOptions, checkSplit, combineShares, decodeShare, encodeShares, splitKey } from "./seal";

export type { SealOptions } from "./seal";

/** PGP keys as `init` received them, with their fingerprints. */
interface PgpRecipients {
  keys: openpgp.Key[];
  fingerprints: string[];
}

/** A rekey attempt in progress. */
interface RekeyAttempt {
  nonce: string;
  /** Threshold and count of the new shares. */
  t: number;
  n: number;
  pgp?: PgpRecipients;
  backup: boolean;
  verificationRequired: boolean;
  /** Current shares given so far (each once). */
  given: Buffer[];
  /** Set once the threshold was reached with verification required: the rotation waits for `verify`. */
  verification?: {
    nonce: string;
    masterKey: Buffer;
    shares: Buffer[];
    given: Buffer[];
  };
}

/** The backup of PGP-encrypted new shares (`core/unseal-keys-backup` in the service's storage). */
export interface RekeyBackup {
  nonce: string;
  /** PGP key fingerprint → hex of each encrypted share for that key. */
  keys: Record<string, string[]>;
  /** The same, base64. */
  keys_base64: Record<string, string[]>;
}

/** What tests (and `npm run emulator`) see of the seal and the rekey attempt. */
export interface SealEmulator {
  /** The shares that authorise a rekey now: unseal key shares, or a stored-keys seal's recovery key. */
  shares(): { keys: string[]; keysBase64: string[]; threshold: number };
  /** The current master key (a copy). */
  masterKey(): Buffer;
  /** Whether the seal stores the master key (an auto-unseal seal). */
  readonly storedKeys: boolean;
  /** Starts over with a new master key and new shares, as initialising the service does; cancels any attempt. */
  initialize(options?: SealOptions): Promise<void>;
  /** Rebuilds a key from shares in hex or base64 (one share is the key itself); throws when they cannot combine. */
  combine(shares: readonly string[]): Promise<Buffer>;
  /** The attempt in progress, as `GET sys/rekey/init` answers, or undefined. */
  attempt(): { nonce: string; progress: number; verificationNonce?: string; verificationProgress?: number } | undefined;
  /** The stored backup, or undefined. */
  backup(): RekeyBackup | undefined;
}

class RekeyModule {
  readonly seal = new Seal();
  attempt?: RekeyAttempt;
  backup?: RekeyBackup;
  /** Requests that change the attempt run one after the other: combining and encrypting are asynchronous. */
  private queue: Promise<unknown> = Promise.resolve();

  serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

const newNonce = () => randomUUID();

function requireRoot(request: KeepRequest): void {
  // Rekeying is a cluster-wide operation of the root namespace.
  if (!request.namespace.isRoot) throw unsupportedPath();
}

const required = (field: string): never => {
  throw badRequest(`'${field}' parameter not supplied or empty`);
};

/** Reads base64 binary public keys, in order; a key that does not parse is a 400 naming its position. */
async function readPgpKeys(texts: string[]): Promise<PgpRecipients> {
  const keys: openpgp.Key[] = [];
  for (const [index, text] of texts.entries()) {
    try {
      keys.push(await openpgp.readKey({ binaryKey: new Uint8Array(Buffer.from(text, "base64")) }));
    } catch (e) {
      throw badRequest(`error parsing PGP key ${index + 1}: ${(e as Error).message}`);
    }
  }
  return { keys, fingerprints: keys.map((key) => key.getFingerprint()) };
}

/** Each share encrypted to the PGP key in the same position, as binary OpenPGP messages. */
async function encryptShares(shares: readonly Buffer[], recipients: PgpRecipients): Promise<Buffer[]> {
  return Promise.all(
    shares.map(async (share, index) => {
      const message = await openpgp.createMessage({ binary: new Uint8Array(share) });
      const encrypted = await openpgp.encrypt({ message, encryptionKeys: recipients.keys[index], format: "binary" });
      return Buffer.from(encrypted as Uint8Array);
    }),
  );
}

function status(module: RekeyModule) {
  const attempt = module.attempt;
  return {
    nonce: attempt?.nonce ?? "",
    started: attempt !== undefined,
    t: attempt?.t ?? 0,
    n: attempt?.n ?? 0,
    progress: attempt?.given.length ?? 0,
    required: module.seal.threshold,
    pgp_fingerprints: attempt?.pgp?.fingerprints ?? null,
    backup: attempt?.backup ?? false,
    verification_required: attempt?.verificationRequired ?? false,
  };
}

function verificationStatus(attempt: RekeyAttempt) {
  const verification = attempt.verification!;
  return { started: true, nonce: verification.nonce, t: attempt.t, n: attempt.n, progress: verification.given.length };
}

function requireAttempt(module: RekeyModule): RekeyAttempt {
  if (!module.attempt) throw badRequest("no rekey in progress");
  return module.attempt;
}

/** `key` and `nonce` of an update or verify request; the nonce must be the one expected. */
function readKeyAndNonce(body: RequestBody, expected: string, what: "rekey" | "verify"): Buffer {
  const key = readString(body, "key");
  if (key === undefined) throw badRequest("'key' must be specified in request body as JSON");
  const nonce = readString(body, "nonce");
  if (nonce === undefined) throw badRequest("'nonce' must be specified in request body as JSON");
  if (nonce !== expected) throw badRequest(`incorrect nonce supplied; nonce for this ${what} operation is ${expected}`);
  return decodeShare(key);
}

/** Adds a share unless it was given already in this round; returns whether the threshold is reached. */
function addShare(given: Buffer[], share: Buffer, threshold: number): boolean {
  if (given.some((g) => g.equals(share))) throw badRequest("given key has already been provided during this generation operation");
  given.push(share);
  return given.length >= threshold;
}

/** Combines the shares of a round; any failure to rebuild `expected` is a 400 as the service gives it. */
async function rebuildAndCheck(shares: Buffer[], expected: Buffer, failure: string): Promise<void> {
  let rebuilt: Buffer;
  try {
    rebuilt = await combineShares(shares);
  } catch (e) {
    throw badRequest(`failed to compute master key: ${(e as Error).message}`);
  }
  if (!rebuilt.equals(expected)) throw badRequest(failure);
}

async function initAttempt(module: RekeyModule, body: RequestBody) {
  if (module.attempt) throw badRequest("rekey already in progress");
  const n = readInteger(body, "secret_shares") ?? required("secret_shares");
  const t = readInteger(body, "secret_threshold") ?? required("secret_threshold");
  checkSplit(n, t);
  const pgpTexts = readStringList(body, "pgp_keys") ?? [];
  const backup = readBool(body, "backup") ?? false;
  const verificationRequired = readBool(body, "require_verification") ?? false;
  if (module.seal.storedKeys) {
    // The seal keeps the new master key itself: nothing is split, encrypted or verified.
    if (n !== 1 || t !== 1) throw badRequest("secret shares and secret threshold must be 1 when the seal stores keys");
    if (pgpTexts.length > 0) throw badRequest("PGP keys not supported when the seal stores keys: no shares are returned");
    if (verificationRequired) throw badRequest("requiring verification not supported when the seal stores keys");
  }
  if (pgpTexts.length > 0 && pgpTexts.length !== n) throw badRequest("count mismatch between number of provided PGP keys and number of shares");
  if (backup && pgpTexts.length === 0) throw badRequest("cannot request a backup of the new keys without providing PGP keys");
  const pgp = pgpTexts.length > 0 ? await readPgpKeys(pgpTexts) : undefined;
  module.attempt = { nonce: newNonce(), t, n, pgp, backup, verificationRequired, given: [] };
  return status(module);
}

async function updateAttempt(module: RekeyModule, body: RequestBody) {
  const attempt = requireAttempt(module);
  if (attempt.verification) {
    throw badRequest(
      `rekey operation already finished; verification must be performed; nonce for the verification operation is ${attempt.verification.nonce}`,
    );
  }
  const share = readKeyAndNonce(body, attempt.nonce, "rekey");
  if (!addShare(attempt.given, share, module.seal.threshold)) return status(module);

  // The threshold is reached: the round's shares are used once, whatever the outcome.
  const given = attempt.given;
  attempt.given = [];
  await rebuildAndCheck(given, module.seal.authorisingKey, "master key verification failed: cipher: message authentication failed");

  const masterKey = randomBytes(MASTER_KEY_BYTES);
  const shares = module.seal.storedKeys ? [] : await splitKey(masterKey, attempt.n, attempt.t);
  const handedOut = attempt.pgp ? await encryptShares(shares, attempt.pgp) : shares;
  const encoded = encodeShares(handedOut);
  if (attempt.pgp && attempt.backup) {
    const byFingerprint = (texts: string[]) => {
      const out: Record<string, string[]> = {};
      attempt.pgp!.fingerprints.forEach((fp, i) => (out[fp] ??= []).push(texts[i]));
      return out;
    };
    module.backup = { nonce: attempt.nonce, keys: byFingerprint(encoded.keys), keys_base64: byFingerprint(encoded.keys_base64) };
  }
  const completion = {
    complete: true,
    ...encoded,
    nonce: attempt.nonce,
    pgp_fingerprints: attempt.pgp?.fingerprints ?? null,
    backup: attempt.backup,
    verification_required: attempt.verificationRequired,
  };
  if (attempt.verificationRequired) {
    // The rotation waits until a threshold of the new shares comes back.
    attempt.verification = { nonce: newNonce(), masterKey, shares, given: [] };
    return { ...completion, verification_nonce: attempt.verification.nonce };
  }
  module.seal.rotate(masterKey, shares, attempt.t);
  module.attempt = undefined;
  return completion;
}

function requireVerification(module: RekeyModule): RekeyAttempt {
  if (!module.attempt) throw badRequest("no rekey configuration found");
  if (!module.attempt.verification) throw badRequest("no rekey verification in progress");
  return module.attempt;
}

async function verifyAttempt(module: RekeyModule, body: RequestBody) {
  const attempt = requireVerification(module);
  const verification = attempt.verification!;
  const share = readKeyAndNonce(body, verification.nonce, "verify");
  if (!addShare(verification.given, share, attempt.t)) return verificationStatus(attempt);
  const given = verification.given;
  verification.given = [];
  await rebuildAndCheck(given, verification.masterKey, "recovered key does not match the new master key: verification failed");
  module.seal.rotate(verification.masterKey, verification.shares, attempt.t);
  module.attempt = undefined;
  return { nonce: verification.nonce, complete: true };
}

/** Registers `sys/rekey/*` and initialises the seal; returns the out-of-band view of both. */
export async function registerRekeyRoutes(router: KeepRouter, options: SealOptions = {}): Promise<SealEmulator> {
  const module = router.state.moduleState("rekey", () => new RekeyModule());
  await module.seal.initialize(options);
  const write = (step: (request: KeepRequest) => Promise<unknown>) => async (request: KeepRequest) => {
    requireRoot(request);
    return ok(await module.serial(() => step(request)));
  };

  router.add({
    path: "sys/rekey/init",
    summary: "The rekey attempt: its status, starting it, cancelling it.",
    operations: {
      read: {
        summary: "Reads the rekey status.",
        handler: (request) => {
          requireRoot(request);
          return ok(status(module));
        },
      },
      write: { summary: "Starts a rekey attempt with a new nonce.", status: 200, handler: write((request) => initAttempt(module, request.body)) },
      delete: {
        summary: "Cancels the rekey attempt; the current unseal keys remain valid.",
        handler: async (request) => {
          requireRoot(request);
          await module.serial(async () => {
            module.attempt = undefined;
          });
        },
      },
    },
  });

  router.add({
    path: "sys/rekey/update",
    summary: "Takes one current unseal key share of the rekey attempt.",
    operations: {
      write: {
        summary: "Submits one key share with the attempt's nonce.",
        status: 200,
        handler: write((request) => updateAttempt(module, request.body)),
      },
    },
  });

  router.add({
    path: "sys/rekey/verify",
    summary: "Verification of the new key shares before the master key is rotated.",
    operations: {
      read: {
        summary: "Reads the verification status.",
        handler: (request) => {
          requireRoot(request);
          return ok(verificationStatus(requireVerification(module)));
        },
      },
      write: {
        summary: "Submits one new key share with the verification nonce.",
        status: 200,
        handler: write((request) => verifyAttempt(module, request.body)),
      },
      delete: {
        summary: "Restarts verification with a new nonce; the rekey attempt stays.",
        status: 200,
        handler: write(async () => {
          const attempt = requireVerification(module);
          attempt.verification!.given = [];
          attempt.verification!.nonce = newNonce();
          return verificationStatus(attempt);
        }),
      },
    },
  });

  router.add({
    path: "sys/rekey/backup",
    summary: "The backup of the PGP-encrypted new key shares.",
    operations: {
      read: {
        summary: "Reads the backed-up encrypted key shares.",
        handler: (request) => {
          requireRoot(request);
          if (!module.backup) throw notFound();
          return systemReply({ ...structuredClone(module.backup) });
        },
      },
      delete: {
        summary: "Deletes the backup.",
        handler: (request) => {
          requireRoot(request);
          module.backup = undefined;
        },
      },
    },
  });

  return {
    shares: () => ({ ...renameBase64(encodeShares(module.seal.shares)), threshold: module.seal.threshold }),
    masterKey: () => Buffer.from(module.seal.masterKey),
    get storedKeys() {
      return module.seal.storedKeys;
    },
    initialize: async (sealOptions = {}) => {
      await module.serial(async () => {
        module.attempt = undefined;
        module.backup = undefined;
        await module.seal.initialize(sealOptions);
      });
    },
    combine: async (shares) => {
      try {
        return await combineShares(shares.map(decodeShare));
      } catch (e) {
        throw new Error(e instanceof KeepError ? e.errors.join("; ") : (e as Error).message);
      }
    },
    attempt: () => {
      const attempt = module.attempt;
      if (!attempt) return undefined;
      const verification = attempt.verification ? { verificationNonce: attempt.verification.nonce, verificationProgress: attempt.verification.given.length } : {};
      return { nonce: attempt.nonce, progress: attempt.given.length, ...verification };
    },
    backup: () => structuredClone(module.backup),
  };
}

function renameBase64(encoded: { keys: string[]; keys_base64: string[] }) {
  return { keys: encoded.keys, keysBase64: encoded.keys_base64 };
}
