/** The cloud-credentials engine (`keep.cloud.*`): resources and functions. */
export { RootConfig } from "./root-config";
export type { RootConfigArgs } from "./root-config";
export { LeaseConfig } from "./lease-config";
export type { LeaseConfigArgs } from "./lease-config";
export { Role } from "./role";
export type { RoleArgs } from "./role";
export { RotateRoot } from "./rotate-root";
export type { RotateRootArgs } from "./rotate-root";
export { Credentials } from "./credentials";
export type { CredentialsArgs } from "./credentials";
export { getCredentials, getStsCredentials, CloudFunctionError } from "./functions";
export type { GetCredentialsArgs, GetStsCredentialsArgs, CloudCredentials } from "./functions";
