/** Resources and functions of the workspace service. */
export { Workspace } from "./workspace";
export type { WorkspaceArgs } from "./workspace";
export { ConfigurationVersion } from "./configuration-version";
export type { ConfigurationVersionArgs } from "./configuration-version";
export {
  listWorkspaces,
  listConfigurationVersions,
  getConfigurationVersion,
  getIngressAttributes,
  downloadConfigurationVersion,
  WorkspacesFunctionError,
} from "./functions";
export type {
  WorkspaceSummary,
  ConfigurationVersionInfo,
  ConfigurationVersionWithIngress,
  IngressAttributes,
  ListWorkspacesArgs,
  ListConfigurationVersionsArgs,
  GetConfigurationVersionArgs,
  DownloadConfigurationVersionArgs,
  DownloadedConfiguration,
} from "./functions";
