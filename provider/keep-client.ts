/**
 * Client of the secrets service: `/v1` paths, `X-Keep-Token`, namespaces, lists as `GET ?list=true`,
 * answers bare or inside the `data` envelope.
 */
import { AxiosInstance } from "axios";
import { ServiceConfig } from "./config";
import { Call, Endpoint, NotFound, retryOf, send, Transport } from "./contract";
import { unlessNotFound } from "./errors";
import { createHttpClient, RetryOverride } from "./http";

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The fields of an answer: inside the `data` envelope when there is one, else at the top level. */
export function answerFields(answer: unknown): Record<string, unknown> | undefined {
  if (!isObject(answer)) return undefined;
  return isObject(answer.data) ? answer.data : answer;
}


/** The lease an answer's envelope gives beside `data` (generated credentials); empty when it gives none. */
export interface Lease {
  id: string;
  /** Seconds. */
  duration: number;
  renewable: boolean;
}

function leaseOf(answer: unknown): Lease {
  const envelope = isObject(answer) ? answer : {};
  return { id: String(envelope.lease_id ?? ""), duration: Number(envelope.lease_duration ?? 0), renewable: envelope.renewable === true };
}

export interface KeepRequestOptions {
  /** Namespace for this request; overrides the configured one. */
  namespace?: string;
  query?: Record<string, string>;
  /** Content type of the body when not JSON's default (`application/merge-patch+json` for PATCH). */
  contentType?: string;
  /** Retries of this call: `false` for none (a step that must not run twice), or a partial policy overriding the client's. */
  retry?: RetryOverride;
}

export class KeepClient {
  private readonly http: AxiosInstance;
  private readonly transport: Transport<KeepRequestOptions, { lease: Lease; wrapInfo: unknown }> = async (row, path, body, options = {}) => {
    const answer = await this.request(row.method, path, body, { ...options, retry: retryOf(row, options.retry) });
    // A response-wrapped answer carries its token in the envelope's `wrap_info`, beside an empty `data`.
    const wrapInfo = isObject(answer) ? answer.wrap_info ?? undefined : undefined;
    return { body: answerFields(answer) ?? answer, extra: { lease: leaseOf(answer), wrapInfo } };
  };

  constructor(readonly config: ServiceConfig) {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (config.token) headers["X-Keep-Token"] = config.token;
    if (config.requestHeader) headers["X-Keep-Request"] = "true";
    this.http = createHttpClient({ config, basePath: "/v1", headers });
  }

  private headersFor(options: KeepRequestOptions): Record<string, string> {
    const namespace = options.namespace ?? this.config.namespace;
    const headers: Record<string, string> = namespace ? { "X-Keep-Namespace": namespace } : {};
    if (options.contentType) headers["Content-Type"] = options.contentType;
    return headers;
  }

  async request<T = unknown>(method: string, path: string, body?: unknown, options: KeepRequestOptions = {}): Promise<T> {
    const response = await this.http.request<T>({
      method,
      url: path,
      data: body,
      params: options.query,
      headers: this.headersFor(options),
      retry: options.retry,
    });
    return response.data;
  }

  /** Sends one row of the contract (`contracts/keep.ts`); its schema reads the answer's fields, bare or under `data`. */
  send<Body, Answer, Missing extends NotFound>(row: Endpoint<Body, Answer, Missing>, call: Call<Body, KeepRequestOptions> = {}) {
    return send(this.config.service, "/v1", this.transport, row, call);
  }

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
      query: { ...options.query, list: "true" },
    });
    const keys = body?.keys ?? body?.data?.keys;
    return Array.isArray(keys) ? keys.map(String) : [];
  }
}
