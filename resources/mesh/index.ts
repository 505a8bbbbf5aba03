/** Resources and functions of the mesh service. */
export { Partition } from "./partition";
export type { PartitionArgs } from "./partition";
export { authorize, getCaRoots, getLeafCertificate, MeshFunctionError } from "./connect";
export type {
  AuthorizeArgs,
  AuthorizeResult,
  CaRoot,
  GetCaRootsArgs,
  GetCaRootsResult,
  GetLeafCertificateArgs,
  GetLeafCertificateResult,
} from "./connect";
