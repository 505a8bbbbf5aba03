/**
 * Client of the workspace service: JSON:API under `/api/v2`, `Authorization: Bearer`, lists paged
 * with `page[number]`/`page[size]`, and the archive store's URLs (the upload and the download), which
 * carry no authorization header because the URL itself is the credential.
 *
 * Retries (429 after the wait the server gives, with jitter; 5xx; reset connections) and the turning
 * of JSON:API error objects into one `ApiError` come from the shared machinery in http.ts.
 */
import * as http from "node:http";
import * as https from "node:https";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AxiosInstance } from "axios";
import { ServiceConfig, settingLabel } from "./config";
import { ApiError, ConfigError, ResponseShapeError } from "./errors";
import { createHttpClient, errorDetailsOf } from "./http";

export const JSON_API_MEDIA_TYPE = "application/vnd.api+json";

/** A relationship as JSON:API answers it: a reference (or list of them) and links. */
export interface JsonApiRelationship {
  data?: JsonApiReference | JsonApiReference[] | null;
  links?: Record<string, string>;
}

export interface JsonApiReference {
  id: string;
  type: string;
}

/** A JSON:API resource object. */
export interface JsonApiResource<A = Record<string, unknown>> {
  id: string;
  type: string;
  attributes: A;
  relationships?: Record<string, JsonApiRelationship>;
  links?: Record<string, string | null>;
}

export interface JsonApiDocument<A = Record<string, unknown>> {
  data: JsonApiResource<A>;
  included?: JsonApiResource[];
}

interface JsonApiListDocument<A> {
  data: JsonApiResource<A>[];
  included?: JsonApiResource[];
  links?: { next?: string | null };
  meta?: { pagination?: { "next-page"?: number | null; "current-page"?: number; "total-pages"?: number } };
}

export interface WorkspacesRequestOptions {
  /** Query parameters; brackets are percent-encoded (`page%5Bnumber%5D`). */
  query?: Record<string, string>;
}

/** Largest page the service serves; fewer pages means fewer requests against the rate limit. */
export const MAX_PAGE_SIZE = 100;

/** `a=1&page%5Bsize%5D=2`: every reserved character encoded, brackets included, as the spec asks. */
export function encodeQuery(query: Record<string, string> | undefined): string {
  if (!query) return "";
  const text = new URLSearchParams(query).toString();
  return text ? `?${text}` : "";
}

/** The ID of a to-one relationship, or null. */
export function relatedId(resource: JsonApiResource<unknown>, name: string): string | null {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data.id : null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What an upload sent. */
export interface UploadResult {
  /** Bytes sent; undefined when an earlier attempt completed but its answer was lost. */
  bytes?: number;
  /** Attempts made (1 unless a transfer failed and was sent again from a fresh stream). */
  attempts: number;
}

export class WorkspacesClient {
  private readonly http: AxiosInstance;
  private readonly agent: http.Agent;

  constructor(readonly config: ServiceConfig) {
    const headers: Record<string, string> = { "Content-Type": JSON_API_MEDIA_TYPE, Accept: JSON_API_MEDIA_TYPE };
    if (config.token) headers.Authorization = `Bearer ${config.token}`;
    this.http = createHttpClient({ config, basePath: "/api/v2", headers });
    this.agent = config.address.startsWith("https:")
      ? new https.Agent({ keepAlive: true, ca: config.caCert, rejectUnauthorized: !config.skipTlsVerify })
      : new http.Agent({ keepAlive: true });
  }

  /** The organization of a request: the one given, else `workspaces:organization`. */
  organization(override?: string): string {
    const organization = override ?? this.config.organization;
    if (!organization) {
      throw new ConfigError(
        `no organization: set \`organization\` on the resource, or ${settingLabel("workspaces", "organization")}`,
      );
    }
    return organization;
  }

  async request<T = unknown>(method: string, path: string, body?: unknown, options: WorkspacesRequestOptions = {}): Promise<T> {
    const response = await this.http.request<T>({ method, url: `${path}${encodeQuery(options.query)}`, data: body });
    return response.data;
  }

  /** GET of one document; undefined when the service answers 404 (absent, or not visible to this token). */
  async read<A = Record<string, unknown>>(path: string, options: WorkspacesRequestOptions = {}): Promise<JsonApiDocument<A> | undefined> {
    let document: JsonApiDocument<A>;
    try {
      document = await this.request<JsonApiDocument<A>>("GET", path, undefined, options);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return undefined;
      throw e;
    }
    return this.checked("GET", path, document);
  }

  /** A document whose `data` is not a resource object is the service breaking its contract. */
  private checked<A>(method: string, path: string, document: JsonApiDocument<A>): JsonApiDocument<A> {
    const data = (document as { data?: unknown } | undefined)?.data as JsonApiResource<A> | undefined;
    if (!data || typeof data !== "object" || typeof data.id !== "string" || typeof data.attributes !== "object") {
      throw new ResponseShapeError(this.config.service, method, `/api/v2${path}`, ["data is not a JSON:API resource object"]);
    }
    return document;
  }

  /** POST or PATCH of a JSON:API resource document; returns the resource the service answers with. */
  async write<A = Record<string, unknown>>(
    method: "POST" | "PATCH",
    path: string,
    type: string,
    attributes: Record<string, unknown>,
    relationships?: Record<string, unknown>,
  ): Promise<JsonApiResource<A>> {
    const data: Record<string, unknown> = { type, attributes };
    if (relationships && Object.keys(relationships).length > 0) data.relationships = relationships;
    const document = await this.request<JsonApiDocument<A>>(method, path, { data });
    return this.checked(method, path, document).data;
  }

  /** DELETE; a 404 counts as done. */
  async delete(path: string): Promise<void> {
    try {
      await this.request("DELETE", path);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return;
      throw e;
    }
  }

  /** POST of an action without a body (such as `actions/archive`). */
  async action(path: string): Promise<void> {
    await this.request("POST", path);
  }

  /**
   * Every item of a paged list: asks for the largest pages and follows the pagination metadata
   * (`meta.pagination.next-page`, or `links.next`) until the last page.
   */
  async list<A = Record<string, unknown>>(path: string, options: WorkspacesRequestOptions & { pageSize?: number } = {}): Promise<JsonApiResource<A>[]> {
    const items: JsonApiResource<A>[] = [];
    const size = String(options.pageSize ?? MAX_PAGE_SIZE);
    let page: number | null = 1;
    const seen = new Set<number>();
    while (page !== null && !seen.has(page)) {
      seen.add(page);
      const document: JsonApiListDocument<A> = await this.request<JsonApiListDocument<A>>("GET", path, undefined, {
        query: { ...options.query, "page[number]": String(page), "page[size]": size },
      });
      if (!Array.isArray(document?.data)) {
        throw new ResponseShapeError(this.config.service, "GET", `/api/v2${path}`, ["data is not a list of JSON:API resource objects"]);
      }
      const data = document.data;
      items.push(...data);
      page = nextPageOf(document);
    }
    return items;
  }

  /**
   * Streams a body to an archive-store URL (`upload-url`) with PUT, `Content-Type:
   * application/octet-stream` and no authorization header. `body` makes a fresh stream for each
   * attempt: a transfer that fails on the network or with 5xx is sent again from the start, never
   * from a half-consumed stream. An attempt answered 404 after an earlier one broke off means the
   * earlier one completed (the URL takes one upload).
   */
  async upload(uploadUrl: string, body: () => Readable): Promise<UploadResult> {
    const retries = this.config.maxRetries;
    for (let attempt = 1; ; attempt++) {
      try {
        const bytes = await this.putStream(uploadUrl, body());
        return { bytes, attempts: attempt };
      } catch (e) {
        const status = e instanceof ApiError ? e.status : undefined;
        if (attempt > 1 && (status === 404 || status === 410)) return { attempts: attempt };
        const transient = status !== undefined && (status === 0 || status === 429 || status >= 500);
        if (!transient || attempt > retries) throw e instanceof ApiError ? withRetries(e, attempt - 1) : e;
        const base = Math.min(30_000, this.config.retryBaseDelayMs * 2 ** (attempt - 1));
        await sleep(base / 2 + (Math.random() * base) / 2);
      }
    }
  }

  /**
   * The body behind a `302` endpoint (a configuration version download): GET with the token, then
   * GET of the temporary URL the service redirects to, without the token.
   */
  async openRedirected(path: string): Promise<Readable> {
    const response = await this.http.request({
      method: "GET",
      url: path,
      validateStatus: (status) => status === 301 || status === 302 || status === 303 || status === 307,
    });
    const location = response.headers.location;
    if (typeof location !== "string" || !location) {
      throw new ApiError(this.config.service, "GET", `/api/v2${path}`, response.status, [{ message: "the redirect has no Location" }]);
    }
    return this.getStream(new URL(location, this.config.address).toString());
  }

  private requestOptions(method: string, headers: Record<string, string>): http.RequestOptions {
    // `timeout` is the idle time of the socket, so a long transfer that keeps moving is not cut.
    return { method, headers, agent: this.agent, timeout: this.config.timeoutMs };
  }

  /** One PUT attempt; resolves with the bytes sent once the store answers 2xx. */
  private putStream(url: string, source: Readable): Promise<number> {
    const transport = url.startsWith("https:") ? https : http;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback(null, chunk);
      },
    });
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      let responded = false;
      // A failure to read the source (a file that vanished) is reported as it is, and not retried.
      let sourceError: Error | undefined;
      source.once("error", (e: Error) => (sourceError ??= e));
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        if (error) {
          source.destroy();
          reject(error);
        } else resolve(bytes);
      };
      const request = transport.request(url, this.requestOptions("PUT", { "Content-Type": "application/octet-stream" }), (response) => {
        responded = true;
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          // Only the start of an error body is kept for the message.
          if (kept < 4096) chunks.push(chunk);
          kept += chunk.length;
        });
        response.on("error", (e: NodeJS.ErrnoException) => settle(this.transferError("PUT", 0, [], e.code)));
        response.on("end", () => {
          if (status >= 200 && status < 300) settle();
          else settle(this.transferError("PUT", status, errorDetailsOf(Buffer.concat(chunks).toString("utf8"))));
        });
      });
      request.on("timeout", () => request.destroy(Object.assign(new Error("upload timed out"), { code: "ETIMEDOUT" })));
      const broken = (e: NodeJS.ErrnoException) => {
        // Once the store has answered, its status decides (a 413 may close the connection mid-body).
        if (responded && !sourceError) return;
        settle(sourceError ?? this.transferError("PUT", 0, [], e.code));
      };
      request.on("error", broken);
      pipeline(source, counter, request).catch(broken);
    });
  }

  /** Archive-store URLs are credentials: messages name them only as `<upload-url>` or `<download-url>`. */
  private transferError(method: "PUT" | "GET", status: number, details: { message: string }[], code?: string): ApiError {
    const url = method === "PUT" ? "<upload-url>" : "<download-url>";
    return new ApiError(this.config.service, method, url, status, details, 0, status === 0 ? (code ?? "network error") : undefined);
  }

  private getStream(url: string): Promise<Readable> {
    const transport = url.startsWith("https:") ? https : http;
    return new Promise<Readable>((resolve, reject) => {
      const request = transport.request(url, this.requestOptions("GET", {}), (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          resolve(response);
          return;
        }
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => reject(this.transferError("GET", status, errorDetailsOf(Buffer.concat(chunks).toString("utf8")))));
      });
      request.on("timeout", () => request.destroy(Object.assign(new Error("download timed out"), { code: "ETIMEDOUT" })));
      request.on("error", (e: NodeJS.ErrnoException) => reject(this.transferError("GET", 0, [], e.code)));
      request.end();
    });
  }
}

function nextPageOf(document: JsonApiListDocument<unknown>): number | null {
  const pagination = document?.meta?.pagination;
  if (pagination && "next-page" in pagination) return pagination["next-page"] ?? null;
  const next = document?.links?.next;
  if (next) {
    const match = /page(?:%5B|\[)number(?:%5D|\])=(\d+)/i.exec(next);
    if (match) return Number(match[1]);
  }
  // Neither metadata nor a next link: this was the only page.
  return null;
}

function withRetries(error: ApiError, retries: number): ApiError {
  if (retries === 0) return error;
  return new ApiError(error.service, error.method, error.path, error.status, error.details, retries, error.code);
}
