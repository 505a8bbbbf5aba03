/** Rekey of the secrets service's unseal keys (`sys/rekey/*`): three operations and two functions. */
export { Rekey, rekeySpec } from "./rekey";
export type { RekeyArgs } from "./rekey";
export { RekeyVerify, rekeyVerifySpec } from "./verify";
export type { RekeyVerifyArgs } from "./verify";
export { RekeyBackupDeletion, rekeyBackupDeletionSpec } from "./backup-deletion";
export type { RekeyBackupDeletionArgs } from "./backup-deletion";
export { getRekeyBackup, getRekeyStatus, RekeyFunctionError } from "./functions";
export type { RekeyBackup, RekeyStatus, RekeyTarget } from "./functions";
