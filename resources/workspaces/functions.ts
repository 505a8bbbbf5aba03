/**
 * Functions of the workspace service. Called from a TypeScript program they run in the program's
 * process and read the connection settings from its stack configuration (`programContext`); the
 * provider plugin serves the same functions through `Invoke`, with its own configuration.
 */
import { isNotFound } from "../../provider/errors";
import { configurationVersions, JsonApiResourceObject, workspaceAttributes, workspaces } from "../../provider/contracts/workspaces";
import { relatedId, WorkspacesClient } from "../../provider/workspaces-client";
import { extractArchive } from "./configuration-archive";
import { configurationVersionComputed } from "./configuration-version";
import { camelKeys } from "./json-api-names";
import { FunctionError, functionFamily } from "../../provider/functions";

type Attributes = Record<string, unknown>;

/** A workspace as a list reports it. */
export interface WorkspaceSummary {
  /** The workspace's ID (`ws-…`). */
  id: string;
  /** The workspace's name, unique in its organization. */
  name: string;
  /** The organization the workspace belongs to. */
  organization: string;
  /** The project the workspace belongs to (`prj-…`), or null. */
  projectId: string | null;
  /** The workspace's description, or null. */
  description: string | null;
  /** Where runs execute: `remote`, `local` or `agent`, or null. */
  executionMode: string | null;
  /** The version of the infrastructure tool runs use, or null. */
  iacVersion: string | null;
  /** The agent pool of runs in `agent` execution mode, or null. */
  agentPoolId: string | null;
  /** Whether the workspace is locked. */
  locked: boolean;
  /** How many resources the workspace's state holds. */
  resourceCount: number;
  /** The directory runs execute in, relative to the configuration's root, or null. */
  workingDirectory: string | null;
  /** The linked repository as the service returns it (camel-case keys), or null. */
  vcsRepo: Record<string, unknown> | null;
  /** The workspace's tags. */
  tagNames: string[];
  /** When the workspace was created (RFC 3339), or null. */
  createdAt: string | null;
  /** When the workspace last changed (RFC 3339), or null. */
  updatedAt: string | null;
}

/** A configuration version as the service reports it. */
export interface ConfigurationVersionInfo {
  /** The version's ID (`cv-…`). */
  id: string;
  /** `pending` (no upload yet), `fetching`, `uploaded`, `archived` or `errored`. */
  status: string;
  /** When the version reached each status (`<status>-at` → RFC 3339). */
  statusTimestamps: Record<string, string>;
  /** Where the configuration came from (`tfe-api`, a VCS provider, ...), or null. */
  source: string | null;
  /** Whether an upload queues a run, or null when the service does not say. */
  autoQueueRuns: boolean | null;
  /** Whether runs of this version are plan-only, or null when the service does not say. */
  speculative: boolean | null;
  /** Whether the version stays out of the workspace's current configuration, or null when the service does not say. */
  provisional: boolean | null;
  /** The error code of an errored version, or null. */
  error: string | null;
  /** What went wrong with an errored version, or null. */
  errorMessage: string | null;
  /** The ID of the version's commit information (`ia-…`), when it came from a repository, or null. */
  ingressAttributesId: string | null;
  /** The version's links (`self`, `download`), each a path or null. */
  links: Record<string, string | null>;
}

/** Commit information of a configuration version created from a VCS repository (camel-case keys of the spec's attributes). */
export interface IngressAttributes {
  /** The commit information's ID (`ia-…`). */
  id: string;
  /** The branch of the commit. */
  branch?: string;
  /** The URL the repository is cloned from. */
  cloneUrl?: string;
  /** The commit's message. */
  commitMessage?: string;
  /** The commit's SHA. */
  commitSha?: string;
  /** The commit's page on the repository host. */
  commitUrl?: string;
  /** The page comparing the commit with its base. */
  compareUrl?: string;
  /** The repository (`<owner>/<name>`). */
  identifier?: string;
  /** Whether the commit came from a pull request. */
  isPullRequest?: boolean;
  /** Whether the commit is on the repository's default branch. */
  onDefaultBranch?: boolean;
  /** The pull request's number. */
  pullRequestNumber?: number;
  /** The pull request's page. */
  pullRequestUrl?: string;
  /** The pull request's title. */
  pullRequestTitle?: string;
  /** The pull request's description. */
  pullRequestBody?: string;
  /** The tag of the commit, or null. */
  tag?: string | null;
  /** The user who pushed the commit, as the repository host names them. */
  senderUsername?: string;
  /** The avatar of that user. */
  senderAvatarUrl?: string;
  /** The page of that user. */
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

/** A configuration version with its commit information. */
export interface ConfigurationVersionWithIngress extends ConfigurationVersionInfo {
  /** The commit information of a version made from a repository, or null. */
  ingressAttributes: IngressAttributes | null;
}

/** One configuration version with its ingress attributes (read with `include=ingress-attributes`; null when it has none). */
export const getConfigurationVersion = family.define<GetConfigurationVersionArgs, ConfigurationVersionWithIngress>({
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

/** Where a configuration version was downloaded to. */
export interface DownloadedConfiguration {
  /** The directory holding the configuration's files. */
  directory: string;
}

/**
 * Downloads a configuration version's archive (following the service's redirect to a temporary URL)
 * and unpacks it into `directory`, streaming. Fails clearly when the version is not `uploaded`.
 */
export const downloadConfigurationVersion = family.define<DownloadConfigurationVersionArgs, DownloadedConfiguration>({
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

/** A configuration version a function names; when it is not there, the advice names the argument. */
async function readVersion(client: WorkspacesClient, id: string, query?: Record<string, string>) {
  try {
    return await client.send(configurationVersions.get, { params: { id }, options: { query } });
  } catch (e) {
    throw isNotFound(e) ? e.withAdvice(`no configuration version ${id} is visible to this token: check configurationVersionId (a ConfigurationVersion's id output, cv-…)`) : e;
  }
}
