/**
 * Workspace: `POST /organizations/:organization/workspaces`, `PATCH /workspaces/:id`, and (the spec
 * gives no detail of them) `GET`/`DELETE /workspaces/:id` and `GET /organizations/:organization/workspaces/:name`.
 */
import { z } from "zod";
import { failureMessage } from "../../provider/advice";
import type { OperationContext } from "../../provider/context";
import { ApiError, ObjectExistsError, PartialCreateError } from "../../provider/errors";
import { defineResource, ResourceArgs } from "../../provider/resource";
import { ownerLabel, parseOwnerLabel } from "../../provider/owner";
import { nth, ReadResult, resourceSpec } from "../../provider/spec";
import { JsonApiResourceObject, workspaceAttributes, workspaces } from "../../provider/contracts/workspaces";
import { relatedId } from "../../provider/workspaces-client";
import { camelKeys, has } from "./json-api-names";
import { VcsRepoInputs, WorkspaceInputs, workspaceInputs } from "./workspace-inputs";

/** Workspace IDs are `ws-` and 16 letters and digits. */
const WORKSPACE_ID = /^ws-[A-Za-z0-9]{16}$/;

const nullableString = z.string().nullable();
const nullableNumber = z.number().nullable();

const computed = z.object({
  /** Organization the workspace belongs to (the declared one, or `workspaces:organization`). */
  effectiveOrganization: z.string(),
  /** Project the workspace is in. */
  effectiveProjectId: nullableString,
  /** Execution mode in use: the declared one, or the organization default. */
  effectiveExecutionMode: z.string(),
  /** Agent pool in use, or null. */
  effectiveAgentPoolId: nullableString,
  /** Tool version in use (the declared one, or the release chosen at creation). */
  effectiveIacVersion: z.string(),
  /** The deprecated `operations` flag as the service reports it. */
  effectiveOperations: z.boolean().optional(),
  /** Which organization defaults the workspace overrides, as the service reports it. */
  effectiveSettingOverwrites: z
    .object({
      /** Whether the workspace sets its own execution mode. */
      executionMode: z.boolean(),
      /** Whether the workspace sets its own agent pool. */
      agentPool: z.boolean(),
    })
    .partial(),
  /** The linked repository as the service returns it (branch, displayIdentifier, repositoryHttpUrl, serviceProvider, webhookUrl...), or null. */
  vcsRepoDetails: z.record(z.string(), z.unknown()).nullable(),
  /** The linked repository (`<owner>/<name>`), or null. */
  vcsRepoIdentifier: nullableString,
  /** When the workspace was created (RFC 3339). */
  createdAt: z.string(),
  /** When the workspace last changed (RFC 3339), or null. */
  updatedAt: nullableString,
  /** When the workspace's state or configuration last changed (RFC 3339), or null. */
  latestChangeAt: nullableString,
  /** When the last health assessment finished (RFC 3339), or null. */
  lastAssessmentResultAt: nullableString,
  /** Whether the workspace is locked. */
  locked: z.boolean(),
  /** Resources in the workspace's current state. */
  resourceCount: z.number(),
  /** The workspace's environment name, as the service reports it, or null. */
  environment: nullableString,
  /** Origin of the workspace (`workspaces-api`, ...). */
  source: nullableString,
  /** Whether runs show structured output, as the service reports it. */
  structuredRunOutputEnabled: z.boolean().optional(),
  /** The workspace's tags. */
  tagNames: z.array(z.string()),
  /** What the token may do on the workspace (`canQueueRun`, `canUpdate`, ...). */
  permissions: z.record(z.string(), z.boolean()),
  /** `isDestroyable`. */
  actions: z.record(z.string(), z.boolean()),
  /** Average duration of applies, in milliseconds, or null. */
  applyDurationAverage: nullableNumber,
  /** Average duration of plans, in milliseconds, or null. */
  planDurationAverage: nullableNumber,
  /** How many policy checks failed, or null. */
  policyCheckFailures: nullableNumber,
  /** How many runs failed, or null. */
  runFailures: nullableNumber,
  /** How many runs the workspace's indicators count, or null. */
  workspaceKpisRunsCount: nullableNumber,
  /** The configuration version runs use now (`cv-…`), or null. */
  currentConfigurationVersionId: nullableString,
  /** The run under way or last finished (`run-…`), or null. */
  currentRunId: nullableString,
  /** The latest run (`run-…`), or null. */
  latestRunId: nullableString,
});

type Computed = z.output<typeof computed>;
type Attributes = Record<string, unknown>;

/** Where a workspace is, by any form of its ID: `ws-…`, `<organization>/<name>`, or a name in the configured organization. */
type WorkspaceAt = { id: string } | { organization: string; name: string };

function workspaceAt(ctx: OperationContext, id: string): WorkspaceAt {
  const slash = id.indexOf("/");
  if (slash >= 0) return { organization: id.slice(0, slash), name: id.slice(slash + 1) };
  return WORKSPACE_ID.test(id) ? { id } : { organization: ctx.workspaces().organization(), name: id };
}

/** Reads a workspace by any form of its ID; undefined when absent. */
export async function readWorkspace(ctx: OperationContext, id: string): Promise<JsonApiResourceObject | undefined> {
  const client = ctx.workspaces();
  const at = workspaceAt(ctx, id);
  const found = "id" in at ? await client.send(workspaces.read, { params: at }) : await client.send(workspaces.readByName, { params: at });
  if (found || !("id" in at) || !client.config.organization) return found?.body;
  // A name that looks like an ID (`ws-` and 16 characters) is also tried as a name.
  return (await client.send(workspaces.readByName, { params: { organization: client.config.organization, name: id } }))?.body;
}

const asSent = (attributes: Attributes, relationships?: ReturnType<typeof relationshipsOf>) => ({ type: "workspaces" as const, attributes, relationships });

function vcsRepoBody(repo: VcsRepoInputs): Attributes {
  const body: Attributes = {
    identifier: repo.identifier,
    // An empty branch is the repository's default branch.
    branch: repo.branch ?? "",
    "ingress-submodules": repo.ingressSubmodules,
    "tags-regex": repo.tagsRegex ?? null,
  };
  if (repo.oauthTokenId !== undefined) body["oauth-token-id"] = repo.oauthTokenId;
  if (repo.githubAppInstallationId !== undefined) body["github-app-installation-id"] = repo.githubAppInstallationId;
  return body;
}

/** Attributes with a create default: always sent, so what the program declares is what the service holds. */
const DEFAULTED: readonly [keyof WorkspaceInputs, string][] = [
  ["allowDestroyPlan", "allow-destroy-plan"],
  ["autoApply", "auto-apply"],
  ["autoApplyRunTrigger", "auto-apply-run-trigger"],
  ["fileTriggersEnabled", "file-triggers-enabled"],
  ["globalRemoteState", "global-remote-state"],
  ["queueAllRuns", "queue-all-runs"],
  ["speculativeEnabled", "speculative-enabled"],
  ["triggerPatterns", "trigger-patterns"],
  ["triggerPrefixes", "trigger-prefixes"],
];

/** Attributes without a default: on update an undeclared one is cleared (null). */
const CLEARABLE: readonly [keyof WorkspaceInputs, string][] = [
  ["description", "description"],
  ["autoDestroyAt", "auto-destroy-at"],
  ["autoDestroyActivityDuration", "auto-destroy-activity-duration"],
  ["workingDirectory", "working-directory"],
];

function settingOverwritesBody(overwrites: NonNullable<WorkspaceInputs["settingOverwrites"]>): Attributes {
  const body: Attributes = {};
  if (overwrites.executionMode !== undefined) body["execution-mode"] = overwrites.executionMode;
  if (overwrites.agentPool !== undefined) body["agent-pool"] = overwrites.agentPool;
  return body;
}

/** The execution settings: `operations` or `execution-mode` (never both), the pool, the overwrites. */
function executionBody(args: WorkspaceInputs): Attributes {
  const body: Attributes = {};
  if (args.operations !== undefined) body.operations = args.operations;
  else if (args.executionMode !== undefined) body["execution-mode"] = args.executionMode;
  if (args.agentPoolId !== undefined) body["agent-pool-id"] = args.agentPoolId;
  if (args.settingOverwrites !== undefined) body["setting-overwrites"] = settingOverwritesBody(args.settingOverwrites);
  return body;
}

export function createAttributes(args: WorkspaceInputs): Attributes {
  const body: Attributes = { name: args.name };
  for (const [key, attribute] of DEFAULTED) body[attribute] = args[key];
  for (const [key, attribute] of CLEARABLE) if (args[key] !== undefined) body[attribute] = args[key];
  // Sent only when asked for: the attribute exists only on the hosted offering.
  if (args.assessmentsEnabled) body["assessments-enabled"] = true;
  if (args.iacVersion !== undefined) body["iac-version"] = args.iacVersion.trim();
  if (args.sourceName !== undefined) body["source-name"] = args.sourceName;
  if (args.sourceUrl !== undefined) body["source-url"] = args.sourceUrl;
  Object.assign(body, executionBody(args));
  // The service links a repository through the host application on update only (see create).
  if (args.vcsRepo && args.vcsRepo.githubAppInstallationId === undefined) body["vcs-repo"] = vcsRepoBody(args.vcsRepo);
  return body;
}

/** Every managed attribute: declared values, defaults for undeclared ones, null to clear. */
export function updateAttributes(args: WorkspaceInputs, olds: Attributes): Attributes {
  const body: Attributes = { name: args.name };
  for (const [key, attribute] of DEFAULTED) body[attribute] = args[key];
  for (const [key, attribute] of CLEARABLE) body[attribute] = args[key] ?? null;
  if (args.assessmentsEnabled || olds.assessmentsEnabled === true) body["assessments-enabled"] = args.assessmentsEnabled;
  if (args.iacVersion !== undefined) body["iac-version"] = args.iacVersion.trim();
  Object.assign(body, executionBody(args));
  body["vcs-repo"] = args.vcsRepo ? vcsRepoBody(args.vcsRepo) : null;
  return body;
}

function relationshipsOf(args: WorkspaceInputs) {
  return args.projectId ? { project: { data: { type: "projects", id: args.projectId } } } : undefined;
}

function computedOf(resource: JsonApiResourceObject): Computed {
  const a = workspaceAttributes.parse(resource.attributes);
  return {
    effectiveOrganization: relatedId(resource, "organization") ?? "",
    effectiveProjectId: relatedId(resource, "project"),
    effectiveExecutionMode: a["execution-mode"] ?? "",
    effectiveAgentPoolId: relatedId(resource, "agent-pool"),
    effectiveIacVersion: a["iac-version"] ?? "",
    effectiveOperations: a.operations,
    effectiveSettingOverwrites: camelKeys(a["setting-overwrites"]),
    vcsRepoDetails: a["vcs-repo"] ? camelKeys(a["vcs-repo"]) : null,
    vcsRepoIdentifier: a["vcs-repo-identifier"],
    createdAt: a["created-at"] ?? "",
    updatedAt: a["updated-at"],
    latestChangeAt: a["latest-change-at"],
    lastAssessmentResultAt: a["last-assessment-result-at"],
    locked: a.locked,
    resourceCount: a["resource-count"] ?? 0,
    environment: a.environment,
    source: a.source,
    structuredRunOutputEnabled: a["structured-run-output-enabled"],
    tagNames: a["tag-names"],
    permissions: camelKeys(a.permissions),
    actions: camelKeys(a.actions),
    applyDurationAverage: a["apply-duration-average"],
    planDurationAverage: a["plan-duration-average"],
    policyCheckFailures: a["policy-check-failures"],
    runFailures: a["run-failures"],
    workspaceKpisRunsCount: a["workspace-kpis-runs-count"],
    currentConfigurationVersionId: relatedId(resource, "current-configuration-version"),
    currentRunId: relatedId(resource, "current-run"),
    latestRunId: relatedId(resource, "latest-run"),
  };
}

/** Inputs as the service reports them. Settings whose default the service chooses are reported only when the program declares them. */
function inputsOf(resource: JsonApiResourceObject, state: Attributes | undefined): Partial<WorkspaceInputs> {
  const a = resource.attributes as Attributes;
  const declared = (key: keyof WorkspaceInputs) => state === undefined || state[key] !== undefined;
  const inputs: Record<string, unknown> = {};
  const put = (key: keyof WorkspaceInputs, attribute: string, map: (v: unknown) => unknown = (v) => v ?? undefined) => {
    if (has(a, attribute)) inputs[key] = map(a[attribute]);
  };
  put("name", "name");
  for (const [key, attribute] of DEFAULTED) put(key, attribute);
  for (const [key, attribute] of CLEARABLE) put(key, attribute);
  put("assessmentsEnabled", "assessments-enabled");
  // The owner the package records there is no input (see `ownerRecord`).
  if (!parseOwnerLabel(a["source-name"])) put("sourceName", "source-name");
  put("sourceUrl", "source-url");
  if (declared("iacVersion")) put("iacVersion", "iac-version");
  if (declared("executionMode")) put("executionMode", "execution-mode");
  if (declared("operations")) put("operations", "operations");
  if (declared("agentPoolId")) inputs.agentPoolId = relatedId(resource, "agent-pool") ?? undefined;
  if (declared("projectId")) inputs.projectId = relatedId(resource, "project") ?? undefined;
  if (declared("organization")) inputs.organization = relatedId(resource, "organization") ?? undefined;
  if (declared("settingOverwrites") && has(a, "setting-overwrites")) {
    const reported = camelKeys<Record<string, boolean>>(a["setting-overwrites"] ?? {});
    const wanted = state?.settingOverwrites as Record<string, unknown> | undefined;
    // Only the keys the program declares are compared.
    inputs.settingOverwrites = wanted ? Object.fromEntries(Object.keys(wanted).map((k) => [k, reported[k]])) : reported;
  }
  if (has(a, "vcs-repo")) inputs.vcsRepo = vcsRepoInputsOf(a["vcs-repo"] as Attributes | null, state);
  return inputs as Partial<WorkspaceInputs>;
}

function vcsRepoInputsOf(repo: Attributes | null, state: Attributes | undefined): VcsRepoInputs | undefined {
  if (!repo) return undefined;
  const declaredBranch = (state?.vcsRepo as VcsRepoInputs | undefined)?.branch;
  // An empty branch means the default branch: the branch name the service reports for it is no difference.
  const branch = state !== undefined && !declaredBranch ? declaredBranch : (repo.branch as string) || undefined;
  return {
    identifier: repo.identifier as string,
    branch,
    ingressSubmodules: repo["ingress-submodules"] === true,
    oauthTokenId: (repo["oauth-token-id"] as string | null) ?? undefined,
    githubAppInstallationId: (repo["github-app-installation-id"] as string | null) ?? undefined,
    tagsRegex: (repo["tags-regex"] as string | null) ?? undefined,
  };
}

function resultOf(resource: JsonApiResourceObject, state: Attributes | undefined): ReadResult<WorkspaceInputs, Computed> {
  return { id: resource.id, inputs: inputsOf(resource, state), computed: computedOf(resource), owner: parseOwnerLabel(resource.attributes["source-name"]) };
}

/** "Name taken": the service's answer when the organization already holds a workspace of this name. */
function isNameTaken(error: ApiError): boolean {
  return error.status === 422 && error.details.some((d) => d.pointer === "/data/attributes/name" && /taken|exists/i.test(d.message));
}

/**
 * A name taken on a first attempt is someone else's workspace (a lost answer is taken over by the
 * machine, see `isConflict`): the error names it and how to adopt it.
 */
async function explainNameTaken(ctx: OperationContext, error: unknown, organization: string, name: string): Promise<unknown> {
  if (!(error instanceof ApiError) || !isNameTaken(error)) return error;
  const existing = await readWorkspace(ctx, `${organization}/${name}`).catch(() => undefined);
  if (!existing) return error;
  return new ObjectExistsError("workspaces:Workspace", `${organization}/${name}`, {
    refusal: error,
    ownId: existing.id,
    hint: `\`adopt: true\` finds it by organization and name; \`adopt: true, adoptId: "${existing.id}"\` by its ID`,
  });
}

export const workspaceSpec = resourceSpec({
  module: "workspaces",
  type: "Workspace",
  inputs: workspaceInputs,
  computed,
  replaceOnChanges: ["organization", "sourceName", "sourceUrl"],
  effective: {
    organization: "effectiveOrganization",
    projectId: "effectiveProjectId",
    executionMode: "effectiveExecutionMode",
    agentPoolId: "effectiveAgentPoolId",
    iacVersion: "effectiveIacVersion",
    operations: "effectiveOperations",
  },
  normalize: {
    // The service stores the instant and answers it in its own format.
    autoDestroyAt: (value) => {
      const time = Date.parse(value ?? "");
      return Number.isNaN(time) ? value : new Date(time).toISOString();
    },
    iacVersion: (value) => value?.trim(),
    // An empty branch is the default branch, as is no branch.
    vcsRepo: (repo) => {
      if (!repo) return repo;
      const { branch, ...rest } = repo;
      return branch ? { ...rest, branch } : rest;
    },
    // Used at creation only: never a difference.
    adoptId: () => null,
  },
  naturalId: (args) => (args.organization ? `${args.organization}/${args.name}` : args.name),
  adoptionId: (args) => args.adoptId,
  isConflict: isNameTaken,
  ownerRecord: { where: "its `source-name` (shown as \"created via\" it), when the program sets neither `sourceName` nor `sourceUrl`; set at creation only", rewritable: false },
  fromId(id) {
    const slash = id.indexOf("/");
    if (slash >= 0) return { organization: id.slice(0, slash), name: id.slice(slash + 1) };
    return WORKSPACE_ID.test(id) ? {} : { name: id };
  },
  async create(ctx, args, owner) {
    const client = ctx.workspaces();
    const organization = client.organization(args.organization);
    const attributes = createAttributes(args);
    // The service shows the workspace as "created via" its source: there the package records the owner.
    if (owner && args.sourceName === undefined && args.sourceUrl === undefined) attributes["source-name"] = ownerLabel(owner);
    let created: JsonApiResourceObject;
    try {
      created = (await client.send(workspaces.create, { params: { organization }, body: asSent(attributes, relationshipsOf(args)) })).body;
    } catch (e) {
      // Taken by an earlier attempt of this very create, whose answer was lost: the machine takes it over.
      if (e instanceof ApiError && isNameTaken(e) && e.earlierAttemptMayHaveActed) throw e;
      throw await explainNameTaken(ctx, e, organization, args.name);
    }
    if (args.vcsRepo?.githubAppInstallationId !== undefined) {
      try {
        created = (await client.send(workspaces.update, { params: created, body: asSent({ "vcs-repo": vcsRepoBody(args.vcsRepo) }) })).body;
      } catch (e) {
        // The same advice as any failed call (a refused token is told which permission it lacks).
        const message = failureMessage(`workspace ${created.id} was created, but linking its repository through the application installation failed`, e);
        throw new PartialCreateError(message, created.id, computedOf(created), [message]);
      }
    }
    return { id: created.id, computed: computedOf(created) };
  },
  async read(ctx, id, state) {
    const found = await readWorkspace(ctx, id);
    return found && resultOf(found, state);
  },
  async update(ctx, id, args, olds) {
    if (olds.sourceName !== undefined && args.sourceName !== undefined && olds.sourceName !== args.sourceName) {
      throw new Error(`sourceName is set only when a workspace is created; this one has "${olds.sourceName}": declare that, or leave sourceName out`);
    }
    if (olds.sourceUrl !== undefined && args.sourceUrl !== undefined && olds.sourceUrl !== args.sourceUrl) {
      throw new Error(`sourceUrl is set only when a workspace is created; this one has "${olds.sourceUrl}": declare that, or leave sourceUrl out`);
    }
    const at = workspaceAt(ctx, id);
    const body = asSent(updateAttributes(args, olds), relationshipsOf(args));
    const updated = "id" in at ? await ctx.workspaces().send(workspaces.update, { params: at, body }) : await ctx.workspaces().send(workspaces.updateByName, { params: at, body });
    return computedOf(updated.body);
  },
  async delete(ctx, id) {
    const at = workspaceAt(ctx, id);
    await ("id" in at ? ctx.workspaces().send(workspaces.delete, { params: at }) : ctx.workspaces().send(workspaces.deleteByName, { params: at }));
  },
  async list(ctx) {
    const client = ctx.workspaces();
    const items = await client.sendAll(workspaces.list, { params: { organization: client.organization() } });
    return items.map((w) => w.id);
  },
  example: { inputs: (n) => ({ name: nth("app", n), organization: "acme", autoApply: false }), change: { description: "the app" } },
});

/**
 * A workspace of the workspace service. ID: `ws-…`. Adoption (`adopt: true`) finds it by
 * organization and name, or by `adoptId`; `Workspace.get` takes `ws-…`, `<organization>/<name>` or a name.
 */
export const Workspace = defineResource(workspaceSpec);
export type Workspace = InstanceType<typeof Workspace>;
export type WorkspaceArgs = ResourceArgs<typeof workspaceInputs>;
