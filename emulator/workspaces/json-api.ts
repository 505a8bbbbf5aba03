/**
 * JSON:API plumbing of the workspace service emulator: error objects, the error type routes throw,
 * and the pagination block of list responses.
 */
export const JSON_API_TYPE = "application/vnd.api+json";

export interface JsonApiErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

const TITLES: Record<number, string> = {
  400: "bad request",
  401: "unauthorized",
  403: "forbidden",
  404: "not found",
  405: "method not allowed",
  409: "conflict",
  410: "gone",
  413: "payload too large",
  415: "unsupported media type",
  422: "invalid attribute",
  429: "too many requests",
  500: "internal server error",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout",
};

export function titleOf(status: number): string {
  return TITLES[status] ?? (status >= 500 ? "internal server error" : "request failed");
}

export function errorObject(status: number, detail?: string, source?: JsonApiErrorObject["source"]): JsonApiErrorObject {
  const error: JsonApiErrorObject = { status: String(status), title: titleOf(status) };
  if (detail !== undefined) error.detail = detail;
  if (source) error.source = source;
  return error;
}

export function errorDocument(status: number, detail?: string): { errors: JsonApiErrorObject[] } {
  return { errors: [errorObject(status, detail)] };
}

/** Thrown by route handlers; the server's error handler turns it into a JSON:API error document. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: JsonApiErrorObject[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => e.detail ?? e.title).join("; "));
  }

  static of(status: number, detail?: string, source?: JsonApiErrorObject["source"]): ApiError {
    return new ApiError(status, [errorObject(status, detail, source)]);
  }
}

/**
 * The real service answers 404 both for missing resources and for resources the caller may not
 * read, so that existence does not leak; the body is the same in both cases.
 */
export const notFound = (): ApiError => ApiError.of(404);

/** Collects 422 errors so one response reports every invalid attribute, as the real service does. */
export class AttributeErrors {
  readonly list: JsonApiErrorObject[] = [];

  add(pointer: string, detail: string): void {
    this.list.push(errorObject(422, detail, { pointer }));
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw new ApiError(422, this.list);
  }
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page<T> {
  items: T[];
  meta: { pagination: Record<string, number | null> };
  links: Record<string, string | null>;
}

/**
 * Cuts one page out of `all` following `page[number]` / `page[size]` and builds the pagination
 * block of the real service: `meta.pagination` and absolute `links` that keep the other query
 * parameters. Out-of-range values fall back rather than fail (a size above 100 becomes 100, a size or number
 * below 1 or not a number takes its default);
 * an empty collection still has one (empty) page so `first` and `last` stay valid links.
 */
export function paginate<T>(all: T[], query: Record<string, unknown>, absolutePath: string): Page<T> {
  const size = clampInt(query["page[size]"], DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const number = clampInt(query["page[number]"], 1, 1, Number.MAX_SAFE_INTEGER);
  const totalCount = all.length;
  const totalPages = Math.max(1, Math.ceil(totalCount / size));
  const items = all.slice((number - 1) * size, number * size);
  const prev = number > 1 ? Math.min(number - 1, totalPages) : null;
  const next = number < totalPages ? number + 1 : null;

  const kept = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === "page[number]" || key === "page[size]") continue;
    for (const v of Array.isArray(value) ? value : [value]) kept.append(key, String(v));
  }
  const linkTo = (page: number | null): string | null => {
    if (page === null) return null;
    const params = new URLSearchParams(kept);
    params.set("page[number]", String(page));
    params.set("page[size]", String(size));
    return `${absolutePath}?${params.toString()}`;
  };

  return {
    items,
    meta: {
      pagination: {
        "current-page": number,
        "page-size": size,
        "prev-page": prev,
        "next-page": next,
        "total-pages": totalPages,
        "total-count": totalCount,
      },
    },
    links: { self: linkTo(number), first: linkTo(1), prev: linkTo(prev), next: linkTo(next), last: linkTo(totalPages) },
  };
}

function clampInt(raw: unknown, fallback: number, min: number, max: number): number {
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text !== "string" || !/^\d+$/.test(text.trim())) return fallback;
  const value = Number(text.trim());
  if (value < min) return fallback;
  return Math.min(value, max);
}

/** `?include=a,b` as a list; unknown names are refused with 400 as JSON:API requires. */
export function parseInclude(query: Record<string, unknown>, allowed: readonly string[]): string[] {
  const raw = query.include;
  if (raw === undefined || raw === "") return [];
  const names = String(Array.isArray(raw) ? raw.join(",") : raw)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !allowed.includes(n));
  if (unknown.length > 0) {
    throw ApiError.of(400, `include does not accept ${unknown.join(", ")}; accepted: ${allowed.join(", ")}`, {
      parameter: "include",
    });
  }
  return names;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface ResourceDocument {
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

/**
 * The `data` of a create or update body. JSON:API answers 409 when `data.type` names another
 * collection; a body without a `data` object is malformed (400).
 */
export function readResourceDocument(body: unknown, type: string): ResourceDocument {
  if (!isObject(body) || !isObject(body.data)) {
    throw ApiError.of(400, "the request body must be a JSON:API document with a data object", { pointer: "/data" });
  }
  const data = body.data;
  if (data.type === undefined) throw ApiError.of(422, "type can't be blank", { pointer: "/data/type" });
  if (data.type !== type) throw ApiError.of(409, `type must be ${type}`, { pointer: "/data/type" });
  const attributes = data.attributes ?? {};
  if (!isObject(attributes)) throw ApiError.of(422, "attributes must be an object", { pointer: "/data/attributes" });
  const relationships = data.relationships ?? {};
  if (!isObject(relationships)) {
    throw ApiError.of(422, "relationships must be an object", { pointer: "/data/relationships" });
  }
  return { attributes, relationships };
}
