/**
 * In-memory state of the workspace service emulator: organizations, projects, VCS connections, agent
 * pools, tokens, workspaces, configuration versions, ingress attributes and runs, with the seed data
 * the tests rely on.
 */
import { randomBytes, randomUUID } from "node:crypto";

export type ExecutionMode = "remote" | "local" | "agent";
export const EXECUTION_MODES: readonly ExecutionMode[] = ["remote", "local", "agent"];

/** The release a new workspace gets when `iac-version` is omitted (the "latest" release of the double). */
export const LATEST_IAC_VERSION = "1.9.5";

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `<prefix>-` followed by 16 random letters and digits, the shape of the real service's ids. */
export function newId(prefix: string): string {
  const bytes = randomBytes(16);
  let out = "";
  for (const b of bytes) out += ALPHANUMERIC[b % ALPHANUMERIC.length];
  return `${prefix}-${out}`;
}

export const now = (): string => new Date().toISOString();

export interface Organization {
  name: string;
  defaultProjectId: string;
  /** Organization-level defaults that `setting-overwrites` false falls back to. */
  defaultExecutionMode: ExecutionMode;
  defaultAgentPoolId: string | null;
  /** Whether the plan includes health assessments (top paid tier). */
  assessmentsEntitled: boolean;
  /** Organization setting that forces assessments on every workspace. */
  assessmentsEnforced: boolean;
}

export interface Project {
  id: string;
  name: string;
  organization: string;
}

export interface OAuthToken {
  id: string;
  organization: string;
  serviceProvider: string;
  /** Base of repository URLs, e.g. https://github.com. */
  httpUrl: string;
}

export interface AgentPool {
  id: string;
  name: string;
  organization: string;
}

export type TokenKind = "user" | "team" | "organization";

/** Who a bearer token stands for and which organizations it administers. */
export interface Principal {
  kind: TokenKind;
  /** The user or team the token belongs to (`user-…`, `team-…`), or the organization of an organization token. */
  id: string;
  /** Organizations where the token has full rights (owners team, or the organization's own token). */
  admin: Set<string>;
  /** Organizations the token is a member of without any workspace permission. */
  member: Set<string>;
}

export interface VcsRepoState {
  identifier: string;
  branch: string;
  "ingress-submodules": boolean;
  "oauth-token-id": string | null;
  "github-app-installation-id": string | null;
  "tags-regex": string | null;
}

/** Attributes as the API names them; `updateWorkspaceAttributes` takes a subset of these. */
export interface WorkspaceAttributes {
  name: string;
  description: string | null;
  "allow-destroy-plan": boolean;
  "assessments-enabled": boolean;
  "auto-apply": boolean;
  "auto-apply-run-trigger": boolean;
  "auto-destroy-at": string | null;
  "auto-destroy-activity-duration": string | null;
  "execution-mode": ExecutionMode;
  "file-triggers-enabled": boolean;
  "global-remote-state": boolean;
  "queue-all-runs": boolean;
  "source-name": string | null;
  "source-url": string | null;
  "speculative-enabled": boolean;
  "structured-run-output-enabled": boolean;
  "iac-version": string;
  "trigger-patterns": string[];
  "trigger-prefixes": string[];
  "working-directory": string | null;
  "setting-overwrites": { "execution-mode": boolean; "agent-pool": boolean };
  "vcs-repo": VcsRepoState | null;
  "tag-names": string[];
  /** Whether the workspace inherits its project's auto-destroy settings (default true). */
  "inherits-project-auto-destroy": boolean;
  locked: boolean;
  "resource-count": number;
  environment: string;
  source: string;
}

export interface WorkspaceState {
  id: string;
  organization: string;
  projectId: string;
  agentPoolId: string | null;
  attributes: WorkspaceAttributes;
  createdAt: string;
  updatedAt: string;
  latestChangeAt: string;
  currentConfigurationVersionId: string | null;
  latestRunId: string | null;
  /** Path segment of the repository webhook URL, fixed for the workspace's life. */
  webhookId: string;
  /** Who holds the lock while `attributes.locked` is true; null for a lock set out of band. */
  lockedBy: LockHolder | null;
  /** The reason given when locking; "" when unlocked. */
  lockedReason: string;
}

/** The holder of a workspace lock, as the `locked-by` relationship names it. */
export interface LockHolder {
  id: string;
  type: "users" | "teams" | "organizations";
}

export type ConfigurationVersionStatus = "pending" | "fetching" | "uploaded" | "archived" | "errored";

export interface ConfigurationVersionState {
  id: string;
  workspaceId: string;
  /** `workspaces-api` for versions created through the API; a VCS provider name for VCS-created ones. */
  source: string;
  autoQueueRuns: boolean;
  speculative: boolean;
  provisional: boolean;
  status: ConfigurationVersionStatus;
  error: string | null;
  errorMessage: string | null;
  statusTimestamps: Record<string, string>;
  ingressAttributesId: string | null;
  createdAt: string;
  /** Bytes received by the upload, once it finished. */
  uploadedBytes: number | null;
  /** The stored archive; null before upload and after archiving. */
  filePath: string | null;
}

export interface IngressAttributesState {
  id: string;
  createdByUserId: string;
  attributes: Record<string, string | number | boolean | null>;
}

export interface RunState {
  id: string;
  configurationVersionId: string;
  workspaceId: string;
  status: string;
  inProgress: boolean;
  createdAt: string;
}

export const API_SOURCE = "workspaces-api";

export function isApiCreated(cv: ConfigurationVersionState): boolean {
  return cv.source === API_SOURCE;
}

export class Store {
  readonly organizations = new Map<string, Organization>();
  readonly projects = new Map<string, Project>();
  readonly oauthTokens = new Map<string, OAuthToken>();
  readonly githubAppInstallations = new Set<string>();
  readonly agentPools = new Map<string, AgentPool>();
  readonly tokens = new Map<string, Principal>();
  readonly workspaces = new Map<string, WorkspaceState>();
  readonly configurationVersions = new Map<string, ConfigurationVersionState>();
  readonly ingressAttributes = new Map<string, IngressAttributesState>();
  readonly runs = new Map<string, RunState>();

  addOrganization(name: string, options: { assessmentsEntitled: boolean }): Organization {
    const project: Project = { id: newId("prj"), name: "Default Project", organization: name };
    this.projects.set(project.id, project);
    const org: Organization = {
      name,
      defaultProjectId: project.id,
      defaultExecutionMode: "remote",
      defaultAgentPoolId: null,
      assessmentsEntitled: options.assessmentsEntitled,
      assessmentsEnforced: false,
    };
    this.organizations.set(name, org);
    return org;
  }

  addProject(organization: string, name: string): Project {
    const project: Project = { id: newId("prj"), name, organization };
    this.projects.set(project.id, project);
    return project;
  }

  addToken(principal: Omit<Principal, "id">): string {
    // Tokens read `<id>.wsv1.<secret>`; the shape only matters for readability.
    const token = `${randomBytes(7).toString("hex")}.wsv1.${randomBytes(32).toString("hex")}`;
    const id = principal.kind === "organization" ? [...principal.admin][0] ?? "" : newId(principal.kind);
    this.tokens.set(token, { ...principal, id });
    return token;
  }

  findWorkspace(organization: string, name: string): WorkspaceState | undefined {
    for (const ws of this.workspaces.values()) {
      if (ws.organization === organization && ws.attributes.name === name) return ws;
    }
    return undefined;
  }

  configurationVersionsOf(workspaceId: string): ConfigurationVersionState[] {
    return [...this.configurationVersions.values()].filter((cv) => cv.workspaceId === workspaceId);
  }

  runsOf(configurationVersionId: string): RunState[] {
    return [...this.runs.values()].filter((r) => r.configurationVersionId === configurationVersionId);
  }

  addRun(cv: ConfigurationVersionState, status: string, inProgress: boolean): RunState {
    const run: RunState = {
      id: newId("run"),
      configurationVersionId: cv.id,
      workspaceId: cv.workspaceId,
      status,
      inProgress,
      createdAt: now(),
    };
    this.runs.set(run.id, run);
    const ws = this.workspaces.get(cv.workspaceId);
    if (ws) ws.latestRunId = run.id;
    return run;
  }
}

export function defaultWorkspaceAttributes(name: string, org: Organization): WorkspaceAttributes {
  return {
    name,
    description: null,
    "allow-destroy-plan": true,
    "assessments-enabled": false,
    "auto-apply": false,
    "auto-apply-run-trigger": false,
    "auto-destroy-at": null,
    "auto-destroy-activity-duration": null,
    "execution-mode": org.defaultExecutionMode,
    "file-triggers-enabled": true,
    "global-remote-state": false,
    "queue-all-runs": false,
    "source-name": null,
    "source-url": null,
    "speculative-enabled": true,
    "structured-run-output-enabled": true,
    "iac-version": LATEST_IAC_VERSION,
    "trigger-patterns": [],
    "trigger-prefixes": [],
    "working-directory": null,
    "setting-overwrites": { "execution-mode": false, "agent-pool": false },
    "vcs-repo": null,
    "tag-names": [],
    "inherits-project-auto-destroy": true,
    locked: false,
    "resource-count": 0,
    environment: "default",
    source: API_SOURCE,
  };
}

export function newWorkspace(org: Organization, projectId: string, attributes: WorkspaceAttributes, agentPoolId: string | null): WorkspaceState {
  const at = now();
  return {
    id: newId("ws"),
    organization: org.name,
    projectId,
    agentPoolId,
    attributes,
    createdAt: at,
    updatedAt: at,
    latestChangeAt: at,
    currentConfigurationVersionId: null,
    latestRunId: null,
    webhookId: randomUUID(),
    lockedBy: null,
    lockedReason: "",
  };
}
