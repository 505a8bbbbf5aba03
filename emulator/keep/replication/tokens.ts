/**
 * Activation tokens of performance replication. As in the service, the token a primary hands out
 * for a secondary is a wrapping token in the form of a signed JWT whose claims say where the
 * primary's API listens (`addr`), when it expires (`exp`) and which wrapping it is (`jti`, the
 * accessor). The secondary reads `addr` to reach the primary and unwraps the token there, once.
 * Signed with HMAC-SHA256 under a key of the emulator's network.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface ActivationClaims {
  /** API address of the primary that issued the token. */
  addr: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Issue time, seconds since the epoch. */
  iat: number;
  /** The wrapping's accessor. */
  jti: string;
  type: "wrapping";
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

export function signActivationToken(claims: ActivationClaims, key: Buffer): string {
  const head = `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}`;
  return `${head}.${createHmac("sha256", key).update(head).digest("base64url")}`;
}

/** The claims of a token signed with `key`; undefined when it is not one. */
export function verifyActivationToken(token: string, key: Buffer): ActivationClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const expected = createHmac("sha256", key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as ActivationClaims;
  } catch {
    return undefined;
  }
}

/** The claims of a token, unverified (the secondary reads `addr` before it can unwrap at the primary). */
export function readActivationClaims(token: string): Partial<ActivationClaims> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as unknown;
    return claims && typeof claims === "object" ? (claims as Partial<ActivationClaims>) : undefined;
  } catch {
    return undefined;
  }
}

/** A wrapping accessor in the service's style. */
export const newAccessor = () => randomBytes(12).toString("base64url");

