/** Resources of the secrets service. */
export { AclPolicy, AclPolicyArgs } from "./policies/acl";
export { RgpPolicy, RgpPolicyArgs } from "./policies/rgp";
export { EgpPolicy, EgpPolicyArgs } from "./policies/egp";
