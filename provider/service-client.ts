/**
 * The one client core of the three services. A service's client is this core and a small profile:
 * its base path, the headers of every request (authentication, content type), what one call adds
 * (query, namespace header, a blocking query's timeout), how a payload is wrapped and an answer read
 * (the `data` or JSON:API envelope, leases, the index header) and which refusals are final. The core
 * brings the rest: the HTTP client with the one retry policy and its errors (http.ts), and `send`,
 * the one way a row of a contract goes out (contract.ts).
 */
import { AxiosError, AxiosInstance, AxiosRequestConfig, AxiosResponse, RawAxiosResponseHeaders, AxiosResponseHeaders } from "axios";
import { ServiceConfig } from "./config";
import { Call, Endpoint, NotFound, retryOf, send, Transport } from "./contract";
import { createHttpClient, RetryOverride } from "./http";

/** A query as a profile gives it: entries whose value is `true` are sent bare (`?consistent`), undefined ones not at all. */
export type Query = Record<string, string | true | undefined>;

/** What every call may carry, whatever the service. */
export interface CallOptions {
  query?: Query;
  /** Retries of this call: `false` for none (a step that must not run twice), or a partial policy overriding the client's. */
  retry?: RetryOverride;
}

/** What one call adds to its request. */
export interface RequestShape {
  /** The whole query, when the profile adds to the call's own. */
  query?: Query;
  headers?: Record<string, string>;
  /** Attempt timeout, when not the configured one (a blocking query waits on the server). */
  timeoutMs?: number;
}

export interface Profile<Options extends CallOptions, Extra> {
  /** Path prefix under the address: `/v1`, `/api/v2`. */
  basePath: string;
  /** Headers of every request: authentication, content type. */
  headers(config: ServiceConfig): Record<string, string>;
  /** Answers the service has decided for good, even with a retryable status (never retried). */
  isFinal?: (error: AxiosError) => boolean;
  /** What one call adds: its query, headers and timeout; `row` is the contract's row (none for a request by path). */
  shape?(config: ServiceConfig, options: Options, row?: Endpoint): RequestShape;
  /** How a query's keys and values are encoded, when not as a form (`URLSearchParams`) does. */
  encode?: (text: string) => string;
  /** A row's payload as it goes on the wire (inside an envelope). */
  payload?(body: unknown): unknown;
  /** A row's answer: its body, and what the profile reads beside it. */
  answer(data: unknown, headers: RawAxiosResponseHeaders | AxiosResponseHeaders): { body: unknown; extra: Extra };
}

/** A query component as a form encodes it (`URLSearchParams`): brackets and `:` encoded, a space as `+`. */
const formEncoded = (text: string) => new URLSearchParams({ t: text }).toString().slice(2);

/** `?a=1&page%5Bsize%5D=2&consistent`: each key and value by `encode`; entries whose value is `true` bare, undefined ones left out. */
export function queryString(query: Query | undefined, encode: (text: string) => string = formEncoded): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    parts.push(value === true ? encode(key) : `${encode(key)}=${encode(value)}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

export class ServiceClient<Options extends CallOptions, Extra> {
  protected readonly http: AxiosInstance;
  private readonly transport: Transport<Options, Extra>;

  constructor(
    readonly config: ServiceConfig,
    private readonly profile: Profile<Options, Extra>,
    /** Told of requests still waiting for their answer (the context's messages). */
    notify?: (message: string) => void,
  ) {
    this.http = createHttpClient({ config, basePath: profile.basePath, headers: profile.headers(config), isFinal: profile.isFinal, notify });
    this.transport = async (row, path, body, options) => {
      const wire = body === undefined || !profile.payload ? body : profile.payload(body);
      const query = row.query ? { ...row.query, ...options?.query } : options?.query;
      const response = await this.exchange(row.method, path, wire, { ...options, query, retry: retryOf(row, options?.retry) } as Options, row);
      return profile.answer(response.data, response.headers);
    };
  }

  /** One request as the profile shapes it, retried by the one policy; the whole response. */
  protected exchange<T>(method: string, path: string, body: unknown, options: Options = {} as Options, row?: Endpoint): Promise<AxiosResponse<T>> {
    const shape = this.profile.shape?.(this.config, options, row) ?? {};
    // Only what this request sets: each key given is merged into the client's defaults by axios.
    const request: AxiosRequestConfig = { method, url: `${path}${queryString(shape.query ?? options.query, this.profile.encode)}` };
    if (body !== undefined) request.data = body;
    if (shape.headers && Object.keys(shape.headers).length) request.headers = shape.headers;
    if (shape.timeoutMs !== undefined) request.timeout = shape.timeoutMs;
    if (options.retry !== undefined) request.retry = options.retry;
    return this.http.request<T>(request);
  }

  /** One request by path (for what no row describes, and the package's own tests); the answer's body as it came. */
  async request<T = unknown>(method: string, path: string, body?: unknown, options?: Options): Promise<T> {
    return (await this.exchange<T>(method, path, body, options)).data;
  }

  /** Sends one row of the service's contract (`contracts/`), through the profile. */
  send<Body, Answer, Missing extends NotFound, Path extends string>(row: Endpoint<Body, Answer, Missing, Path>, call: Call<Body, Options, Path> = {}) {
    return send(this.config.service, this.profile.basePath, this.transport, row, call);
  }
}
