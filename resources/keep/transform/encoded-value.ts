/**
 * Encoded value: a value encoded once, when the resource is created, and kept as a secret output.
 * For values a program needs stable across runs: a tokenization gives a new token at every call,
 * a generated tweak a new ciphertext. It is an operation (ARCHITECTURE.md, "Operations are resources"): create encodes, a change of
 * any input or of `triggers` encodes again (a replacement), refresh never re-encodes, destroy leaves
 * the token on the service.
 */
import { z } from "zod";
import { keepCommonShape, pathSegment } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { operationSpec } from "../../../provider/spec";
import { duration, transformMount } from "./common";
import { encode } from "./functions";

const inputs = z.object({
  /** Where the transform engine is mounted (default `transform`). */
  mount: transformMount,
  /** Role the value is encoded through. */
  role: pathSegment("role name"),
  /**
   * The value to encode: a string (kept in state as a secret) or a reference the provider host
   * resolves (`{ fromConfig }`, `{ fromEnv }`, `{ fromFile }`), which keeps the plaintext out of state.
   */
  value: secretInput("value to encode"),
  /** Transformation; may be left out when the role has exactly one. */
  transformation: z.string().min(1).optional(),
  /** Tokenization: life of the token, seconds or a duration ("24h"); capped by the transformation's `maxTtl`. */
  ttl: duration.optional(),
  /** Tokenization: `key1=value1,key2=value2` kept with the token. */
  metadata: z.string().optional(),
  /** FPE with a `supplied` tweak source: base64 of 7 bytes. */
  tweak: z
    .string()
    .refine((t) => Buffer.from(t, "base64").length === 7, "must be 7 bytes, base64-encoded")
    .optional(),
  ...keepCommonShape,
});

export const encodedValueSpec = operationSpec({
  module: "keep",
  type: "TransformEncodedValue",
  description: "A value encoded once through the transform engine (an operation)",
  inputs,
  computed: z.object({
    /** The encoded value (token or ciphertext), a Pulumi secret. */
    encodedValue: z.string(),
    /** The tweak the service generated (`generated` tweak source), needed to decode. */
    tweak: z.string().optional(),
  }),
  secretInputs: ["value"],
  secretOutputs: ["encodedValue"],
  secretData: ["value"],
  label: (values) => `${values.mount}/encode/${values.role}`,
  async run(ctx, values) {
    const result = await encode(
      {
        mount: values.mount,
        role: values.role,
        namespace: values.namespace,
        cluster: values.cluster,
        value: values.value as string,
        transformation: values.transformation,
        ttl: values.ttl,
        metadata: values.metadata,
        tweak: values.tweak,
      },
      ctx,
    );
    return { encodedValue: result.encodedValue, ...(result.tweak ? { tweak: result.tweak } : {}) };
  },
  example: { inputs: () => ({ role: "payments", value: "4111-1111-1111-1111", transformation: "card-fpe" }) },
});

/** A value encoded once and kept (`encodedValue`, secret); a change of an input or `triggers` encodes again. */
export const EncodedValue = defineResource(encodedValueSpec);
export type EncodedValue = InstanceType<typeof EncodedValue>;
export type EncodedValueArgs = OperationArgs<typeof encodedValueSpec.inputs>;
