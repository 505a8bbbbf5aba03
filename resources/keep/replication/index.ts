/** Performance replication of the secrets service (`keep.replication.*`): transitions as operations, paths filters, functions. */
export { PrimaryEnable } from "./primary-enable";
export type { PrimaryEnableArgs } from "./primary-enable";
export { PrimaryDemote } from "./primary-demote";
export type { PrimaryDemoteArgs } from "./primary-demote";
export { PrimaryDisable } from "./primary-disable";
export type { PrimaryDisableArgs } from "./primary-disable";
export { SecondaryToken } from "./secondary-token";
export type { SecondaryTokenArgs } from "./secondary-token";
export { SecondaryEnable } from "./secondary-enable";
export type { SecondaryEnableArgs } from "./secondary-enable";
export { SecondaryPromote } from "./secondary-promote";
export type { SecondaryPromoteArgs } from "./secondary-promote";
export { SecondaryDisable } from "./secondary-disable";
export type { SecondaryDisableArgs } from "./secondary-disable";
export { UpdatePrimary } from "./update-primary";
export type { UpdatePrimaryArgs } from "./update-primary";
export { RevokeSecondary } from "./revoke-secondary";
export type { RevokeSecondaryArgs } from "./revoke-secondary";
export { PathsFilter } from "./paths-filter";
export type { PathsFilterArgs } from "./paths-filter";
export { getStatus, getDynamicFilter, ReplicationFunctionError } from "./functions";
export type {
  GetStatusArgs,
  GetDynamicFilterArgs,
  ReplicationStatus,
  DisabledStatus,
  PrimaryStatus,
  SecondaryStatus,
  KnownPrimary,
  KnownSecondary,
  DynamicFilter,
} from "./functions";
