/** Resources of the secrets service. */
export { AclPolicy } from "./policies/acl";
export type { AclPolicyArgs } from "./policies/acl";
export { RgpPolicy } from "./policies/rgp";
export type { RgpPolicyArgs } from "./policies/rgp";
export { EgpPolicy } from "./policies/egp";
export type { EgpPolicyArgs } from "./policies/egp";
export * as sync from "./sync";
export * as kv from "./kv";
export * as transform from "./transform";
export * as cloud from "./cloud";
export * as replication from "./replication";
export { Rekey, RekeyVerify, RekeyBackupDeletion, getRekeyStatus, getRekeyBackup, RekeyFunctionError } from "./rekey";
export type { RekeyArgs, RekeyVerifyArgs, RekeyBackupDeletionArgs, RekeyTarget, RekeyStatus, RekeyBackup } from "./rekey";
