/**
 * The clients by path, for the package's own tests: `read`, `write`, `delete` and `list` of any path,
 * beside the contract's rows (the package itself sends rows only, through `send`). Tests set up and
 * inspect services with them where no resource or row is the subject.
 */
import { unlessNotFound, ResponseShapeError } from "../../provider/errors";
import { LIST } from "../../provider/contracts/keep";
import { KeepClient as RowKeepClient, KeepRequestOptions } from "../../provider/keep-client";
import type { JsonApiDocument, JsonApiListDocument, JsonApiResource } from "../../provider/contracts/workspaces";
import { MAX_PAGE_SIZE, nextPageOf, WorkspacesClient as RowWorkspacesClient, WorkspacesRequestOptions } from "../../provider/workspaces-client";

export class KeepClient extends RowKeepClient {
  /** GET; undefined when the object does not exist (404). */
  async read<T = unknown>(path: string, options: KeepRequestOptions = {}): Promise<T | undefined> {
    return unlessNotFound(this.request<T>("GET", path, undefined, options));
  }

  /** POST (the service treats PUT and POST alike); returns the body, if any. */
  write<T = unknown>(path: string, body: unknown, options: KeepRequestOptions = {}): Promise<T> {
    return this.request<T>("POST", path, body ?? {}, options);
  }

  /** DELETE; a 404 counts as done. */
  async delete(path: string, options: KeepRequestOptions = {}): Promise<void> {
    await unlessNotFound(this.request("DELETE", path, undefined, options));
  }

  /** LIST, sent as `GET ?list=true`; a 404 is an empty list. Returns `keys` whether bare or under `data`. */
  async list(path: string, options: KeepRequestOptions = {}): Promise<string[]> {
    const body = await this.read<{ keys?: unknown; data?: { keys?: unknown } }>(path, {
      ...options,
      query: { ...options.query, ...LIST },
    });
    const keys = body?.keys ?? body?.data?.keys;
    return Array.isArray(keys) ? keys.map(String) : [];
  }
}

export class WorkspacesClient extends RowWorkspacesClient {
  /** GET of one document; undefined when the service answers 404 (absent, or not visible to this token). */
  async read<A = Record<string, unknown>>(path: string, options: WorkspacesRequestOptions = {}): Promise<JsonApiDocument<A> | undefined> {
    const document = await unlessNotFound(this.request<JsonApiDocument<A>>("GET", path, undefined, options));
    return document === undefined ? undefined : this.checked("GET", path, document);
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
    options: Pick<WorkspacesRequestOptions, "retry"> = {},
  ): Promise<JsonApiResource<A>> {
    const data: Record<string, unknown> = { type, attributes };
    if (relationships && Object.keys(relationships).length > 0) data.relationships = relationships;
    const document = await this.request<JsonApiDocument<A>>(method, path, { data }, options);
    return this.checked(method, path, document).data;
  }

  /** DELETE; a 404 counts as done. */
  async delete(path: string): Promise<void> {
    await unlessNotFound(this.request("DELETE", path));
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
}
