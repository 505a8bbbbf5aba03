/**
 * Emulator of the workspace service (workspaces and configuration versions, JSON:API under /api/v2):
 * a labelled test double following the spec's tables, status codes and error bodies, with seeded
 * organizations, tokens and VCS connections, a per-token rate limit, streamed uploads, and helpers
 * that let tests reach into its state. Where the spec is silent (`GET /ping`, lock actions), it
 * answers as the real service does.
 */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { create as createTar } from "tar";
import type { FastifyInstance } from "fastify";
import { ServiceServer, startServiceServer } from "../common";
import { RateLimiter, authenticate, bearerToken, rateLimitHeaders } from "./access";
import {
  ARCHIVIST_PREFIX,
  registerArchivistRoutes,
  registerConfigurationVersionRoutes,
} from "./configuration-version-routes";
import { ConfigurationVersions } from "./configuration-versions";
import { ApiError, JSON_API_TYPE, errorDocument } from "./json-api";
import {
  ConfigurationVersionState,
  Store,
  WorkspaceAttributes,
  WorkspaceState,
  defaultWorkspaceAttributes,
  newId,
  newWorkspace,
  now,
} from "./store";
import { registerWorkspaceRoutes } from "./workspace-routes";

export type {
  ConfigurationVersionState,
  ConfigurationVersionStatus,
  ExecutionMode,
  RunState,
  VcsRepoState,
  WorkspaceAttributes,
  WorkspaceState,
} from "./store";
export { LATEST_IAC_VERSION } from "./store";

export interface WorkspacesEmulatorOptions {
  host?: string;
  port?: number;
  /** Requests per second per token (default 30, like the real service); 0 turns limiting off. */
  rateLimitPerSecond?: number;
  /** Delay between the end of an upload and its pending → uploaded transition (default 50 ms). */
  uploadDelayMs?: number;
  /**
   * Seed a VCS-linked workspace, `vcs-app`, with one configuration version fetched from a commit
   * (ingress attributes included), for tests of what only a repository gives. Off by default: the
   * emulator then holds no workspace a program did not make, so `import --all` adopts nothing else.
   */
  vcsSample?: boolean;
}

export interface WorkspacesEmulator extends ServiceServer {
  /** Seeded organization where every token below has its rights. */
  organization: string;
  /** A second seeded organization (user and team tokens only; no health assessments on its plan). */
  secondOrganization: string;
  tokens: {
    /** User token, owners team of both organizations. */
    user: string;
    /** Team token of an owners team, full rights on both organizations. */
    team: string;
    /** Organization API token of `organization`. */
    organization: string;
    /** Member of `organization` without read-runs on any workspace: reads answer 404. */
    readOnly: string;
  };
  /** VCS connection (GitHub) of `organization`. */
  oauthTokenId: string;
  /** Installation of the repository-host application. */
  githubAppInstallationId: string;
  /** Agent pool of `organization`. */
  agentPoolId: string;
  defaultProjectId: string;
  otherProjectId: string;
  /** The VCS-linked workspace `vcs-app` of `organization`, when `vcsSample` seeded it. */
  vcsWorkspaceId?: string;
  /** Its VCS-created configuration version (uploaded, with ingress attributes), when seeded. */
  vcsConfigurationVersionId?: string;
  /** Requests per second per token; undefined turns limiting off. */
  setRateLimit(perSecond: number | undefined): void;
  setUploadDelay(ms: number): void;
  /** The next completed upload ends `errored` with this error-message. */
  failNextUpload(message: string): void;
  /** Snapshot of a workspace's state, or undefined. */
  getWorkspace(id: string): WorkspaceState | undefined;
  findWorkspace(organization: string, name: string): WorkspaceState | undefined;
  /** Out-of-band change (drift): merges API-named attributes into the workspace. */
  updateWorkspaceAttributes(id: string, attributes: Partial<WorkspaceAttributes>): void;
  /** Out-of-band deletion; true when the workspace existed. */
  deleteWorkspace(id: string): boolean;
  /** Snapshot of a configuration version's state, or undefined. */
  getConfigurationVersion(id: string): ConfigurationVersionState | undefined;
  /** Snapshots of every workspace, and of every configuration version, for out-of-band checks. */
  listWorkspaces(): WorkspaceState[];
  listConfigurationVersions(): ConfigurationVersionState[];
  /** Records a run on an uploaded version and returns its id; in-progress runs block archiving. */
  addRun(configurationVersionId: string, options: { inProgress: boolean }): string;
  /** Completes a run recorded by `addRun`. */
  finishRun(runId: string): void;
  /** Bytes received by the version's upload, or undefined before one finished. */
  uploadedBytes(configurationVersionId: string): number | undefined;
}

/** API version the real service reports in `TFP-API-Version` on every API answer. */
export const API_VERSION = "2.6";
const DEFAULT_RATE_LIMIT = 30;
const DEFAULT_UPLOAD_DELAY_MS = 50;

export async function startWorkspacesEmulator(options: WorkspacesEmulatorOptions = {}): Promise<WorkspacesEmulator> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "workspaces-emulator-"));
  const store = new Store();
  const limiter = new RateLimiter(options.rateLimitPerSecond ?? DEFAULT_RATE_LIMIT);
  let baseUrl = "";
  const versions = new ConfigurationVersions(
    store,
    directory,
    (objectId) => `${baseUrl}${ARCHIVIST_PREFIX}/v1/object/${objectId}`,
    options.uploadDelayMs ?? DEFAULT_UPLOAD_DELAY_MS,
  );
  const seed = await seedState(store, directory, options.vcsSample ?? false);

  const removeWorkspace = (id: string): boolean => {
    if (!store.workspaces.delete(id)) return false;
    for (const cv of store.configurationVersionsOf(id)) {
      versions.forget(cv);
      if (cv.ingressAttributesId) store.ingressAttributes.delete(cv.ingressAttributesId);
      store.configurationVersions.delete(cv.id);
    }
    for (const run of [...store.runs.values()]) if (run.workspaceId === id) store.runs.delete(run.id);
    return true;
  };

  const register = (app: FastifyInstance) => {
    app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
      if (error instanceof ApiError) {
        return reply.code(error.status).headers(error.headers).type(JSON_API_TYPE).send({ errors: error.errors });
      }
      const status = typeof error.statusCode === "number" && error.statusCode >= 400 ? error.statusCode : 500;
      return reply
        .code(status)
        .type(JSON_API_TYPE)
        .send(errorDocument(status, status >= 500 ? "internal error" : error.message));
    });
    app.setNotFoundHandler((request, reply) =>
      reply.code(404).type(JSON_API_TYPE).send(errorDocument(404, `no route for ${request.method} ${request.url.split("?")[0]}`)),
    );

    // JSON:API bodies arrive as application/vnd.api+json or application/json. Bodyless actions
    // (archive) may still carry the content type, so an empty body is accepted as no body.
    // Other media types (fastify's text/plain included) are refused with 415.
    const defaultJsonParser = app.getDefaultJsonParser("error", "error");
    app.removeContentTypeParser(["application/json", "text/plain"]);
    app.addContentTypeParser(["application/json", JSON_API_TYPE], { parseAs: "string" }, (request, body, done) => {
      const text = String(body);
      if (text.trim() === "") done(null, undefined);
      else defaultJsonParser(request, text, done);
    });

    app.register(
      async (api) => {
        api.addHook("onRequest", async (request, reply) => {
          reply.header("tfp-api-version", API_VERSION);
          // Unauthenticated callers are limited by address, as the real service does.
          const decision = limiter.take(bearerToken(request) ?? `address:${request.ip}`);
          if (decision) {
            reply.headers(rateLimitHeaders(decision));
            if (!decision.allowed) {
              const retryAfter = String(Math.max(1, Math.ceil(decision.resetSeconds)));
              throw new ApiError(429, errorDocument(429, "You have exceeded the API's rate limit.").errors, {
                "retry-after": retryAfter,
              });
            }
          }
          // Clients ping before they hold a token they trust: the ping needs none.
          if (request.routeOptions.url === "/api/v2/ping") return;
          authenticate(request, store);
        });
        // Clients read the API version and their rate limit from the headers of this answer.
        api.get("/ping", async (_request, reply) => reply.code(204).send());
        const baseUrlOf = () => baseUrl;
        registerWorkspaceRoutes(api, { store, baseUrl: baseUrlOf, removeWorkspace });
        registerConfigurationVersionRoutes(api, { store, versions, baseUrl: baseUrlOf });
      },
      { prefix: "/api/v2" },
    );
    app.register(async (archivist) => registerArchivistRoutes(archivist, versions), { prefix: ARCHIVIST_PREFIX });
  };

  let server: ServiceServer;
  try {
    server = await startServiceServer(
      {
        name: "workspaces",
        host: options.host,
        port: options.port,
        errorBody: (status, message) => errorDocument(status, message),
        errorContentType: JSON_API_TYPE,
      },
      register,
    );
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  baseUrl = server.url;

  const requireWorkspace = (id: string): WorkspaceState => {
    const ws = store.workspaces.get(id);
    if (!ws) throw new Error(`no workspace ${id}`);
    return ws;
  };

  return {
    ...server,
    ...seed,
    setRateLimit: (perSecond) => limiter.set(perSecond),
    setUploadDelay: (ms) => {
      versions.uploadDelayMs = ms;
    },
    failNextUpload: (message) => versions.failNextUpload(message),
    getWorkspace: (id) => snapshot(store.workspaces.get(id)),
    findWorkspace: (organization, name) => snapshot(store.findWorkspace(organization, name)),
    updateWorkspaceAttributes: (id, attributes) => {
      const ws = requireWorkspace(id);
      ws.attributes = { ...ws.attributes, ...structuredClone(attributes) };
      // A lock set or cleared out of band has no known holder.
      if ("locked" in attributes) {
        ws.lockedBy = null;
        if (!ws.attributes.locked) ws.lockedReason = "";
      }
      ws.updatedAt = now();
      ws.latestChangeAt = ws.updatedAt;
    },
    deleteWorkspace: (id) => removeWorkspace(id),
    getConfigurationVersion: (id) => snapshot(store.configurationVersions.get(id)),
    listWorkspaces: () => [...store.workspaces.values()].map((w) => snapshot(w)!),
    listConfigurationVersions: () => [...store.configurationVersions.values()].map((cv) => snapshot(cv)!),
    addRun: (configurationVersionId, runOptions) => versions.addRun(configurationVersionId, runOptions).id,
    finishRun: (runId) => versions.finishRun(runId),
    uploadedBytes: (configurationVersionId) =>
      store.configurationVersions.get(configurationVersionId)?.uploadedBytes ?? undefined,
    close: async () => {
      versions.close();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function snapshot<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

type SeedFields = Pick<
  WorkspacesEmulator,
  | "organization"
  | "secondOrganization"
  | "tokens"
  | "oauthTokenId"
  | "githubAppInstallationId"
  | "agentPoolId"
  | "defaultProjectId"
  | "otherProjectId"
  | "vcsWorkspaceId"
  | "vcsConfigurationVersionId"
>;

async function seedState(store: Store, directory: string, vcsSample: boolean): Promise<SeedFields> {
  const acme = store.addOrganization("acme", { assessmentsEntitled: true });
  const globex = store.addOrganization("globex", { assessmentsEntitled: false });
  const otherProject = store.addProject(acme.name, "platform");

  const oauthTokenId = newId("ot");
  store.oauthTokens.set(oauthTokenId, {
    id: oauthTokenId,
    organization: acme.name,
    serviceProvider: "github",
    httpUrl: "https://github.com",
  });
  const githubAppInstallationId = newId("ghain");
  store.githubAppInstallations.add(githubAppInstallationId);
  const agentPoolId = newId("apool");
  store.agentPools.set(agentPoolId, { id: agentPoolId, name: "default-agents", organization: acme.name });

  const both = () => new Set([acme.name, globex.name]);
  const tokens = {
    user: store.addToken({ kind: "user", admin: both(), member: new Set() }),
    // A real team belongs to one organization; this owners-team token spans both so tests can use
    // the user and team tokens interchangeably.
    team: store.addToken({ kind: "team", admin: both(), member: new Set() }),
    organization: store.addToken({ kind: "organization", admin: new Set([acme.name]), member: new Set() }),
    readOnly: store.addToken({ kind: "user", admin: new Set(), member: new Set([acme.name]) }),
  };

  const seeded = {
    organization: acme.name,
    secondOrganization: globex.name,
    tokens,
    oauthTokenId,
    githubAppInstallationId,
    agentPoolId,
    defaultProjectId: acme.defaultProjectId,
    otherProjectId: otherProject.id,
  };
  if (!vcsSample) return seeded;

  // A VCS-linked workspace with one version fetched from a commit, so ingress attributes exist.
  const attributes = defaultWorkspaceAttributes("vcs-app", acme);
  attributes["vcs-repo"] = {
    identifier: "acme/infrastructure",
    branch: "",
    "ingress-submodules": false,
    "oauth-token-id": oauthTokenId,
    "github-app-installation-id": null,
    "tags-regex": null,
  };
  const ws = newWorkspace(acme, acme.defaultProjectId, attributes, null);
  store.workspaces.set(ws.id, ws);

  const userId = newId("user");
  const ingress = {
    id: newId("ia"),
    createdByUserId: userId,
    attributes: {
      branch: "add-network",
      "clone-url": "https://github.com/acme/infrastructure.git",
      "commit-message": "Add the network module",
      "commit-sha": "1e1c1018d1bbc0b8517d072718e0d87c1a0eda95",
      "commit-url": "https://github.com/acme/infrastructure/commit/1e1c1018d1bbc0b8517d072718e0d87c1a0eda95",
      "compare-url": "https://github.com/acme/infrastructure/pull/12",
      identifier: "acme/infrastructure",
      "is-pull-request": true,
      "on-default-branch": false,
      "pull-request-number": 12,
      "pull-request-url": "https://github.com/acme/infrastructure/pull/12",
      "pull-request-title": "Add the network module",
      "pull-request-body": "Adds the network module.",
      tag: null,
      "sender-username": "octo-dev",
      "sender-avatar-url": "https://avatars.githubusercontent.com/u/1?v=4",
      "sender-html-url": "https://github.com/octo-dev",
    },
  };
  store.ingressAttributes.set(ingress.id, ingress);

  const at = now();
  const cv: ConfigurationVersionState = {
    id: newId("cv"),
    workspaceId: ws.id,
    source: "github",
    autoQueueRuns: true,
    speculative: false,
    provisional: false,
    status: "uploaded",
    error: null,
    errorMessage: null,
    statusTimestamps: { "fetching-at": at, "uploaded-at": at },
    ingressAttributesId: ingress.id,
    createdAt: at,
    uploadedBytes: null,
    filePath: await writeSeedArchive(directory),
  };
  store.configurationVersions.set(cv.id, cv);
  ws.currentConfigurationVersionId = cv.id;

  return { ...seeded, vcsWorkspaceId: ws.id, vcsConfigurationVersionId: cv.id };
}

async function writeSeedArchive(directory: string): Promise<string> {
  const staging = path.join(directory, "seed");
  await mkdir(staging);
  await writeFile(path.join(staging, "main.tf"), 'output "greeting" {\n  value = "hello"\n}\n');
  const file = path.join(directory, "seed.tar.gz");
  await createTar({ gzip: true, file, cwd: staging }, ["main.tf"]);
  await rm(staging, { recursive: true, force: true });
  return file;
}
