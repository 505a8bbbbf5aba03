/**
 * Functions of the transform engine: `encode`, `decode`, `validate`, `isTokenized`, `getMetadata`
 * (one value, or a batch with `batchInput`), and tokenization snapshots. Called from a TypeScript
 * program they run in its process with its stack configuration (`keep:address`, `keep:token`, ...),
 * through `programContext()`; the provider plugin serves them through `Invoke`.
 *
 * A batch too large for one request (the service takes at most 32 MB) or longer than
 * `maxItemsPerRequest` is split into requests, a few at a time; results come back joined in input
 * order, each with its `reference`. Decoded values are Pulumi secrets.
 */
import type * as pulumi from "@pulumi/pulumi";
import { secret } from "@pulumi/pulumi/output";
import { z } from "zod";
import { OperationContext, programContext } from "../../../provider/context";
import { Endpoint, readBy } from "../../../provider/contract";
import { transform, TransformResults } from "../../../provider/contracts/keep";
import { KeepRequestOptions } from "../../../provider/keep-client";
import { FunctionError, functionArguments, functionCall, functionFamily } from "../../../provider/functions";
import { snakeCase } from "../../../provider/names";
import { transformMount } from "./common";

const text = z.string().min(1, "must not be empty");

const targetShape = {
  /** Where the transform engine is mounted (default `transform`). */
  mount: transformMount,
  /** Namespace, overriding `keep:namespace`. */
  namespace: text.optional(),
  /** Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection. */
  cluster: text.optional(),
};
const target = z.strictObject(targetShape);

const count = z.number().int().positive("must be at least 1");
const batchOptions = z.strictObject({
  /** Most items in one request (default 1000). */
  maxItemsPerRequest: count.optional(),
  /** Most bytes of one request body (default 16 MiB; the service refuses more than 32 MB). */
  maxRequestBytes: count.optional(),
  /** Requests in flight at once (default 4). */
  concurrency: count.optional(),
});

const roleShape = {
  ...targetShape,
  /** Role the request goes through (`<mount>/encode/<role>`). */
  role: text,
  /** How a batch is split into requests. */
  batch: batchOptions.optional(),
};

/** Transformation; may be left out when the role has exactly one. */
const transformation = text.optional();
const reference = z.string().optional();

const encodeFields = {
  /** The value to encode. */
  value: z.string(),
  /** Transformation; may be left out when the role has exactly one. */
  transformation,
  /** Tokenization: life of the token, seconds or a duration ("1h"); capped by the transformation's `maxTtl`. */
  ttl: z.union([z.string(), z.number().nonnegative()]).optional(),
  /** Tokenization: `key1=value1,key2=value2` kept with the token. */
  metadata: z.string().optional(),
  /** FPE with a `supplied` tweak source: base64 of 7 bytes. */
  tweak: z.string().optional(),
};

const decodeFields = {
  /** The encoded value (token or FPE ciphertext). */
  value: z.string(),
  /** Transformation; may be left out when the role has exactly one. */
  transformation,
  /** FPE with a `supplied` or `generated` tweak source: base64 of 7 bytes, as at encode. */
  tweak: z.string().optional(),
};

const tokenFields = {
  /** The token (or, for `isTokenized`, the plaintext). */
  value: z.string(),
  /** Transformation; may be left out when the role has exactly one. */
  transformation,
};

const decodeFormatShape = {
  /** One of the template's named decode formats; the value comes back in that format. */
  decodeFormat: text.optional(),
};

const encodeItem = z.strictObject({
  ...encodeFields,
  /** Echoed in the item's result. */
  reference,
});
const decodeItem = z.strictObject({
  ...decodeFields,
  /** Echoed in the item's result. */
  reference,
});
const tokenItem = z.strictObject({
  ...tokenFields,
  /** Echoed in the item's result. */
  reference,
});

/** One value's arguments: the role's and the value's fields. A batch's: the role's and `batchInput`, the values in order (the results come back in the same order). */
const encodeArgs = z.strictObject({ ...roleShape, ...encodeFields });
const encodeBatchArgs = z.strictObject({
  ...roleShape,
  /** The values to encode, in order (the results come back in the same order); instead of one value's fields. */
  batchInput: z.array(encodeItem),
});
const decodeArgs = z.strictObject({ ...roleShape, ...decodeFields, ...decodeFormatShape });
const decodeBatchArgs = z.strictObject({
  ...roleShape,
  /** The values to decode, in order (the results come back in the same order); instead of one value's fields. */
  batchInput: z.array(decodeItem),
  ...decodeFormatShape,
});
const tokenArgs = z.strictObject({ ...roleShape, ...tokenFields });
const tokenBatchArgs = z.strictObject({
  ...roleShape,
  /** The tokens (or plaintexts) to ask about, in order (the results come back in the same order); instead of one value's fields. */
  batchInput: z.array(tokenItem),
});

/** Where the engine is and which connection reaches it; every function takes these. */
export interface TransformTarget extends z.input<typeof target> {}
/** How a batch is split into requests. */
export interface BatchOptions extends z.input<typeof batchOptions> {}
/** One value of an encode batch. */
export interface EncodeItem extends z.input<typeof encodeItem> {}
/** One value of a decode batch. */
export interface DecodeItem extends z.input<typeof decodeItem> {}
/** One token (or, for `isTokenized`, one plaintext) of a tokenization query batch. */
export interface TokenItem extends z.input<typeof tokenItem> {}
export interface EncodeArgs extends z.input<typeof encodeArgs> {}
export interface EncodeBatchArgs extends z.input<typeof encodeBatchArgs> {}
export interface DecodeArgs extends z.input<typeof decodeArgs> {}
export interface DecodeBatchArgs extends z.input<typeof decodeBatchArgs> {}
export interface TokenArgs extends z.input<typeof tokenArgs> {}
export interface TokenBatchArgs extends z.input<typeof tokenBatchArgs> {}

export interface EncodeResult {
  /** The encoded value: the FPE ciphertext, the masked value or the token. */
  encodedValue: string;
  /** The tweak the service generated (`generated` tweak source): keep it to decode. */
  tweak?: string;
}
export interface EncodeBatchResult {
  /** The encoded values with their references, in input order. */
  batchResults: (EncodeResult & ItemReference)[];
}
export interface DecodeResult {
  /** The plaintext, as a Pulumi secret. */
  decodedValue: pulumi.Output<string>;
}
export interface DecodeBatchResult {
  /** The plaintexts with their references, in input order, as one Pulumi secret. */
  batchResults: pulumi.Output<
    {
      /** The plaintext. */
      decodedValue: string;
      /** The item's `reference`, echoed. */
      reference?: string;
    }[]
  >;
}
export interface ValidateResult {
  /** Whether the token exists and has not expired. */
  valid: boolean;
}
export interface TokenizedResult {
  /** Whether the plaintext has an unexpired token. */
  tokenized: boolean;
}
export interface MetadataResult {
  /** `key=value` pairs given at encode. */
  metadata: string;
  /** When the token expires (RFC 3339); absent when it never does. */
  expirationTime?: string;
}

/** An error of a transform function: which call, what the service said, what to do. */
export class TransformFunctionError extends FunctionError {}

const family = functionFamily({ prefix: "keep.transform", error: TransformFunctionError });

const DEFAULT_BATCH: Required<BatchOptions> = { maxItemsPerRequest: 1000, maxRequestBytes: 16 * 1024 * 1024, concurrency: 4 };

/** Consecutive slices of `items` within both limits; an item alone over the byte limit still goes, alone. */
export function splitBatch<T>(items: readonly T[], options: BatchOptions = {}): T[][] {
  const { maxItemsPerRequest, maxRequestBytes } = { ...DEFAULT_BATCH, ...options };
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && (current.length >= maxItemsPerRequest || bytes + size > maxRequestBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** Runs `fn` on each chunk, `width` at a time; results in chunk order. */
async function pooled<T, R>(chunks: readonly T[], width: number, fn: (chunk: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(chunks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(width, chunks.length)) }, async () => {
      while (next < chunks.length) {
        const index = next++;
        results[index] = await fn(chunks[index]);
      }
    }),
  );
  return results;
}

/** Drops undefined fields and renames camel-case ones to the wire's snake case. */
function wire(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[snakeCase(key)] = value;
  return out;
}

type Call = keyof TransformResults;
type Args = z.output<z.ZodObject<typeof roleShape>> & { batchInput?: object[]; decodeFormat?: string };

/** The arguments read by the schema of their form: a batch when they have `batchInput`, else one value. */
const argsOf = (one: z.ZodType, batch: z.ZodType) => readBy((args) => ("batchInput" in args ? batch : one) as z.ZodType<Args>);

/** One value or a batch in chunks, through the role: the result items in input order. */
async function callItems<C extends Call>(call: C, args: Args, ctx: OperationContext): Promise<TransformResults[C][]> {
  // What is left of the arguments is the one value's fields; the decode format goes in the path.
  const { role: _r, mount: _m, namespace: _n, cluster: _c, batch: _b, decodeFormat, batchInput, ...single } = args;
  const params = { mount: args.mount, role: args.role, ...(decodeFormat ? { decodeFormat } : {}) };
  const options: KeepRequestOptions = args.namespace ? { namespace: args.namespace } : {};
  const client = ctx.keep(args.cluster);
  // Each call's row reads its own answer; the decode format has a route of its own.
  const row = (call === "decode" && decodeFormat ? transform.decodeWithFormat : transform[call]) as unknown as Endpoint<never, TransformResults[C][], "error">;
  const post = async (body: Record<string, unknown>) => (await client.send(row, { params, body, options })).body;
  if (!batchInput) return post(wire(single));
  const chunks = splitBatch(batchInput.map((item) => wire(item as Record<string, unknown>)), args.batch);
  const { concurrency } = { ...DEFAULT_BATCH, ...args.batch };
  const answers = await pooled(chunks, concurrency, async (chunk) => {
    const results = await post({ batch_input: chunk });
    if (results.length !== chunk.length) throw new Error(`the service answered ${results.length} results for ${chunk.length} items`);
    return results;
  });
  return answers.flat();
}

const referenceOf = (item: { reference?: string }) => (item.reference ? { reference: item.reference } : {});

/** The reference a batch's result carries. */
interface ItemReference {
  /** The item's `reference`, echoed. */
  reference?: string;
}

/** A function of one value or a batch: each answer item read by `fromItem`, a batch's with its reference (or as `batch` makes it). */
function itemFunction<
  C extends Call,
  Single,
  Batch,
  R,
  BatchResult = {
    /** The results in input order, each with its item's `reference`. */
    batchResults: (R & ItemReference)[];
  },
>(
  name: string,
  call: C,
  schemas: { one: z.ZodType; batch: z.ZodType },
  fromItem: (item: TransformResults[C]) => R,
  batch: (items: TransformResults[C][]) => unknown = (items) => items.map((item) => ({ ...fromItem(item), ...referenceOf(item) })),
) {
  const declared = family.define<unknown, unknown, Args>({
    name,
    args: argsOf(schemas.one, schemas.batch),
    about: (args) => `role "${args.role}"`,
    async run(args, ctx) {
      const items = await callItems(call, args, ctx);
      return args.batchInput ? { batchResults: batch(items) } : fromItem(items[0]);
    },
  });
  return declared as unknown as { (args: Single, ctx?: OperationContext): Promise<R>; (args: Batch, ctx?: OperationContext): Promise<BatchResult> };
}

/**
 * Encodes a value, or a batch (`batchInput`), through a role. FPE keeps the value's format; masking
 * hides the captured characters; tokenization returns a new random token each call.
 */
export const encode = itemFunction<"encode", EncodeArgs, EncodeBatchArgs, EncodeResult, EncodeBatchResult>("encode", "encode", { one: encodeArgs, batch: encodeBatchArgs }, (item) => ({
  encodedValue: item.encoded_value,
  ...(item.tweak ? { tweak: item.tweak } : {}),
}));

/**
 * Decodes a value, or a batch, through a role; `decodeFormat` names one of the template's decode
 * formats (FPE). The plaintexts are Pulumi secrets.
 */
export const decode = itemFunction<"decode", DecodeArgs, DecodeBatchArgs, DecodeResult, DecodeBatchResult>(
  "decode",
  "decode",
  { one: decodeArgs, batch: decodeBatchArgs },
  (item) => ({ decodedValue: secret(item.value) }),
  // The whole list is one secret.
  (items) => secret(items.map((item) => ({ decodedValue: item.value, ...referenceOf(item) }))),
);

/** Whether a token (or each token of a batch) is valid: it exists and has not expired. Tokenization only. */
export const validate = itemFunction<"validate", TokenArgs, TokenBatchArgs, ValidateResult>("validate", "validate", { one: tokenArgs, batch: tokenBatchArgs }, (item) => ({ valid: item.valid }));

/** Whether a plaintext (or each of a batch) has an unexpired token. Tokenization only. */
export const isTokenized = itemFunction<"tokenized", TokenArgs, TokenBatchArgs, TokenizedResult>("isTokenized", "tokenized", { one: tokenArgs, batch: tokenBatchArgs }, (item) => ({ tokenized: item.tokenized }));

/** The metadata and expiration of a token (or of each token of a batch). Tokenization only. */
export const getMetadata = itemFunction<"metadata", TokenArgs, TokenBatchArgs, MetadataResult>("getMetadata", "metadata", { one: tokenArgs, batch: tokenBatchArgs }, (item) => ({
  metadata: item.metadata,
  ...(item.expiration_time ? { expirationTime: item.expiration_time } : {}),
}));

const snapshotArgs = z.strictObject({
  ...targetShape,
  /** The tokenization transformation; its first store is snapshotted. */
  transformation: text,
  /** Values per request (the service's default is 1000). */
  limit: count.optional(),
});

export interface SnapshotArgs extends z.input<typeof snapshotArgs> {}

/**
 * Every value of a tokenization transformation's store, page by page, following `continuation`:
 * the values present at the first call (opaque strings, for backup or migration between stores).
 * @param ctx connection settings; default: the program's stack configuration (`programContext()`).
 */
export async function* iterateSnapshot(args: SnapshotArgs, ctx: OperationContext = programContext()): AsyncGenerator<string, void, undefined> {
  const { mount, transformation, limit, namespace, cluster } = functionArguments(TransformFunctionError, "keep.transform.snapshot", snapshotArgs, args);
  const params = { mount, transformation };
  const options: KeepRequestOptions = namespace ? { namespace } : {};
  let continuation: string | undefined;
  do {
    const page = await functionCall(
      TransformFunctionError,
      `keep.transform.snapshot(transformation "${transformation}")`,
      async () => (await ctx.keep(cluster).send(transform.snapshot, { params, body: wire({ limit, continuation }), options })).body,
    );
    yield* page.values;
    continuation = page.continuation || undefined;
  } while (continuation);
}

/** A tokenization store's snapshot. */
export interface SnapshotResult {
  /** Every value of the store: opaque strings, to restore into another store. */
  values: string[];
}

/**
 * Every value of a tokenization transformation's store, collected from all pages.
 * @param ctx connection settings; default: the program's stack configuration (`programContext()`).
 */
export async function snapshot(args: SnapshotArgs, ctx: OperationContext = programContext()): Promise<SnapshotResult> {
  const values: string[] = [];
  for await (const value of iterateSnapshot(args, ctx)) values.push(value);
  return { values };
}
