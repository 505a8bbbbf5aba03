/**
 * The workspace service's contract (`/api/v2`, JSON:API), in the service's own names. A row's
 * payload is the resource object (`type`, `attributes`, `relationships`) and its answer the
 * document's `data`: the client puts the one in the envelope and takes the other out. Attributes are
 * read leniently, as the service adds and drops them over versions: a value of another type reads
 * as absent.
 */
import { z } from "zod";
import { endpoint, listOf } from "../contract";

const reference = z.object({ id: z.string(), type: z.string() });

/** A JSON:API resource object; its attributes are kept as sent (their presence says what the service reports). */
export const resourceObject = z.looseObject({
  id: z.string(),
  type: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  relationships: z.record(z.string(), z.looseObject({ data: z.union([reference, z.array(reference)]).nullish() })).optional(),
  /** API paths (`self`, `download`); links of another form read as none. */
  links: z.record(z.string(), z.string().nullable()).optional().catch(undefined),
});

/** A resource object to send: its type, attributes and (to-one) relationships. */
const resourceToSend = (type: string) =>
  z.strictObject({
    type: z.literal(type),
    attributes: z.record(z.string(), z.unknown()),
    relationships: z.record(z.string(), z.object({ data: reference })).optional(),
  });

/** Lenient attribute readers: a value of another type (or none) reads as absent. */
const text = z.string().nullable().catch(null);
const count = z.number().nullable().catch(null);
const flag = z.boolean().optional().catch(undefined);
const flags = z.record(z.string(), z.boolean()).catch({});

/** The attributes of a workspace the service reports beyond the ones it was given. */
export const workspaceAttributes = z.looseObject({
  description: text,
  "working-directory": text,
  "execution-mode": text,
  "iac-version": text,
  operations: flag,
  "setting-overwrites": flags,
  "vcs-repo": z.record(z.string(), z.unknown()).nullable().catch(null),
  "vcs-repo-identifier": text,
  "created-at": text,
  "updated-at": text,
  "latest-change-at": text,
  "last-assessment-result-at": text,
  locked: z.boolean().catch(false),
  "resource-count": count,
  environment: text,
  source: text,
  "structured-run-output-enabled": flag,
  "tag-names": z.array(z.string()).catch([]),
  permissions: flags,
  actions: flags,
  "apply-duration-average": count,
  "plan-duration-average": count,
  "policy-check-failures": count,
  "run-failures": count,
  "workspace-kpis-runs-count": count,
});

/** The attributes of a configuration version. */
export const configurationVersionAttributes = z.looseObject({
  status: z.string().catch(""),
  "status-timestamps": z.record(z.string(), z.string()).catch({}),
  source: text,
  error: text,
  "error-message": text,
  /** Given only in the answer to the create: the one place to send the files. */
  "upload-url": text,
  "auto-queue-runs": flag,
  speculative: flag,
  provisional: flag,
});

const workspaceToSend = resourceToSend("workspaces");

export const workspaces = {
  read: endpoint("GET workspaces/{id}", { answer: resourceObject, notFound: "absent" }),
  readByName: endpoint("GET organizations/{organization}/workspaces/{name}", { answer: resourceObject, notFound: "absent" }),
  create: endpoint("POST organizations/{organization}/workspaces", { body: workspaceToSend, answer: resourceObject }),
  update: endpoint("PATCH workspaces/{id}", { body: workspaceToSend, answer: resourceObject }),
  updateByName: endpoint("PATCH organizations/{organization}/workspaces/{name}", { body: workspaceToSend, answer: resourceObject }),
  delete: endpoint("DELETE workspaces/{id}", { notFound: "absent" }),
  deleteByName: endpoint("DELETE organizations/{organization}/workspaces/{name}", { notFound: "absent" }),
  /** Paged: `WorkspacesClient.sendAll` reads every page. */
  list: endpoint("GET organizations/{organization}/workspaces", { answer: listOf(resourceObject) }),
};

export const configurationVersions = {
  read: endpoint("GET configuration-versions/{id}", { answer: resourceObject, notFound: "absent" }),
  /** The same read, for a version a call names: one that is not there fails the call. */
  get: endpoint("GET configuration-versions/{id}", { answer: resourceObject }),
  /** A workspace's versions, newest first, paged. */
  listPage: endpoint("GET workspaces/{workspaceId}/configuration-versions", { answer: listOf(resourceObject) }),
  /** Never repeated on its own: a second attempt would make a second version. */
  create: endpoint("POST workspaces/{workspaceId}/configuration-versions", { body: resourceToSend("configuration-versions"), answer: resourceObject, once: true }),
  archive: endpoint("POST configuration-versions/{id}/actions/archive"),
  /** A 302 to a temporary URL of the version's `.tar.gz` archive (sent by `openRedirected`, which follows it without the token). */
  download: endpoint("GET configuration-versions/{id}/download"),
  /** 404 for a version without commit information, and for one that does not exist. */
  ingressAttributes: endpoint("GET configuration-versions/{id}/ingress-attributes", { answer: resourceObject, notFound: "absent" }),
};

/** A page's links and metadata: the next page's number, or a `links.next` URL. */
const pageLinks = z.looseObject({ next: z.string().nullish() });
const pageMeta = z.looseObject({
  pagination: z.looseObject({ "next-page": z.number().nullish(), "current-page": z.number().optional(), "total-pages": z.number().optional() }).optional(),
});

/**
 * The document around every answer: `data` (which the row's answer schema reads), the resources a
 * request asked to include, and the pagination. Read leniently: a member of another form reads as absent.
 */
export const jsonApiDocument = z.looseObject({
  data: z.unknown(),
  included: z.array(resourceObject).optional().catch(undefined),
  links: pageLinks.optional().catch(undefined),
  meta: pageMeta.optional().catch(undefined),
});

export type JsonApiResourceObject = z.output<typeof resourceObject>;
/** A resource object whose attributes are read as `A`. */
export type JsonApiResource<A = Record<string, unknown>> = Pick<JsonApiResourceObject, "id" | "type" | "relationships" | "links"> & { attributes: A };
/** What comes beside `data` in a document. */
export interface JsonApiMembers {
  included?: JsonApiResourceObject[];
  links?: z.output<typeof pageLinks>;
  meta?: z.output<typeof pageMeta>;
}
/** A document of one resource, and of a page of them. */
export type JsonApiDocument<A = Record<string, unknown>> = JsonApiMembers & { data: JsonApiResource<A> };
export type JsonApiListDocument<A = Record<string, unknown>> = JsonApiMembers & { data: JsonApiResource<A>[] };
export type WorkspaceAttributes = z.output<typeof workspaceAttributes>;
export type ConfigurationVersionAttributes = z.output<typeof configurationVersionAttributes>;
