/** The key-value engine's resources (`keep.kv.*`). */
export { Secret } from "./secret";
export type { SecretArgs } from "./secret";
