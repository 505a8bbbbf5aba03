/**
 * Client of the workspace service: JSON:API under `/api/v2`, `Authorization: Bearer`, lists paged
 * with `page[number]`/`page[size]`, and the archive store's URLs (the upload and the download), which
 * carry no authorization header because the URL itself is the credential.
 *
 * Retries (429 after the wait the server gives, with jitter; 412, 5xx; reset connections), the uploads
 * and downloads included, and the turning of JSON:API error objects into one `ApiError` come from the
 * shared machinery in http.ts.
 */
import { Readable, Transform } from "node:stream";
import { AxiosInstance } from "axios";
import { ServiceConfig, settingLabel } from "./config";
import { Call, Endpoint, PathParams } from "./contract";
import { route } from "./paths";
import { jsonApiDocument, JsonApiMembers, JsonApiResourceObject } from "./contracts/workspaces";
import { ApiError, ConfigError } from "./errors";
import { createHttpClient } from "./http";
import { CallOptions, Profile, ServiceClient } from "./service-client";

export const JSON_API_MEDIA_TYPE = "application/vnd.api+json";

export interface WorkspacesRequestOptions extends CallOptions {
  /** Query parameters; brackets are percent-encoded (`page%5Bnumber%5D`). */
  query?: Record<string, string>;
}

/** Largest page the service serves; fewer pages means fewer requests against the rate limit. */
export const MAX_PAGE_SIZE = 100;

/** The ID of a to-one relationship, or null. */
export function relatedId(resource: Pick<JsonApiResourceObject, "relationships">, name: string): string | null {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data.id : null;
}

/** What an upload sent. */
export interface UploadResult {
  /** Bytes sent; undefined when an earlier attempt completed but its answer was lost. */
  bytes?: number;
  /** Attempts made (1 unless a transfer failed and was sent again from a fresh stream). */
  attempts: number;
}

type JsonApiExtra = { included: JsonApiResourceObject[]; nextPage: number | null };

/** JSON:API: a row's payload goes as the document's `data`, and its answer is the document's `data`. */
const workspacesProfile: Profile<WorkspacesRequestOptions, JsonApiExtra> = {
  basePath: "/api/v2",
  headers(config) {
    const headers: Record<string, string> = { "Content-Type": JSON_API_MEDIA_TYPE, Accept: JSON_API_MEDIA_TYPE };
    if (config.token) headers.Authorization = `Bearer ${config.token}`;
    return headers;
  },
  payload: (body) => ({ data: body }),
  answer(document) {
    const answered = jsonApiDocument.safeParse(document);
    if (!answered.success) return { body: undefined, extra: { included: [], nextPage: null } };
    return {
      body: answered.data.data,
      // Resources the request asked to include (`include=run`) come beside `data`.
      extra: { included: answered.data.included ?? [], nextPage: nextPageOf(answered.data) },
    };
  },
};

export class WorkspacesClient extends ServiceClient<WorkspacesRequestOptions, JsonApiExtra> {
  /** The archive store: its URLs carry their own credential, so no authorization header goes there. */
  private readonly store: AxiosInstance;

  constructor(config: ServiceConfig, notify?: (message: string) => void) {
    super(config, workspacesProfile, notify);
    this.store = createHttpClient({ config, basePath: "", headers: {}, notify });
  }

  /** The organization of a request: the one given, else `workspaces:organization`. */
  organization(override?: string): string {
    const organization = override ?? this.config.organization;
    if (!organization) {
      throw new ConfigError(
        `no organization: set \`organization\` on the resource, or ${settingLabel("workspaces", "organization", undefined, this.config.names)}`,
      );
    }
    return organization;
  }

  /**
   * Every item of a listed row, across its pages: asks for the largest pages and follows the
   * pagination metadata (`meta.pagination.next-page`, or `links.next`) until the last page.
   */
  async sendAll<Item, Path extends string>(row: Endpoint<never, Item[], "error", Path>, call: Call<never, WorkspacesRequestOptions, Path> = {}): Promise<Item[]> {
    const items: Item[] = [];
    let page: number | null = 1;
    const seen = new Set<number>();
    while (page !== null && !seen.has(page)) {
      seen.add(page);
      const query: Record<string, string> = { ...call.options?.query, "page[number]": String(page), "page[size]": String(MAX_PAGE_SIZE) };
      const answer: { body: Item[]; nextPage: number | null } = await this.send(row, { ...call, options: { ...call.options, query } });
      items.push(...answer.body);
      page = answer.nextPage;
    }
    return items;
  }

  /**
   * Streams a body to an archive-store URL (`upload-url`) with PUT, `Content-Type:
   * application/octet-stream` and no authorization header, retried by the client's policy like any
   * other request. `body` makes a fresh stream for each attempt: a retried transfer is sent again from
   * the start, never from a half-consumed stream. An attempt answered 404 after an earlier one broke
   * off means the earlier one completed (the URL takes one upload). A source that fails to read (a
   * file that vanished) is reported as it is and not retried.
   */
  async upload(uploadUrl: string, body: () => Readable): Promise<UploadResult> {
    let attempts = 0;
    let bytes = 0;
    let sourceError: Error | undefined;
    const fresh = (): Readable => {
      attempts++;
      bytes = 0;
      const source = body();
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      source.once("error", (e: Error) => {
        sourceError ??= e;
        counter.destroy(e);
      });
      return source.pipe(counter);
    };
    try {
      await this.store.request({
        method: "PUT",
        url: uploadUrl,
        data: fresh(),
        headers: { "Content-Type": "application/octet-stream" },
        describedAs: "<upload-url>",
        maxBodyLength: Number.POSITIVE_INFINITY,
        "axios-retry": {
          onRetry: (_count, _error, next) => {
            next.data = fresh();
          },
        },
      });
      return { bytes, attempts };
    } catch (e) {
      if (sourceError) throw sourceError;
      if (e instanceof ApiError && attempts > 1 && (e.status === 404 || e.status === 410)) return { attempts };
      throw e;
    }
  }

  /**
   * The body behind a `302` endpoint (a configuration version download): GET with the token, then
   * GET of the temporary URL the service redirects to, without the token.
   */
  async openRedirected<Path extends string>(row: Endpoint<never, void, "error", Path>, params: PathParams<Path>): Promise<Readable> {
    const path = `/${route(row.path, params)}`;
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

  /**
   * A temporary download URL (a credential, named `<download-url>` in messages), as a stream; retried
   * by the client's policy. The body of an error answer is not read (it arrives as a stream).
   */
  private async getStream(url: string): Promise<Readable> {
    const response = await this.store.request<Readable>({ method: "GET", url, responseType: "stream", describedAs: "<download-url>" });
    return response.data;
  }
}

export function nextPageOf(document: JsonApiMembers): number | null {
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
