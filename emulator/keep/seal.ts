/**
 * The seal of the secrets service emulator, done for real (ARCHITECTURE.md, "The emulator owes nothing to the product"): a 32-byte random master
 * key split into unseal key shares with Shamir's scheme (`shamir-secret-sharing`, whose share
 * layout is the service's: the secret's bytes then one byte of x-coordinate, 33 bytes in all).
 *
 * The library needs two shares or more, so one share is handled apart, as the service does: the
 * single share is the master key itself. A seal that stores its key (an auto-unseal seal) keeps the
 * master key itself and gives out one recovery key instead; rekeying it is 1-of-1 and returns no
 * shares.
 */
import { randomBytes } from "node:crypto";
import { combine, split } from "shamir-secret-sharing";
import { badRequest } from "./replies";

export const MASTER_KEY_BYTES = 32;
/** A share carries one byte more than the secret: its x-coordinate. */
export const SHARE_BYTES = MASTER_KEY_BYTES + 1;
export const MAX_SHARES = 255;

export interface SealOptions {
  /** Unseal key shares made at start (default 5); a stored-keys seal makes one recovery key. */
  shares?: number;
  /** Shares needed to rebuild the master key (default 3). */
  threshold?: number;
  /**
   * A seal that stores the master key itself (auto-unseal): one recovery key authorises a rekey,
   * which must ask for 1 share of threshold 1 and returns no shares.
   */
  storedKeys?: boolean;
}

/** Checks a share count and threshold as the service does; the message is the service's kind. */
export function checkSplit(shares: number, threshold: number): void {
  if (!Number.isInteger(shares) || shares < 1) throw badRequest("invalid seal configuration: shares must be at least one");
  if (!Number.isInteger(threshold) || threshold < 1) throw badRequest("invalid seal configuration: threshold must be at least one");
  if (shares > MAX_SHARES) throw badRequest(`invalid seal configuration: shares must be at most ${MAX_SHARES}`);
  if (threshold > shares) throw badRequest("invalid seal configuration: threshold cannot be larger than shares");
  if (shares > 1 && threshold === 1) throw badRequest("invalid seal configuration: threshold must be greater than one for multiple shares");
}

/** Splits `secret` into `shares` shares, `threshold` of which rebuild it; one share is the secret. */
export async function splitKey(secret: Buffer, shares: number, threshold: number): Promise<Buffer[]> {
  checkSplit(shares, threshold);
  if (shares === 1) return [Buffer.from(secret)];
  return (await split(new Uint8Array(secret), shares, threshold)).map((share) => Buffer.from(share));
}

/** Rebuilds the secret from shares; a single share is the secret. Throws on shares that cannot combine. */
export async function combineShares(shares: readonly Buffer[]): Promise<Buffer> {
  if (shares.length === 1) return Buffer.from(shares[0]);
  return Buffer.from(await combine(shares.map((share) => new Uint8Array(share))));
}

/**
 * A key as a request gives it: hex first, else base64, as the service reads `key`. Its length must
 * be a master key's (a single share) or a share's.
 */
export function decodeShare(text: string): Buffer {
  const trimmed = text.trim();
  let key: Buffer | undefined;
  if (/^(?:[0-9a-fA-F]{2})+$/.test(trimmed)) key = Buffer.from(trimmed, "hex");
  else if (/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) && trimmed.length % 4 === 0) key = Buffer.from(trimmed, "base64");
  if (!key) throw badRequest("'key' must be a valid hex or base64 string");
  if (key.length < MASTER_KEY_BYTES) throw badRequest(`key is shorter than minimum ${MASTER_KEY_BYTES} bytes`);
  if (key.length > SHARE_BYTES) throw badRequest(`key is longer than maximum ${SHARE_BYTES} bytes`);
  return key;
}

/** The shares as the service hands them out: `keys` in hex, `keys_base64` in base64. */
export function encodeShares(shares: readonly Buffer[]): { keys: string[]; keys_base64: string[] } {
  return { keys: shares.map((s) => s.toString("hex")), keys_base64: shares.map((s) => s.toString("base64")) };
}

/** The cluster's seal: its master key and the shares that authorise a rekey. */
export class Seal {
  masterKey: Buffer = Buffer.alloc(0);
  /** Unseal key shares, or the one recovery key of a stored-keys seal. */
  shares: Buffer[] = [];
  threshold = 0;
  storedKeys = false;
  private recoveryKey?: Buffer;

  /** A fresh master key and shares, as initialising the service makes them. */
  async initialize(options: SealOptions = {}): Promise<void> {
    const storedKeys = options.storedKeys ?? false;
    const shares = options.shares ?? (storedKeys ? 1 : 5);
    const threshold = options.threshold ?? (storedKeys ? 1 : Math.min(3, shares));
    checkSplit(shares, threshold);
    const masterKey = randomBytes(MASTER_KEY_BYTES);
    // A stored-keys seal's recovery key is a secret of its own, independent of the master key.
    this.shares = await splitKey(storedKeys ? randomBytes(MASTER_KEY_BYTES) : masterKey, shares, threshold);
    this.masterKey = masterKey;
    this.threshold = threshold;
    this.storedKeys = storedKeys;
    this.recoveryKey = storedKeys ? await combineShares(this.shares.slice(0, threshold)) : undefined;
  }

  /** What the current shares must rebuild: the master key, or a stored-keys seal's recovery key. */
  get authorisingKey(): Buffer {
    return this.recoveryKey ?? this.masterKey;
  }

  /** A new master key split into new shares replaces the old one (the rotation at a rekey's end). */
  rotate(masterKey: Buffer, shares: Buffer[], threshold: number): void {
    this.masterKey = masterKey;
    if (this.storedKeys) return; // The recovery key stays; the seal keeps the new master key.
    this.shares = shares;
    this.threshold = threshold;
  }
}
