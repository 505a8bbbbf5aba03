/**
 * Secrets by reference (ARCHITECTURE.md). A write-only secret input takes the value itself (kept in state
 * as a Pulumi secret) or a reference the provider host resolves when it applies:
 * `{ fromConfig: "app:dbPassword" }`, `{ fromEnv: "DB_PASSWORD" }` or `{ fromFile: "./db.pass" }`.
 *
 * With a reference, state holds the reference and a fingerprint of the value: scrypt with a random
 * salt kept beside it, so a short password cannot be recovered from state by guessing. `check`
 * resolves the reference and fingerprints the value with the salt already in state, so `diff`
 * compares fingerprints: a changed credential plans an update, an unchanged one never does, and no
 * service is called.
 */
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

/** Where a secret comes from when it is not given as a value. */
export type SecretReference =
  | { fromConfig: string; fingerprint?: string }
  | { fromEnv: string; fingerprint?: string }
  | { fromFile: string; fingerprint?: string };

/** A secret input: the value, or a reference to where the provider host finds it. */
export type SecretInput = string | SecretReference;

/** Set by the provider, never by a program: the value's salted fingerprint, so a changed credential plans an update. */
const fingerprintText = z.string().regex(/^scrypt\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/, "is not a fingerprint this package wrote").optional();

const referenceSchema = z.union([
  z.object({
    /** Stack config key holding the value, best set with `pulumi config set --secret` (`app:dbPassword`). */
    fromConfig: z.string().regex(/^[^:\s]+:[^\s]+$/, "must be a stack config key such as `app:dbPassword`"),
    /** Set by the provider, never by a program: the value's salted fingerprint. */
    fingerprint: fingerprintText,
  }).strict(),
  z.object({
    /** Environment variable holding the value where pulumi runs. */
    fromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name"),
    /** Set by the provider, never by a program: the value's salted fingerprint. */
    fingerprint: fingerprintText,
  }).strict(),
  z.object({
    /** File holding the value (a trailing newline is not part of it), relative to where pulumi runs. */
    fromFile: z.string().min(1, "must be a file path"),
    /** Set by the provider, never by a program: the value's salted fingerprint. */
    fingerprint: fingerprintText,
  }).strict(),
]);

/**
 * The zod schema of a secret input: a non-empty string, or a reference. `what` names the value in
 * messages ("secret access key").
 */
export function secretInput(what: string) {
  return z.union([z.string().min(1, `${what} must not be empty`), referenceSchema], {
    error: `must be the ${what} (a string, best as a Pulumi secret) or a reference: { fromConfig: "<ns>:<key>" }, { fromEnv: "NAME" } or { fromFile: "path" }`,
  });
}

/**
 * Whether an input's schema takes a secret reference: it accepts one and refuses one with an unknown
 * key, as the strict reference schema does (a map of strings takes both).
 */
export function takesSecretReference(schema: z.ZodType | undefined): boolean {
  if (!schema) return false;
  return schema.safeParse({ fromConfig: "project:key" }).success && !schema.safeParse({ fromConfig: "project:key", unknownKey: "x" }).success;
}

export function isSecretReference(value: unknown): value is SecretReference {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const o = value as Record<string, unknown>;
  return typeof o.fromConfig === "string" || typeof o.fromEnv === "string" || typeof o.fromFile === "string";
}

/** Where references are resolved: the host's stack config and environment, and its working directory. */
export interface ReferenceSource {
  configValue(key: string): string | undefined;
  envValue(name: string): string | undefined;
}

export class SecretReferenceError extends Error {
  override readonly name = "SecretReferenceError";
}

/** The value a reference stands for now. Throws SecretReferenceError saying what is missing. */
export function resolveReference(ref: SecretReference, source: ReferenceSource): string {
  if ("fromConfig" in ref) {
    const value = source.configValue(ref.fromConfig);
    if (value === undefined || value === "") {
      throw new SecretReferenceError(`stack config ${ref.fromConfig} is not set: run \`pulumi config set --secret ${ref.fromConfig} <value>\``);
    }
    return value;
  }
  if ("fromEnv" in ref) {
    const value = source.envValue(ref.fromEnv);
    if (value === undefined || value === "") throw new SecretReferenceError(`environment variable ${ref.fromEnv} is not set where pulumi runs`);
    return value;
  }
  const file = path.resolve(ref.fromFile);
  try {
    // A trailing newline is how editors and `echo` end a file; it is not part of the secret.
    return fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
  } catch (e) {
    throw new SecretReferenceError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

// scrypt cost: about 30 ms and 16 MiB per fingerprint on a small machine; guessing stays slow.
const SCRYPT = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function saltOf(fingerprint: string | undefined): Buffer | undefined {
  const parts = fingerprint?.split("$");
  return parts?.length === 3 && parts[0] === "scrypt" ? Buffer.from(parts[1], "base64url") : undefined;
}

/** `scrypt$<salt>$<hash>`; the salt of an earlier fingerprint is reused so the two compare. */
export function fingerprintOf(value: string, earlier?: string): string {
  const salt = saltOf(earlier) ?? randomBytes(16);
  const hash = scryptSync(value, salt, 32, SCRYPT);
  return `scrypt$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Whether `value` is the value the fingerprint was made of. */
export function matchesFingerprint(value: string, fingerprint: string): boolean {
  const salt = saltOf(fingerprint);
  if (!salt) return false;
  const expected = Buffer.from(fingerprintOf(value, fingerprint));
  const actual = Buffer.from(fingerprint);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The reference without its fingerprint: what the program declared. */
export function referenceOnly(ref: SecretReference): SecretReference {
  const { fingerprint: _f, ...rest } = ref as SecretReference & { fingerprint?: string };
  return rest as SecretReference;
}

/**
 * The checked form of a reference: resolved now and fingerprinted with the salt of the reference in
 * state (when it is the same reference), so an unchanged value gives the same fingerprint.
 */
export function fingerprintReference(ref: SecretReference, source: ReferenceSource, prior: unknown): SecretReference {
  const value = resolveReference(ref, source);
  const declared = referenceOnly(ref);
  const earlier = isSecretReference(prior) && JSON.stringify(referenceOnly(prior)) === JSON.stringify(declared) ? prior.fingerprint : undefined;
  return { ...declared, fingerprint: fingerprintOf(value, earlier) } as SecretReference;
}
