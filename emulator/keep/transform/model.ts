/** What the transform engine of the emulator stores, by kind (relative to the mount). */

export const KINDS = {
  role: "role",
  transformation: "transformation",
  template: "template",
  alphabet: "alphabet",
  store: "stores",
} as const;

export type TransformationType = "fpe" | "masking" | "tokenization";
export const TRANSFORMATION_TYPES: readonly TransformationType[] = ["fpe", "masking", "tokenization"];
export type TweakSource = "supplied" | "generated" | "internal";
export const TWEAK_SOURCES: readonly TweakSource[] = ["supplied", "generated", "internal"];
export type MappingMode = "default" | "exportable";
export const MAPPING_MODES: readonly MappingMode[] = ["default", "exportable"];

export interface StoredRole {
  transformations: string[];
}

export interface StoredAlphabet {
  alphabet: string;
}

export interface StoredTemplate {
  type: "regex";
  pattern: string;
  alphabet: string;
  encode_format: string;
  decode_formats: Record<string, string>;
}

export interface StoredTransformation {
  type: TransformationType;
  templates: string[];
  tweak_source: TweakSource;
  masking_character: string;
  mapping_mode: MappingMode;
  /** Seconds; 0 means tokens never expire. */
  max_ttl: number;
  allowed_roles: string[];
  stores: string[];
  /** Identity of the transformation in token stores, stable across updates. */
  id: string;
  /** AES-256 key (base64): FF3-1 for FPE, sealing and hashing for tokenization. */
  key: string;
  /** The tweak of the `internal` tweak source (base64, 7 bytes). */
  internal_tweak: string;
}

export interface StoredStore {
  type: "sql";
  driver: "postgres" | "mysql";
  connection_string: string;
  username: string;
  password: string;
  supported_transformations: string[];
  schema: string;
  max_open_connections: number;
  max_idle_connections: number;
  /** Seconds; 0 means no limit. */
  max_connection_lifetime: number;
}
