/**
 * Workspace endpoints of the emulator (create, show, list, update, delete, by id and by
 * organization and name; lock, unlock and force-unlock) and the workspace resource object they
 * answer with.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { canAdministerWorkspace, canCreateWorkspace, canReadWorkspace, canSeeOrganization, principalOf } from "./access";
import { ApiError, JSON_API_TYPE, isObject, notFound, paginate } from "./json-api";
import { LockHolder, Organization, Principal, Store, WorkspaceState, newWorkspace, now } from "./store";
import { resolveWorkspaceWrite } from "./workspace-attributes";

export interface WorkspaceRouteContext {
  store: Store;
  /** Absolute base of the emulator, e.g. http://127.0.0.1:4321. */
  baseUrl(): string;
  /** Drops a workspace with its configuration versions, runs and stored archives. */
  removeWorkspace(id: string): void;
}

const PERMISSION_NAMES = [
  "can-create-state-versions",
  "can-destroy",
  "can-force-delete",
  "can-force-unlock",
  "can-lock",
  "can-manage-assessments",
  "can-manage-run-tasks",
  "can-manage-tags",
  "can-queue-apply",
  "can-queue-destroy",
  "can-queue-run",
  "can-read-assessment-result",
  "can-read-assessment-results",
  "can-read-settings",
  "can-read-state-outputs",
  "can-read-state-versions",
  "can-read-variable",
  "can-unlock",
  "can-update",
  "can-update-variable",
] as const;

export function serializeWorkspace(ws: WorkspaceState, context: WorkspaceRouteContext): Record<string, unknown> {
  const { store } = context;
  const org = store.organizations.get(ws.organization);
  const a = ws.attributes;
  const self = `/api/v2/workspaces/${ws.id}`;
  const ref = (type: string, id: string | null) => (id ? { id, type } : null);
  // Only principals with full rights can read a workspace in this double, so every permission is granted.
  const permissions = Object.fromEntries(PERMISSION_NAMES.map((name) => [name, true]));
  return {
    id: ws.id,
    type: "workspaces",
    attributes: {
      actions: { "is-destroyable": true },
      "allow-destroy-plan": a["allow-destroy-plan"],
      "apply-duration-average": null,
      "assessments-enabled": a["assessments-enabled"] || (org?.assessmentsEnforced ?? false),
      "auto-apply": a["auto-apply"],
      "auto-apply-run-trigger": a["auto-apply-run-trigger"],
      "auto-destroy-at": a["auto-destroy-at"],
      "auto-destroy-activity-duration": a["auto-destroy-activity-duration"],
      "created-at": ws.createdAt,
      description: a.description,
      environment: a.environment,
      "execution-mode": a["execution-mode"],
      "file-triggers-enabled": a["file-triggers-enabled"],
      "global-remote-state": a["global-remote-state"],
      "iac-version": a["iac-version"],
      "inherits-project-auto-destroy": a["inherits-project-auto-destroy"],
      "last-assessment-result-at": null,
      "latest-change-at": ws.latestChangeAt,
      locked: a.locked,
      "locked-reason": a.locked ? ws.lockedReason : "",
      name: a.name,
      // The deprecated flag mirrors the execution mode: false means state storage only.
      operations: a["execution-mode"] !== "local",
      permissions,
      "plan-duration-average": null,
      "policy-check-failures": null,
      "queue-all-runs": a["queue-all-runs"],
      "resource-count": a["resource-count"],
      "run-failures": null,
      "setting-overwrites": { ...a["setting-overwrites"] },
      source: a.source,
      "source-name": a["source-name"],
      "source-url": a["source-url"],
      "speculative-enabled": a["speculative-enabled"],
      "structured-run-output-enabled": a["structured-run-output-enabled"],
      "tag-names": [...a["tag-names"]],
      "trigger-patterns": [...a["trigger-patterns"]],
      "trigger-prefixes": [...a["trigger-prefixes"]],
      "updated-at": ws.updatedAt,
      "vcs-repo": serializeVcsRepo(ws, context),
      "vcs-repo-identifier": a["vcs-repo"]?.identifier ?? null,
      "working-directory": a["working-directory"],
      "workspace-kpis-runs-count": null,
    },
    relationships: {
      "agent-pool": { data: ref("agent-pools", ws.agentPoolId) },
      "current-assessment-result": { data: null },
      "current-configuration-version": {
        data: ref("configuration-versions", ws.currentConfigurationVersionId),
        links: { related: `${self}/current-configuration-version` },
      },
      "current-run": { data: ref("runs", ws.latestRunId), links: { related: `${self}/current-run` } },
      "current-state-version": { data: null, links: { related: `${self}/current-state-version` } },
      "latest-run": { data: ref("runs", ws.latestRunId), links: { related: `${self}/latest-run` } },
      // The real service names the lock's holder only while the workspace is locked.
      ...(a.locked && ws.lockedBy
        ? { "locked-by": { data: { ...ws.lockedBy }, links: { related: `/api/v2/${ws.lockedBy.type}/${encodeURIComponent(ws.lockedBy.id)}` } } }
        : {}),
      organization: { data: { id: ws.organization, type: "organizations" } },
      outputs: { data: [], links: { related: `${self}/current-state-version-outputs` } },
      project: { data: { id: ws.projectId, type: "projects" } },
      readme: { data: null },
      "remote-state-consumers": { links: { related: `${self}/relationships/remote-state-consumers` } },
      vars: { data: [] },
    },
    links: {
      // The real service links a workspace by organization and name, so renaming changes its URL.
      self: `/api/v2/organizations/${encodeURIComponent(ws.organization)}/workspaces/${encodeURIComponent(a.name)}`,
      "self-html": `/app/${encodeURIComponent(ws.organization)}/workspaces/${encodeURIComponent(a.name)}`,
    },
  };
}

function serializeVcsRepo(ws: WorkspaceState, context: WorkspaceRouteContext): Record<string, unknown> | null {
  const repo = ws.attributes["vcs-repo"];
  if (!repo) return null;
  const token = repo["oauth-token-id"] ? context.store.oauthTokens.get(repo["oauth-token-id"]) : undefined;
  const httpBase = token?.httpUrl ?? "https://github.com";
  const out: Record<string, unknown> = {
    branch: repo.branch,
    "display-identifier": repo.identifier,
    identifier: repo.identifier,
    "ingress-submodules": repo["ingress-submodules"],
    "oauth-token-id": repo["oauth-token-id"],
    "repository-http-url": `${httpBase}/${repo.identifier}`,
    "service-provider": token?.serviceProvider ?? "github",
    "tags-regex": repo["tags-regex"],
    "webhook-url": `${context.baseUrl()}/webhooks/vcs/${ws.webhookId}`,
  };
  // Only repositories linked through the host application carry its installation id.
  if (repo["github-app-installation-id"]) out["github-app-installation-id"] = repo["github-app-installation-id"];
  return out;
}

const HOLDER_TYPES: Record<Principal["kind"], LockHolder["type"]> = { user: "users", team: "teams", organization: "organizations" };
const HOLDER_NAMES: Record<LockHolder["type"], string> = { users: "User", teams: "Team", organizations: "Organization" };

function holderOf(principal: Principal): LockHolder {
  return { id: principal.id, type: HOLDER_TYPES[principal.kind] };
}

/** The lock body is plain JSON, `{"reason": "..."}`, every key optional. */
function lockReasonOf(body: unknown): string {
  if (body === undefined || body === null) return "";
  if (!isObject(body)) throw ApiError.of(400, "the request body must be a JSON object", { pointer: "" });
  if (body.reason === undefined || body.reason === null) return "";
  if (typeof body.reason !== "string") throw ApiError.of(422, "reason must be a string", { pointer: "/reason" });
  return body.reason;
}

function visibleOrganization(store: Store, principal: Principal, name: string): Organization {
  const org = store.organizations.get(name);
  if (!org || !canSeeOrganization(principal, name)) throw notFound();
  return org;
}

function readableWorkspace(ws: WorkspaceState | undefined, principal: Principal): WorkspaceState {
  if (!ws || !canReadWorkspace(principal, ws)) throw notFound();
  return ws;
}

export function registerWorkspaceRoutes(api: FastifyInstance, context: WorkspaceRouteContext): void {
  const { store } = context;
  type OrgParams = { org: string };
  type OrgNameParams = { org: string; name: string };
  type IdParams = { id: string };

  const send = (reply: FastifyReply, status: number, ws: WorkspaceState) =>
    reply.code(status).type(JSON_API_TYPE).send({ data: serializeWorkspace(ws, context) });

  const byOrgAndName = (request: FastifyRequest<{ Params: OrgNameParams }>) => {
    const principal = principalOf(request);
    visibleOrganization(store, principal, request.params.org);
    return readableWorkspace(store.findWorkspace(request.params.org, request.params.name), principal);
  };
  const byId = (request: FastifyRequest<{ Params: IdParams }>) =>
    readableWorkspace(store.workspaces.get(request.params.id), principalOf(request));

  api.post<{ Params: OrgParams }>("/organizations/:org/workspaces", async (request, reply) => {
    const principal = principalOf(request);
    const org = visibleOrganization(store, principal, request.params.org);
    if (!canCreateWorkspace(principal, org.name)) {
      throw ApiError.of(403, "workspace creation needs the owners team, manage-workspaces permission or the organization token");
    }
    const write = resolveWorkspaceWrite(request.body, "create", { store, org });
    const ws = newWorkspace(org, write.projectId, write.attributes, write.agentPoolId);
    store.workspaces.set(ws.id, ws);
    return send(reply, 201, ws);
  });

  api.get<{ Params: OrgParams; Querystring: Record<string, unknown> }>(
    "/organizations/:org/workspaces",
    async (request, reply) => {
      const principal = principalOf(request);
      const org = visibleOrganization(store, principal, request.params.org);
      // Lists show only the workspaces the caller may read, so nothing leaks through them either.
      let all = [...store.workspaces.values()].filter((ws) => ws.organization === org.name && canReadWorkspace(principal, ws));
      const search = request.query["search[name]"];
      if (typeof search === "string" && search !== "") {
        all = all.filter((ws) => ws.attributes.name.toLowerCase().includes(search.toLowerCase()));
      }
      all.sort((a, b) => a.attributes.name.localeCompare(b.attributes.name));
      const page = paginate(all, request.query, `${context.baseUrl()}/api/v2/organizations/${encodeURIComponent(org.name)}/workspaces`);
      return reply
        .type(JSON_API_TYPE)
        .send({ data: page.items.map((ws) => serializeWorkspace(ws, context)), links: page.links, meta: page.meta });
    },
  );

  api.get<{ Params: OrgNameParams }>("/organizations/:org/workspaces/:name", async (request, reply) =>
    send(reply, 200, byOrgAndName(request)),
  );
  api.get<{ Params: IdParams }>("/workspaces/:id", async (request, reply) => send(reply, 200, byId(request)));

  const update = (request: FastifyRequest, reply: FastifyReply, ws: WorkspaceState) => {
    const principal = principalOf(request);
    if (!canAdministerWorkspace(principal, ws)) throw notFound();
    const org = store.organizations.get(ws.organization);
    if (!org) throw notFound();
    const write = resolveWorkspaceWrite(request.body, "update", { store, org, existing: ws });
    ws.attributes = write.attributes;
    ws.agentPoolId = write.agentPoolId;
    ws.projectId = write.projectId;
    ws.updatedAt = now();
    ws.latestChangeAt = ws.updatedAt;
    return send(reply, 200, ws);
  };
  api.patch<{ Params: OrgNameParams }>("/organizations/:org/workspaces/:name", async (request, reply) =>
    update(request, reply, byOrgAndName(request)),
  );
  api.patch<{ Params: IdParams }>("/workspaces/:id", async (request, reply) => update(request, reply, byId(request)));

  const remove = (request: FastifyRequest, reply: FastifyReply, ws: WorkspaceState) => {
    if (!canAdministerWorkspace(principalOf(request), ws)) throw notFound();
    context.removeWorkspace(ws.id);
    return reply.code(204).send();
  };
  api.delete<{ Params: OrgNameParams }>("/organizations/:org/workspaces/:name", async (request, reply) =>
    remove(request, reply, byOrgAndName(request)),
  );
  api.delete<{ Params: IdParams }>("/workspaces/:id", async (request, reply) => remove(request, reply, byId(request)));

  // Lock actions answer 200 with the workspace, 404 when it is unknown or hidden, 409 when the
  // lock is not in the state the action needs (messages in the real service's words).
  const setLock = (ws: WorkspaceState, holder: LockHolder | null, reason: string) => {
    ws.attributes.locked = holder !== null;
    ws.lockedBy = holder;
    ws.lockedReason = reason;
    ws.updatedAt = now();
  };
  api.post<{ Params: IdParams }>("/workspaces/:id/actions/lock", async (request, reply) => {
    const ws = byId(request);
    const reason = lockReasonOf(request.body);
    if (ws.attributes.locked) throw ApiError.of(409, "Unable to lock workspace. The workspace is already locked.");
    setLock(ws, holderOf(principalOf(request)), reason);
    return send(reply, 200, ws);
  });
  api.post<{ Params: IdParams }>("/workspaces/:id/actions/unlock", async (request, reply) => {
    const ws = byId(request);
    if (!ws.attributes.locked) throw ApiError.of(409, "Unable to unlock workspace. The workspace is already unlocked.");
    const mine = holderOf(principalOf(request));
    const held = ws.lockedBy;
    if (!held || held.id !== mine.id || held.type !== mine.type) {
      const by = held ? `${HOLDER_NAMES[held.type]} ${held.id}` : "another holder";
      throw ApiError.of(409, `Unable to unlock workspace. The workspace is locked by ${by}; only the holder can unlock it, or an admin can force-unlock it.`);
    }
    setLock(ws, null, "");
    return send(reply, 200, ws);
  });
  api.post<{ Params: IdParams }>("/workspaces/:id/actions/force-unlock", async (request, reply) => {
    const ws = byId(request);
    if (!canAdministerWorkspace(principalOf(request), ws)) throw notFound();
    if (!ws.attributes.locked) throw ApiError.of(409, "Unable to force-unlock workspace. The workspace is not locked.");
    setLock(ws, null, "");
    return send(reply, 200, ws);
  });
}
