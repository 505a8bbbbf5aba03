/** The transform engine (`keep.transform.*`): resources and functions. */
export { Alphabet } from "./alphabet";
export type { AlphabetArgs } from "./alphabet";
export { Template } from "./template";
export type { TemplateArgs } from "./template";
export { Transformation } from "./transformation";
export type { TransformationArgs } from "./transformation";
export { Role } from "./role";
export type { RoleArgs } from "./role";
export { Store } from "./store";
export type { StoreArgs } from "./store";
export { StoreSchema } from "./store-schema";
export type { StoreSchemaArgs } from "./store-schema";
export { EncodedValue } from "./encoded-value";
export type { EncodedValueArgs } from "./encoded-value";
export { encode, decode, validate, isTokenized, getMetadata, iterateSnapshot, snapshot, splitBatch, TransformFunctionError } from "./functions";
export type {
  TransformTarget,
  BatchOptions,
  EncodeItem,
  DecodeItem,
  TokenItem,
  EncodeArgs,
  EncodeBatchArgs,
  DecodeArgs,
  DecodeBatchArgs,
  TokenArgs,
  TokenBatchArgs,
  EncodeResult,
  EncodeBatchResult,
  DecodeResult,
  DecodeBatchResult,
  ValidateResult,
  TokenizedResult,
  MetadataResult,
  SnapshotArgs,
  SnapshotResult,
} from "./functions";
