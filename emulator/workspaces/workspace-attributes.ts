/**
 * The workspace attribute table of the spec as code: create defaults, update-keeps-previous, and
 * every rule, each failure a 422 whose source pointer names the attribute.
 */
import { ApiError, AttributeErrors, isObject, readResourceDocument } from "./json-api";
import {
  EXECUTION_MODES,
  ExecutionMode,
  Organization,
  Store,
  VcsRepoState,
  WorkspaceAttributes,
  WorkspaceState,
  defaultWorkspaceAttributes,
} from "./store";

export interface WorkspaceWrite {
  attributes: WorkspaceAttributes;
  agentPoolId: string | null;
  projectId: string;
}

type Mode = "create" | "update";

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
/** Not in the spec; the real service caps workspace names at 90 characters. */
const NAME_MAX_LENGTH = 90;
const ACTIVITY_DURATION_PATTERN = /^(\d{1,4})[dh]$/;
const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const VERSION = String.raw`\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?`;
const OPERATOR = String.raw`(?:=|!=|>=|<=|>|<|~>)?`;
const VERSION_CONSTRAINT_PATTERN = new RegExp(`^\\s*${OPERATOR}\\s*${VERSION}(?:\\s*,\\s*${OPERATOR}\\s*${VERSION})*\\s*$`);
const EXACT_VERSION_PATTERN = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;
const REPO_IDENTIFIER_PATTERN = /^[^/\s]+\/[^/\s]+$/;
const DEVOPS_IDENTIFIER_PATTERN = /^[^/\s]+\/[^/\s]+\/_git\/[^/\s]+$/;
/** Health assessments need this tool version or later. */
const ASSESSMENTS_MIN_VERSION = [0, 15, 4];

const BOOLEAN_ATTRIBUTES = [
  "allow-destroy-plan",
  "auto-apply",
  "auto-apply-run-trigger",
  "file-triggers-enabled",
  "global-remote-state",
  "inherits-project-auto-destroy",
  "queue-all-runs",
  "speculative-enabled",
] as const;

const pointer = (key: string) => `/data/attributes/${key}`;
const vcsPointer = (key: string) => `/data/attributes/vcs-repo/${key}`;

/**
 * Validates a create or update body and returns the workspace as it would be after the write.
 * Attributes the body does not list keep their create default or previous value. Unknown
 * attributes are ignored, as the real service does.
 */
export function resolveWorkspaceWrite(
  body: unknown,
  mode: Mode,
  context: { store: Store; org: Organization; existing?: WorkspaceState },
): WorkspaceWrite {
  const { store, org, existing } = context;
  const { attributes: input, relationships } = readResourceDocument(body, "workspaces");
  const errors = new AttributeErrors();
  const has = (key: string) => Object.prototype.hasOwnProperty.call(input, key);
  const next: WorkspaceAttributes = existing ? structuredClone(existing.attributes) : defaultWorkspaceAttributes("", org);

  resolveName(input, mode, next, errors, store, org, existing);

  for (const key of BOOLEAN_ATTRIBUTES) {
    if (!has(key)) continue;
    const value = input[key];
    if (typeof value === "boolean") next[key] = value;
    else errors.add(pointer(key), `${key} must be a boolean`);
  }

  readNullableString(input, "description", errors, (v) => (next.description = v));

  readNullableString(input, "auto-destroy-at", errors, (v) => {
    if (v !== null && (!ISO_TIMESTAMP_PATTERN.test(v) || Number.isNaN(Date.parse(v)))) {
      errors.add(pointer("auto-destroy-at"), "auto-destroy-at must be an ISO 8601 timestamp");
      return;
    }
    // The real service stores the instant and answers it in its own format.
    next["auto-destroy-at"] = v === null ? null : new Date(v).toISOString();
  });

  readNullableString(input, "auto-destroy-activity-duration", errors, (v) => {
    const match = v === null ? null : ACTIVITY_DURATION_PATTERN.exec(v);
    if (v !== null && (!match || Number(match[1]) === 0)) {
      errors.add(
        pointer("auto-destroy-activity-duration"),
        "auto-destroy-activity-duration must be a number greater than 0 of at most four digits followed by d or h",
      );
      return;
    }
    next["auto-destroy-activity-duration"] = v;
  });

  if (has("iac-version")) {
    const value = input["iac-version"];
    // A constraint is stored as given; the newest matching release is chosen when a run starts.
    if (typeof value === "string" && (value === "latest" || VERSION_CONSTRAINT_PATTERN.test(value))) {
      next["iac-version"] = value.trim();
    } else {
      errors.add(pointer("iac-version"), "iac-version must be a version such as 1.9.5 or a constraint such as ~> 1.9");
    }
  }

  for (const key of ["trigger-patterns", "trigger-prefixes"] as const) {
    if (!has(key)) continue;
    const value = input[key];
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) next[key] = [...value];
    else errors.add(pointer(key), `${key} must be an array of strings`);
  }

  readNullableString(input, "working-directory", errors, (v) => {
    if (v !== null && (v.startsWith("/") || v.split("/").includes(".."))) {
      errors.add(pointer("working-directory"), "working-directory must be a relative path inside the repository");
      return;
    }
    next["working-directory"] = v;
  });

  for (const key of ["source-name", "source-url"] as const) {
    if (!has(key)) continue;
    if (mode === "update") {
      errors.add(pointer(key), `${key} can only be set when the workspace is created`);
      continue;
    }
    readNullableString(input, key, errors, (v) => {
      if (key === "source-url" && v !== null && !/^https?:\/\/\S+$/.test(v)) {
        errors.add(pointer(key), "source-url must be an http or https URL");
        return;
      }
      next[key] = v;
    });
  }

  const { agentPoolId } = resolveExecution(input, next, errors, store, org, existing);
  resolveAssessments(input, next, errors, org);

  if (has("vcs-repo")) {
    const raw = input["vcs-repo"];
    if (raw === null) next["vcs-repo"] = null;
    else if (!isObject(raw)) errors.add(pointer("vcs-repo"), "vcs-repo must be an object or null");
    else next["vcs-repo"] = resolveVcsRepo(raw, mode, next["vcs-repo"], errors, store, org);
  }

  errors.throwIfAny();
  const projectId = resolveProject(relationships, store, org, existing);
  return { attributes: next, agentPoolId, projectId };
}

function resolveName(
  input: Record<string, unknown>,
  mode: Mode,
  next: WorkspaceAttributes,
  errors: AttributeErrors,
  store: Store,
  org: Organization,
  existing: WorkspaceState | undefined,
): void {
  if (!Object.prototype.hasOwnProperty.call(input, "name")) {
    if (mode === "create") errors.add(pointer("name"), "name can't be blank");
    return;
  }
  const name = input.name;
  if (typeof name !== "string" || name === "") {
    errors.add(pointer("name"), typeof name === "string" ? "name can't be blank" : "name must be a string");
  } else if (!NAME_PATTERN.test(name)) {
    errors.add(pointer("name"), "name is invalid: only letters, numbers, - and _ are allowed");
  } else if (name.length > NAME_MAX_LENGTH) {
    errors.add(pointer("name"), `name is too long (maximum is ${NAME_MAX_LENGTH} characters)`);
  } else {
    const holder = store.findWorkspace(org.name, name);
    if (holder && holder.id !== existing?.id) errors.add(pointer("name"), "name has already been taken");
    else next.name = name;
  }
}

function readNullableString(
  input: Record<string, unknown>,
  key: string,
  errors: AttributeErrors,
  apply: (value: string | null) => void,
): void {
  if (!Object.prototype.hasOwnProperty.call(input, key)) return;
  const value = input[key];
  if (value === null || typeof value === "string") apply(value);
  else errors.add(pointer(key), `${key} must be a string or null`);
}

/**
 * `execution-mode`, the deprecated `operations`, `agent-pool-id` and `setting-overwrites` decide
 * together how runs execute. Giving `execution-mode` (or `operations`) marks the workspace as
 * overriding the organization default, which is what the real service reports afterwards; a
 * `setting-overwrites` key set to false hands the setting back to the organization default.
 */
function resolveExecution(
  input: Record<string, unknown>,
  next: WorkspaceAttributes,
  errors: AttributeErrors,
  store: Store,
  org: Organization,
  existing: WorkspaceState | undefined,
): { agentPoolId: string | null } {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(input, key);
  let requestedMode: ExecutionMode | undefined;
  if (has("execution-mode")) {
    const value = input["execution-mode"];
    if (typeof value === "string" && (EXECUTION_MODES as readonly string[]).includes(value)) {
      requestedMode = value as ExecutionMode;
    } else {
      errors.add(pointer("execution-mode"), "execution-mode must be one of remote, local, agent");
    }
  }
  if (has("operations")) {
    const value = input.operations;
    if (typeof value !== "boolean") errors.add(pointer("operations"), "operations must be a boolean");
    else if (has("execution-mode")) {
      errors.add(pointer("operations"), "operations is deprecated and cannot be given together with execution-mode");
    } else requestedMode = value ? "remote" : "local";
  }

  const overwriteInput: Partial<WorkspaceAttributes["setting-overwrites"]> = {};
  if (has("setting-overwrites")) {
    const raw = input["setting-overwrites"];
    if (!isObject(raw)) errors.add(pointer("setting-overwrites"), "setting-overwrites must be an object");
    else {
      for (const key of ["execution-mode", "agent-pool"] as const) {
        if (raw[key] === undefined) continue;
        if (typeof raw[key] === "boolean") overwriteInput[key] = raw[key] as boolean;
        else errors.add(`${pointer("setting-overwrites")}/${key}`, `setting-overwrites ${key} must be a boolean`);
      }
    }
  }
  if (overwriteInput["execution-mode"] === true && !has("execution-mode")) {
    errors.add(pointer("execution-mode"), "execution-mode must be given when setting-overwrites execution-mode is true");
  }

  const overwrites = { ...next["setting-overwrites"] };
  if (requestedMode !== undefined) {
    overwrites["execution-mode"] = true;
    overwrites["agent-pool"] = true;
  }
  if (has("agent-pool-id")) overwrites["agent-pool"] = true;
  Object.assign(overwrites, overwriteInput);

  let mode = requestedMode ?? next["execution-mode"];
  let agentPoolId = existing?.agentPoolId ?? null;
  let poolFailed = false;
  if (has("agent-pool-id")) {
    const value = input["agent-pool-id"];
    if (value === null || value === "") agentPoolId = null;
    else if (typeof value !== "string") {
      errors.add(pointer("agent-pool-id"), "agent-pool-id must be a string");
      poolFailed = true;
    } else if (mode !== "agent") {
      const why = has("operations") ? "operations is given" : `execution-mode is ${mode}`;
      errors.add(pointer("agent-pool-id"), `agent-pool-id cannot be given when ${why}; it requires execution-mode agent`);
      poolFailed = true;
    } else {
      const pool = store.agentPools.get(value);
      if (!pool || pool.organization !== org.name) {
        errors.add(pointer("agent-pool-id"), `agent pool ${value} not found`);
        poolFailed = true;
      } else agentPoolId = value;
    }
  } else if (mode !== "agent") {
    // Leaving agent execution releases the pool, as the real service does.
    agentPoolId = null;
  }
  if (mode === "agent" && agentPoolId === null && !poolFailed) {
    errors.add(pointer("agent-pool-id"), "agent-pool-id is required when execution-mode is agent");
  }

  if (!overwrites["execution-mode"]) {
    mode = org.defaultExecutionMode;
    agentPoolId = mode === "agent" ? org.defaultAgentPoolId : null;
  }
  next["execution-mode"] = mode;
  next["setting-overwrites"] = overwrites;
  return { agentPoolId };
}

/** `assessments-enabled` (formerly `drift-detection`, still accepted) and its entitlement rules. */
function resolveAssessments(
  input: Record<string, unknown>,
  next: WorkspaceAttributes,
  errors: AttributeErrors,
  org: Organization,
): void {
  const key = ["assessments-enabled", "drift-detection"].find((k) => Object.prototype.hasOwnProperty.call(input, k));
  if (!key) return;
  const value = input[key];
  if (typeof value !== "boolean") {
    errors.add(pointer(key), `${key} must be a boolean`);
    return;
  }
  if (value) {
    if (!org.assessmentsEntitled) {
      errors.add(pointer(key), "health assessments are not available on this organization's plan");
      return;
    }
    if (next["execution-mode"] === "local") {
      errors.add(pointer(key), "health assessments need remote or agent execution");
      return;
    }
    const exact = EXACT_VERSION_PATTERN.exec(next["iac-version"]);
    if (exact && compareVersions(exact.slice(1, 4).map(Number), ASSESSMENTS_MIN_VERSION) < 0) {
      errors.add(pointer(key), `health assessments need iac-version ${ASSESSMENTS_MIN_VERSION.join(".")} or later`);
      return;
    }
  }
  next["assessments-enabled"] = value;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * `vcs-repo` on create needs `oauth-token-id` and `identifier` and refuses the update-only
 * `github-app-installation-id`; on update listed keys modify the repository, and adding one needs
 * a connection id and an identifier. A null connection id counts as not given.
 */
function resolveVcsRepo(
  raw: Record<string, unknown>,
  mode: Mode,
  previous: VcsRepoState | null,
  errors: AttributeErrors,
  store: Store,
  org: Organization,
): VcsRepoState {
  const repo: VcsRepoState = previous
    ? { ...previous }
    : {
        identifier: "",
        branch: "",
        "ingress-submodules": false,
        "oauth-token-id": null,
        "github-app-installation-id": null,
        "tags-regex": null,
      };
  const given = (key: string) => raw[key] !== undefined && raw[key] !== null;
  const oauthTokenId = raw["oauth-token-id"];
  const installationId = raw["github-app-installation-id"];

  if (given("oauth-token-id") && given("github-app-installation-id")) {
    errors.add(vcsPointer("github-app-installation-id"), "oauth-token-id and github-app-installation-id cannot be given together");
  } else if (given("github-app-installation-id") && mode === "create") {
    errors.add(vcsPointer("github-app-installation-id"), "github-app-installation-id can only be given when updating a workspace");
  } else if (given("oauth-token-id")) {
    const token = typeof oauthTokenId === "string" ? store.oauthTokens.get(oauthTokenId) : undefined;
    if (typeof oauthTokenId !== "string") errors.add(vcsPointer("oauth-token-id"), "oauth-token-id must be a string");
    else if (!token || token.organization !== org.name) {
      errors.add(vcsPointer("oauth-token-id"), `OAuth token ${oauthTokenId} not found`);
    } else {
      repo["oauth-token-id"] = oauthTokenId;
      repo["github-app-installation-id"] = null;
    }
  } else if (given("github-app-installation-id")) {
    if (typeof installationId !== "string") {
      errors.add(vcsPointer("github-app-installation-id"), "github-app-installation-id must be a string");
    } else if (!store.githubAppInstallations.has(installationId)) {
      errors.add(vcsPointer("github-app-installation-id"), `GitHub App installation ${installationId} not found`);
    } else {
      repo["github-app-installation-id"] = installationId;
      repo["oauth-token-id"] = null;
    }
  }

  if (!previous) {
    if (mode === "create" && !given("oauth-token-id")) {
      errors.add(vcsPointer("oauth-token-id"), "oauth-token-id is required when vcs-repo is given");
    } else if (mode === "update" && !given("oauth-token-id") && !given("github-app-installation-id")) {
      errors.add(vcsPointer("oauth-token-id"), "oauth-token-id or github-app-installation-id is required to add a repository");
    }
    if (!given("identifier")) errors.add(vcsPointer("identifier"), "identifier is required when adding a repository");
  }

  if (given("identifier")) {
    const identifier = raw.identifier;
    if (typeof identifier !== "string" || !(REPO_IDENTIFIER_PATTERN.test(identifier) || DEVOPS_IDENTIFIER_PATTERN.test(identifier))) {
      errors.add(vcsPointer("identifier"), "identifier must be :org/:repo (or :org/:project/_git/:repo)");
    } else repo.identifier = identifier;
  }
  if (raw.branch !== undefined) {
    // Null and "" both mean the repository's default branch, reported as "".
    if (raw.branch === null || typeof raw.branch === "string") repo.branch = raw.branch ?? "";
    else errors.add(vcsPointer("branch"), "branch must be a string");
  }
  if (raw["ingress-submodules"] !== undefined) {
    if (typeof raw["ingress-submodules"] === "boolean") repo["ingress-submodules"] = raw["ingress-submodules"];
    else errors.add(vcsPointer("ingress-submodules"), "ingress-submodules must be a boolean");
  }
  if (raw["tags-regex"] !== undefined) {
    const value = raw["tags-regex"];
    if (value === null) repo["tags-regex"] = null;
    else if (typeof value !== "string" || !isValidRegex(value)) {
      errors.add(vcsPointer("tags-regex"), "tags-regex must be a valid regular expression");
    } else repo["tags-regex"] = value;
  }
  return repo;
}

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/**
 * `relationships.project.data.id`: on create the project to create in (default project when absent
 * or blank), on update the project to move to (blank or unchanged: no move). A project that does
 * not exist in the organization is a missing related resource, 404 as JSON:API prescribes.
 */
function resolveProject(
  relationships: Record<string, unknown>,
  store: Store,
  org: Organization,
  existing: WorkspaceState | undefined,
): string {
  const current = existing?.projectId ?? org.defaultProjectId;
  const relationship = relationships.project;
  if (relationship === undefined || relationship === null) return current;
  const data = isObject(relationship) ? relationship.data : undefined;
  if (data === null || data === undefined) return current;
  const id = isObject(data) ? data.id : undefined;
  if (id === undefined || id === null || id === "") return current;
  if (typeof id !== "string") {
    throw ApiError.of(422, "project id must be a string", { pointer: "/data/relationships/project/data/id" });
  }
  const project = store.projects.get(id);
  if (!project || project.organization !== org.name) {
    throw ApiError.of(404, `project ${id} not found`, { pointer: "/data/relationships/project/data/id" });
  }
  return id;
}
