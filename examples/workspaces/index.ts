/**
 * Workspaces of the workspace service, and the configuration of one of them uploaded from the
 * `configuration` directory next to this file. Configure `workspaces:address`, `workspaces:token`
 * (a secret) and `workspaces:organization`, then `pulumi up`. A change of a file under
 * `configuration` uploads a new configuration version; destroy archives the old one.
 */
import * as path from "node:path";
import { workspaces } from "pulumi-keepstack";

export = async () => {
  // Runs remotely on the service; only changes under modules/network start a run.
  const network = new workspaces.Workspace("network", {
    name: "network-production",
    description: "Network of the production environment",
    executionMode: "remote",
    iacVersion: "~> 1.9",
    triggerPatterns: ["modules/network/**/*.tf"],
  });

  // The files the workspace's runs use; runs are queued by hand, not on upload.
  const configuration = new workspaces.ConfigurationVersion("network-configuration", {
    workspaceId: network.id,
    directory: path.join(__dirname, "configuration"),
    exclude: ["*.state", ".iac/"],
    autoQueueRuns: false,
  });

  // A scratch workspace, destroyed by the service after two weeks without activity.
  const sandbox = new workspaces.Workspace("sandbox", {
    name: "sandbox",
    executionMode: "local",
    autoDestroyActivityDuration: "14d",
  });

  return {
    networkWorkspaceId: network.id,
    configurationVersionId: configuration.id,
    configurationStatus: configuration.status,
    sandboxWorkspaceId: sandbox.id,
  };
};
