/**
 * The cloud provider behind the cloud-credentials engine, in memory: the IAM user the engine's root
 * credentials belong to, its access keys (at most two, as the provider allows), keys revoked by a
 * rotation, the users and sessions generated credentials stand for, and the provider's eventual
 * consistency: a key made by a rotation is refused for a while (`consistencyWindowMs`).
 */
import { randomBytes } from "node:crypto";

export const ACCOUNT_ID = "123456789012";
/** The IAM user the first root credentials the engine is given belong to. */
export const ROOT_USER = "keep-root";

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const randomText = (length: number, alphabet: string) => Array.from(randomBytes(length), (b) => alphabet[b % alphabet.length]).join("");

export const newAccessKeyId = (prefix = "AKIA") => `${prefix}${randomText(16, UPPER)}`;
export const newSecretKey = () => randomText(40, `${ALNUM}+/`);

export interface AccessKey {
  id: string;
  secret: string;
  user: string;
  /** Epoch ms from which the provider accepts the key everywhere (eventual consistency). */
  usableAt: number;
}

/** A user or session the engine generated credentials for. */
export interface GeneratedIdentity {
  kind: "iam_user" | "federation_token" | "assumed_role";
  /** IAM user name, federated user name or role session name. */
  name: string;
  arn: string;
  accessKey: string;
  path?: string;
  groups?: string[];
  tags?: Record<string, string>;
  policyArns?: string[];
  policyDocument?: string;
  permissionsBoundaryArn?: string;
}

/** The provider's answer to a call made with the engine's credentials. */
export type CallFailure = { code: string; message: string; consistency: boolean; /** The provider's HTTP status. */ status: number };

export interface CloudSettings {
  /** How long a key made by a rotation is refused after it is made. */
  consistencyWindowMs: number;
  /**
   * Status the engine answers calls refused during that window with; by default the service's own
   * (400 for credentials, 500 for a rotation), which are not the retryable ones.
   */
  consistencyStatus?: number;
}

export class FakeCloud {
  readonly keys = new Map<string, AccessKey>();
  /** Keys deleted by a rotation (or out of band): the provider refuses them for good. */
  readonly revoked = new Set<string>();
  readonly generated: GeneratedIdentity[] = [];

  constructor(readonly settings: CloudSettings) {}

  /**
   * The engine was given credentials: a key the provider has never seen becomes a key of the root
   * user (the service does not check keys when they are written, and tests give any), so a
   * revoked key written back stays revoked.
   */
  learn(accessKey: string, secretKey: string): void {
    if (!accessKey || this.keys.has(accessKey) || this.revoked.has(accessKey)) return;
    // Each key first seen belongs to a user of its own, as keys of different users would.
    const users = new Set([...this.keys.values()].map((k) => k.user));
    let user = ROOT_USER;
    for (let n = 2; users.has(user); n++) user = `${ROOT_USER}-${n}`;
    this.keys.set(accessKey, { id: accessKey, secret: secretKey, user, usableAt: 0 });
  }

  /** Whether the provider accepts a call signed with these credentials now. */
  check(accessKey: string | undefined, secretKey: string | undefined): CallFailure | undefined {
    if (!accessKey || !secretKey) return { code: "NoCredentialProviders", message: "no valid providers in chain", consistency: false, status: 0 };
    const key = this.keys.get(accessKey);
    const invalid = { code: "InvalidClientTokenId", message: "The security token included in the request is invalid.", consistency: false, status: 403 };
    if (!key) return invalid;
    if (key.secret !== secretKey) {
      return { code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided.", consistency: false, status: 403 };
    }
    if (Date.now() < key.usableAt) return { ...invalid, consistency: true };
    return undefined;
  }

  keysOf(user: string): AccessKey[] {
    return [...this.keys.values()].filter((k) => k.user === user);
  }

  /** CreateAccessKey: refused when the user holds two keys already (the provider's quota). */
  createKey(user: string, usableAfterMs: number): AccessKey | CallFailure {
    if (this.keysOf(user).length >= 2) {
      return { code: "LimitExceeded", message: "Cannot exceed quota for AccessKeysPerUser: 2", consistency: false, status: 409 };
    }
    const key = { id: newAccessKeyId(), secret: newSecretKey(), user, usableAt: Date.now() + usableAfterMs };
    this.keys.set(key.id, key);
    return key;
  }

  /** Every key usable everywhere now, as time passing would make them. */
  settle(): void {
    for (const key of this.keys.values()) key.usableAt = 0;
  }

  deleteKey(id: string): boolean {
    const existed = this.keys.delete(id);
    this.revoked.add(id);
    return existed;
  }
}
