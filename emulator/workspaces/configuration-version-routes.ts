/**
 * Configuration version endpoints of the emulator under /api/v2 (create, show, list, ingress
 * attributes, archive, download) and the archive store's upload and download URLs, served by the same
 * server under /_archivist the way the real service hands out URLs of its archive store.
 */
import { createReadStream } from "node:fs";
import type { FastifyInstance, FastifyReply } from "fastify";
import { canReadWorkspace, principalOf } from "./access";
import { ApiError, AttributeErrors, JSON_API_TYPE, notFound, paginate, parseInclude, readResourceDocument } from "./json-api";
import type { ConfigurationVersions } from "./configuration-versions";
import type { ConfigurationVersionState, IngressAttributesState, Principal, RunState, Store } from "./store";

export interface ConfigurationVersionRouteContext {
  store: Store;
  versions: ConfigurationVersions;
  baseUrl(): string;
}

/** Prefix of the archive store's URLs; upload URLs are `<base>/_archivist/v1/object/<object id>`. */
export const ARCHIVIST_PREFIX = "/_archivist";

/** Largest upload accepted; the spec gives none, and configuration archives of 512 MB and more occur. */
export const UPLOAD_BODY_LIMIT = 16 * 1024 * 1024 * 1024;

const INCLUDABLE = ["ingress-attributes", "run"] as const;

export function serializeConfigurationVersion(cv: ConfigurationVersionState, uploadUrl?: string): Record<string, unknown> {
  const self = `/api/v2/configuration-versions/${cv.id}`;
  const attributes: Record<string, unknown> = {
    "auto-queue-runs": cv.autoQueueRuns,
    error: cv.error,
    "error-message": cv.errorMessage,
    provisional: cv.provisional,
    source: cv.source,
    speculative: cv.speculative,
    status: cv.status,
    "status-timestamps": { ...cv.statusTimestamps },
  };
  // Spec rule 4: the upload URL appears in the creation response only.
  if (uploadUrl !== undefined) attributes["upload-url"] = uploadUrl;
  return {
    id: cv.id,
    type: "configuration-versions",
    attributes,
    relationships: {
      "ingress-attributes": {
        data: cv.ingressAttributesId ? { id: cv.ingressAttributesId, type: "ingress-attributes" } : null,
        links: { related: `${self}/ingress-attributes` },
      },
    },
    links: { self, download: `${self}/download` },
  };
}

export function serializeIngressAttributes(ia: IngressAttributesState): Record<string, unknown> {
  const self = `/api/v2/ingress-attributes/${ia.id}`;
  return {
    id: ia.id,
    type: "ingress-attributes",
    attributes: { ...ia.attributes },
    relationships: {
      "created-by": {
        data: { id: ia.createdByUserId, type: "users" },
        links: { related: `${self}/created-by` },
      },
    },
    links: { self },
  };
}

function serializeRun(run: RunState): Record<string, unknown> {
  return {
    id: run.id,
    type: "runs",
    attributes: { status: run.status, "created-at": run.createdAt },
    relationships: {
      "configuration-version": { data: { id: run.configurationVersionId, type: "configuration-versions" } },
      workspace: { data: { id: run.workspaceId, type: "workspaces" } },
    },
    links: { self: `/api/v2/runs/${run.id}` },
  };
}

export function registerConfigurationVersionRoutes(api: FastifyInstance, context: ConfigurationVersionRouteContext): void {
  const { store, versions } = context;
  type IdParams = { id: string };
  type Query = Record<string, unknown>;

  const readableVersion = (principal: Principal, id: string): ConfigurationVersionState => {
    const cv = store.configurationVersions.get(id);
    const ws = cv ? store.workspaces.get(cv.workspaceId) : undefined;
    if (!cv || !ws || !canReadWorkspace(principal, ws)) throw notFound();
    return cv;
  };

  const included = (cvs: ConfigurationVersionState[], include: string[]) => {
    const out: Record<string, unknown>[] = [];
    for (const cv of cvs) {
      const ia = cv.ingressAttributesId ? store.ingressAttributes.get(cv.ingressAttributesId) : undefined;
      if (include.includes("ingress-attributes") && ia) out.push(serializeIngressAttributes(ia));
      if (include.includes("run")) out.push(...store.runsOf(cv.id).map(serializeRun));
    }
    return out;
  };

  const sendJson = (reply: FastifyReply, status: number, document: unknown) =>
    reply.code(status).type(JSON_API_TYPE).send(document);

  api.get<{ Params: IdParams; Querystring: Query }>("/workspaces/:id/configuration-versions", async (request, reply) => {
    const ws = store.workspaces.get(request.params.id);
    if (!ws || !canReadWorkspace(principalOf(request), ws)) throw notFound();
    const include = parseInclude(request.query, INCLUDABLE);
    // Newest first, as the real service lists them (the store keeps creation order).
    const all = store.configurationVersionsOf(ws.id).reverse();
    const page = paginate(all, request.query, `${context.baseUrl()}/api/v2/workspaces/${ws.id}/configuration-versions`);
    const document: Record<string, unknown> = {
      data: page.items.map((cv) => serializeConfigurationVersion(cv)),
      links: page.links,
      meta: page.meta,
    };
    if (include.length > 0) document.included = included(page.items, include);
    return sendJson(reply, 200, document);
  });

  api.post<{ Params: IdParams }>("/workspaces/:id/configuration-versions", async (request, reply) => {
    const principal = principalOf(request);
    const ws = store.workspaces.get(request.params.id);
    if (!ws || !canReadWorkspace(principal, ws)) throw notFound();
    // Spec rule 2: organization tokens cannot create configuration versions.
    if (principal.kind === "organization") {
      throw ApiError.of(403, "configuration versions cannot be created with an organization token; use a user or team token");
    }
    const { attributes } = readResourceDocument(request.body, "configuration-versions");
    const errors = new AttributeErrors();
    const flag = (key: string, fallback: boolean): boolean => {
      const value = attributes[key];
      if (value === undefined) return fallback;
      if (typeof value === "boolean") return value;
      errors.add(`/data/attributes/${key}`, `${key} must be a boolean`);
      return fallback;
    };
    const options = {
      autoQueueRuns: flag("auto-queue-runs", true),
      speculative: flag("speculative", false),
      provisional: flag("provisional", false),
    };
    errors.throwIfAny();
    const { cv, uploadUrl } = versions.create(ws, options);
    return sendJson(reply, 201, { data: serializeConfigurationVersion(cv, uploadUrl) });
  });

  api.get<{ Params: IdParams; Querystring: Query }>("/configuration-versions/:id", async (request, reply) => {
    const cv = readableVersion(principalOf(request), request.params.id);
    const include = parseInclude(request.query, INCLUDABLE);
    const document: Record<string, unknown> = { data: serializeConfigurationVersion(cv) };
    if (include.length > 0) document.included = included([cv], include);
    return sendJson(reply, 200, document);
  });

  // A version without commit information has no ingress attributes to show: 404, like any missing resource.
  api.get<{ Params: IdParams }>("/configuration-versions/:id/ingress-attributes", async (request, reply) => {
    const cv = readableVersion(principalOf(request), request.params.id);
    const ia = cv.ingressAttributesId ? store.ingressAttributes.get(cv.ingressAttributesId) : undefined;
    if (!ia) throw notFound();
    return sendJson(reply, 200, { data: serializeIngressAttributes(ia) });
  });

  api.get<{ Params: IdParams }>("/ingress-attributes/:id", async (request, reply) => {
    const owner = [...store.configurationVersions.values()].find((cv) => cv.ingressAttributesId === request.params.id);
    if (!owner) throw notFound();
    readableVersion(principalOf(request), owner.id);
    const ia = store.ingressAttributes.get(request.params.id);
    if (!ia) throw notFound();
    return sendJson(reply, 200, { data: serializeIngressAttributes(ia) });
  });

  api.post<{ Params: IdParams }>("/configuration-versions/:id/actions/archive", async (request, reply) => {
    const cv = readableVersion(principalOf(request), request.params.id);
    versions.archive(cv);
    return reply.code(202).send();
  });

  api.get<{ Params: IdParams }>("/configuration-versions/:id/download", async (request, reply) => {
    const cv = readableVersion(principalOf(request), request.params.id);
    return reply.redirect(versions.downloadUrl(cv), 302);
  });

  api.get<{ Params: IdParams }>("/runs/:id/configuration-version/download", async (request, reply) => {
    const run = store.runs.get(request.params.id);
    if (!run) throw notFound();
    const cv = readableVersion(principalOf(request), run.configurationVersionId);
    return reply.redirect(versions.downloadUrl(cv), 302);
  });
}

/**
 * The archive store: unauthenticated, the URL itself is the credential. Its own content-type parser
 * leaves the body unread so the handler can stream it to disk; the body limit is raised for the
 * upload route only. Not rate limited, like the real archive store.
 */
export function registerArchivistRoutes(archivist: FastifyInstance, versions: ConfigurationVersions): void {
  archivist.removeAllContentTypeParsers();
  archivist.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));

  archivist.put<{ Params: { objectId: string } }>(
    "/v1/object/:objectId",
    { bodyLimit: UPLOAD_BODY_LIMIT },
    async (request, reply) => {
      const declared = request.headers["content-length"];
      const declaredLength = declared === undefined ? undefined : Number(declared);
      await versions.receive(request.params.objectId, request.raw, declaredLength, UPLOAD_BODY_LIMIT);
      return reply.code(200).send();
    },
  );

  archivist.get<{ Params: { objectId: string } }>("/v1/object/:objectId", async (request, reply) => {
    const { file, size } = versions.openDownload(request.params.objectId);
    return reply.type("application/x-gzip").header("content-length", String(size)).send(createReadStream(file));
  });
}
