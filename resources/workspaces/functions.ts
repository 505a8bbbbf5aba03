/**
 * Functions of the workspace service. Dynamic providers have no invoke, so these run in the program's
 * process and read the connection settings from the program's stack configuration (`programContext`).
 */
import { ApiError } from "../../provider/errors";
import { configurationVersions, JsonApiResourceObject, workspaceAttributes, workspaces } from "../../provider/contracts/workspaces";
import { relatedId, WorkspacesClient } from "../../provider/workspaces-client";
import { extractArchive } from "./configuration-archive";
import { configurationVersionComputed } from "./configuration-version";
import { camelKeys } from "./json-api-names";
import { route } from "../../provider/paths";
import { FunctionError, functionFamily } from "../../provider/functions";

type Attributes = Record<string, unknown>;

/** A workspace as a list reports it. */
export interface WorkspaceSummary {
  id: string;
  name: string;
  organization: string;
  projectId: string | null;
  description: string | null;
  executionMode: string | null;
  iacVersion: string | null;
  agentPoolId: string | null;
  locked: boolean;
  resourceCount: number;
  workingDirectory: string | null;
  /** The linked repository as the service returns it (camel-case keys), or null. */
  vcsRepo: Record<string, unknown> | null;
  tagNames: string[];
  createdAt: string | null;
  updatedAt: string | null;
}

/** A configuration version as the service reports it. */
export interface ConfigurationVersionInfo {
  id: string;
  status: string;
  statusTimestamps: Record<string, string>;
  source: string | null;
  autoQueueRuns: boolean | null;
  speculative: boolean | null;
  provisional: boolean | null;
  error: string | null;
  errorMessage: string | null;
  ingressAttributesId: string | null;
  links: Record<string, string | null>;
}

/** Commit information of a configuration version created from a VCS repository (camel-case keys of the spec's attributes). */
export interface IngressAttributes {
  id: string;
  branch?: string;
  cloneUrl?: string;
  commitMessage?: string;
  commitSha?: string;
  commitUrl?: string;
  compareUrl?: string;
  identifier?: string;
  isPullRequest?: boolean;
  onDefaultBranch?: boolean;
  pullRequestNumber?: number;
  pullRequestUrl?: string;
  pullRequestTitle?: string;
  pullRequestBody?: string;
  tag?: string | null;
  senderUsername?: string;
  senderAvatarUrl?: string;
  senderHtmlUrl?: string;
  /** User who pushed the commit. */
  createdById: string | null;
}

function summaryOf(resource: JsonApiResourceObject): WorkspaceSummary {
  const a = workspaceAttributes.parse(resource.attributes);
  return {
    id: resource.id,
    name: String(a.name),
    organization: relatedId(resource, "organization") ?? "",
    projectId: relatedId(resource, "project"),
    description: a.description,
    executionMode: a["execution-mode"],
    iacVersion: a["iac-version"],
    agentPoolId: relatedId(resource, "agent-pool"),
    locked: a.locked,
    resourceCount: a["resource-count"] ?? 0,
    workingDirectory: a["working-directory"],
    vcsRepo: a["vcs-repo"] ? camelKeys(a["vcs-repo"]) : null,
    tagNames: a["tag-names"],
    createdAt: a["created-at"],
    updatedAt: a["updated-at"],
  };
}

function versionInfoOf(resource: JsonApiResourceObject): ConfigurationVersionInfo {
  const a = resource.attributes as Attributes;
  const flag = (key: string) => (typeof a[key] === "boolean" ? (a[key] as boolean) : null);
  const { status, statusTimestamps, source, error, errorMessage, ingressAttributesId, links } = configurationVersionComputed(resource);
  return {
    id: resource.id,
    status,
    statusTimestamps,
    source,
    autoQueueRuns: flag("auto-queue-runs"),
    speculative: flag("speculative"),
    provisional: flag("provisional"),
    error,
    errorMessage,
    ingressAttributesId,
    links,
  };
}

function ingressAttributesOf(resource: JsonApiResourceObject): IngressAttributes {
  return { ...camelKeys<Attributes>(resource.attributes), id: resource.id, createdById: relatedId(resource, "created-by") };
}

/** An error of a workspace-service function: which call failed, what the service said, what to do. */
export class WorkspacesFunctionError extends FunctionError {}

/** A failed call to the service names the function and says what to do; the functions' own errors say what is wrong as they are. */
const family = functionFamily({ prefix: "workspaces", error: WorkspacesFunctionError, onlyApiErrors: true });

export interface ListWorkspacesArgs {
  /** Organization to list; default `workspaces:organization`. */
  organization?: string;
}

/** Every workspace of an organization the token may read, across all pages. */
export const listWorkspaces = family.define<ListWorkspacesArgs, WorkspaceSummary[]>({
  name: "listWorkspaces",
  about: (args) => (args.organization ? `organization "${args.organization}"` : ""),
  async run(args, ctx) {
    const client = ctx.workspaces();
    const organization = client.organization(args.organization);
    return (await client.sendAll(workspaces.list, { params: { organization } })).map(summaryOf);
  },
});

export interface ListConfigurationVersionsArgs {
  /** Workspace (`ws-…`). */
  workspaceId: string;
}

/** Every configuration version of a workspace, newest first, across all pages. */
export const listConfigurationVersions = family.define<ListConfigurationVersionsArgs, ConfigurationVersionInfo[]>({
  name: "listConfigurationVersions",
  about: (args) => `workspace "${args.workspaceId}"`,
  run: async (args, ctx) => (await ctx.workspaces().sendAll(configurationVersions.listPage, { params: args })).map(versionInfoOf),
});

export interface GetConfigurationVersionArgs {
  /** Configuration version (`cv-…`). */
  configurationVersionId: string;
}

const aboutVersion = (args: { configurationVersionId: string }) => `"${args.configurationVersionId}"`;

/** One configuration version with its ingress attributes (read with `include=ingress-attributes`; null when it has none). */
export const getConfigurationVersion = family.define<GetConfigurationVersionArgs, ConfigurationVersionInfo & { ingressAttributes: IngressAttributes | null }>({
  name: "getConfigurationVersion",
  about: aboutVersion,
  async run(args, ctx) {
    const found = await readVersion(ctx.workspaces(), args.configurationVersionId, { include: "ingress-attributes" });
    const info = versionInfoOf(found.body);
    const ingress = found.included.find((r) => r.type === "ingress-attributes" && r.id === info.ingressAttributesId);
    return { ...info, ingressAttributes: ingress ? ingressAttributesOf(ingress) : null };
  },
});

/** The commit information of a configuration version; undefined when the version has none (created through the API). */
export const getIngressAttributes = family.define<GetConfigurationVersionArgs, IngressAttributes | undefined>({
  name: "getIngressAttributes",
  about: aboutVersion,
  async run(args, ctx) {
    const client = ctx.workspaces();
    const params = { id: args.configurationVersionId };
    const found = await client.send(configurationVersions.ingressAttributes, { params });
    if (found) return ingressAttributesOf(found.body);
    await readVersion(client, args.configurationVersionId);
    return undefined;
  },
});

export interface DownloadConfigurationVersionArgs {
  /** Configuration version (`cv-…`); it must be `uploaded`. */
  configurationVersionId: string;
  /** Directory to unpack the files into (created if needed). */
  directory: string;
}

/**
 * Downloads a configuration version's archive (following the service's redirect to a temporary URL)
 * and unpacks it into `directory`, streaming. Fails clearly when the version is not `uploaded`.
 */
export const downloadConfigurationVersion = family.define<DownloadConfigurationVersionArgs, { directory: string }>({
  name: "downloadConfigurationVersion",
  about: aboutVersion,
  async run(args, ctx) {
    const client = ctx.workspaces();
    const params = { id: args.configurationVersionId };
    const { status } = configurationVersionComputed((await readVersion(client, params.id)).body);
    if (status !== "uploaded") {
      throw new Error(
        `configuration version ${args.configurationVersionId} is ${status}: only uploaded versions can be downloaded` +
          (status === "archived" ? " (its files were discarded when it was archived)" : ""),
      );
    }
    const archive = await client.openRedirected(configurationVersions.download, params);
    await extractArchive(archive, args.directory);
    return { directory: args.directory };
  },
});

/** A configuration version, or the 404 that says it does not exist. */
async function readVersion(client: WorkspacesClient, id: string, query?: Record<string, string>) {
  const found = await client.send(configurationVersions.read, { params: { id }, options: { query } });
  if (found) return found;
  throw new ApiError("workspaces", "GET", `/api/v2${route("/configuration-versions/{id}", { id })}`, 404, [{ message: `configuration version ${id} does not exist, or this token cannot read it` }]);
}
