/**
 * Custom repository-host application for `repohost` destinations: `sys/sync/github-apps/:name`.
 * The service never shows the private key; it shows its fingerprint, and refresh compares that
 * with the fingerprint of the declared key, so a key replaced behind the program's back is seen.
 */
import { createHash, createPublicKey } from "node:crypto";
import { z } from "zod";
import type { OperationContext } from "../../../provider/context";
import { syncObjects } from "../../../provider/contracts/keep";
import { keepObject, pathSegment } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { isSecretReference, referenceOnly, resolveReference, secretInput } from "../../../provider/secret-ref";
import { nth } from "../../../provider/spec";

/**
 * The fingerprint the repository host documents for an application key: SHA-256 of the DER
 * public key (SubjectPublicKeyInfo), base64 (`openssl rsa -pubout -outform DER | openssl sha256 -binary | base64`).
 */
export function keyFingerprint(privateKeyPem: string): string {
  return createHash("sha256").update(createPublicKey(privateKeyPem).export({ type: "spki", format: "der" })).digest("base64");
}

const inputs = z.object({
  /** Name of the application in the service; changing it replaces the application. */
  name: pathSegment("application name"),
  /** The application's ID at the repository host. */
  appId: z.union([z.number().int().positive(), z.string().regex(/^\d+$/, "must be a number")]).transform(Number),
  /** The application's PEM private key (a value, best as a Pulumi secret, or a reference). Never shown by the service. */
  privateKey: secretInput("private key"),
});

const base = keepObject({
  type: "SyncRepoHostApp",
  description: "A custom repository-host application for sync",
  rows: syncObjects.repoHostApp,
  inputs,
  fields: { appId: { toWire: (id) => String(id), fromWire: (v) => (v === undefined || v === null ? undefined : Number(v)) } },
  secretInputs: ["privateKey"],
  computed: z.object({
    /** SHA-256 of the key's DER public key, base64, as the service computes it. */
    fingerprint: z.string(),
  }),
  computedOf: (answer) => ({ fingerprint: String(answer.fingerprint ?? "") }),
  example: { inputs: (n) => ({ name: nth("app", n), appId: "12345", privateKey: { fromConfig: "app:secret" } }), change: { appId: "54321" } },
});

/** The declared key's fingerprint, when the key can be had here (a value, or a reference that resolves). */
function declaredFingerprint(ctx: OperationContext, declared: unknown): string | undefined {
  try {
    const pem = isSecretReference(declared) ? resolveReference(declared, ctx) : typeof declared === "string" ? declared : undefined;
    return pem === undefined ? undefined : keyFingerprint(pem);
  } catch {
    return undefined;
  }
}

export const repoHostAppSpec: typeof base = {
  ...base,
  async read(ctx, id, state) {
    const found = await base.read(ctx, id);
    if (!found) return undefined;
    const { privateKey: _obfuscated, ...shown } = found.inputs;
    const declared = state?.privateKey;
    if (declared === undefined) return { ...found, inputs: shown };
    const expected = declaredFingerprint(ctx, declared);
    // Another key on the service: state keeps a value that differs from the declared one, so the
    // next up writes the declared key again.
    const replaced = expected !== undefined && expected !== found.computed.fingerprint;
    const kept = replaced ? (isSecretReference(declared) ? referenceOnly(declared) : `(replaced out of band; fingerprint ${found.computed.fingerprint})`) : declared;
    return { ...found, inputs: { ...shown, privateKey: kept as never } };
  },
};

/**
 * A custom repository-host application that `repohost` destinations use instead of a token. The
 * service refuses to delete it while a destination uses it. ID: the name, or `<namespace>:<name>`.
 */
export const RepoHostApp = defineResource(repoHostAppSpec);
export type RepoHostApp = InstanceType<typeof RepoHostApp>;
export type RepoHostAppArgs = ResourceArgs<typeof repoHostAppSpec.inputs>;
