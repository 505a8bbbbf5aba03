/**
 * The one HTTP machinery every service client uses: axios with keep-alive agents, TLS settings, the
 * retry policy (as data, applied once here) and the conversion of failures into `ApiError`.
 */
import * as http from "node:http";
import * as https from "node:https";
import axios, { AxiosAdapter, AxiosError, AxiosHeaders, AxiosInstance, AxiosRequestConfig, AxiosRequestTransformer } from "axios";
import axiosRetry, { IAxiosRetryConfigExtended } from "axios-retry";
import { ServiceConfig } from "./config";
import { ApiError, RequestScope, ApiErrorDetail, attemptMayHaveActed } from "./errors";
import { certificateProblemOf, isCertificateRefusal, schemeMismatchOf } from "./tls-problems";
import { transportFor } from "./transport";

/** Which failures are retried, and how long to wait. One policy per client; a call may override it (`retry`). */
export interface RetryPolicy {
  /** Retries of 412, 5xx and network failures. */
  retries: number;
  /** Retries of 429 answers, which say when to come back and so cost little. */
  rateLimitRetries: number;
  /** First backoff delay; it doubles with each attempt, with jitter. */
  baseDelayMs: number;
  /** Longest backoff delay. */
  maxDelayMs: number;
  /** Statuses retried with backoff. */
  retryStatuses: readonly number[];
  /** Network error codes retried with backoff (reset connections, timeouts). */
  retryCodes: readonly string[];
  /**
   * Whether a failure after which the service may have acted (sent without an answer, or a write
   * answered 5xx) is retried. A create whose repetition would make a second object sets it false and
   * looks for what the attempt made (see `ApiError.mayHaveActed`).
   */
  retryWhenMayHaveActed: boolean;
}

/**
 * What one call may say about retries: `false` never retries it; a partial policy overrides the
 * client's for this call only.
 */
export type RetryOverride = false | Partial<RetryPolicy>;

declare module "axios" {
  interface AxiosRequestConfig {
    /** Retries of this call: `false` for none, or a partial policy overriding the client's. */
    retry?: RetryOverride;
    /** How messages name the target when its URL is a credential (`<upload-url>`). */
    describedAs?: string;
  }
}

export const DEFAULT_RETRY_STATUSES = [412, 429, 500, 502, 503, 504] as const;
export const DEFAULT_RETRY_CODES = ["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "EAI_AGAIN", "ERR_BAD_RESPONSE"] as const;

export function retryPolicyOf(config: ServiceConfig): RetryPolicy {
  return {
    retries: config.maxRetries,
    rateLimitRetries: Math.max(config.maxRetries, 30),
    baseDelayMs: config.retryBaseDelayMs,
    maxDelayMs: 30_000,
    retryStatuses: DEFAULT_RETRY_STATUSES,
    retryCodes: DEFAULT_RETRY_CODES,
    retryWhenMayHaveActed: true,
  };
}

/** The policy of one call: the client's, overridden by the call's `retry`. */
export function effectivePolicy(policy: RetryPolicy, override: RetryOverride | undefined): RetryPolicy {
  if (override === false) return { ...policy, retries: 0, rateLimitRetries: 0 };
  return override ? { ...policy, ...override } : policy;
}

/**
 * Milliseconds the server asks us to wait: the precise rate-limit reset when given (the workspace
 * service sends it with fractions of a second), else `Retry-After` (seconds or an HTTP date).
 */
export function serverWaitMs(error: AxiosError): number | undefined {
  const headers = error.response?.headers ?? {};
  const reset = headers["x-ratelimit-reset"];
  if (reset !== undefined && Number.isFinite(Number(reset))) return Math.max(0, Number(reset) * 1000);
  const retryAfter = headers["retry-after"];
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(String(retryAfter));
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return undefined;
}

/**
 * The one backoff of the code base: exponential from `baseDelayMs` (attempt 1) up to `maxDelayMs`,
 * with jitter over its upper half. Retries (`retryDelayMs`) and waits for a state (`waitFor`) use it.
 */
export function backoffMs(policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, attempt: number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (Math.max(1, attempt) - 1));
  return exp / 2 + (Math.random() * exp) / 2;
}

/** The backoff; a wait the server asks for wins, plus a little jitter so a burst spreads out. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, error: AxiosError): number {
  const asked = serverWaitMs(error);
  if (asked !== undefined) return asked + Math.random() * Math.max(50, policy.baseDelayMs);
  return backoffMs(policy, attempt);
}

/** Retries made so far for one request, by budget; kept on the request's config across attempts. */
interface RetryCounts {
  rateLimited: number;
  other: number;
  /** An attempt retried so far may have acted on the service. */
  mayHaveActed: boolean;
}
/** A string key: axios copies string-keyed config entries from one attempt to the next. */
const RETRY_COUNTS = "keepstack-retries";

function countsOf(config: AxiosRequestConfig | undefined): RetryCounts {
  const holder = (config ?? {}) as { [RETRY_COUNTS]?: RetryCounts };
  return (holder[RETRY_COUNTS] ??= { rateLimited: 0, other: 0, mayHaveActed: false });
}

/** Whether the failed attempt may have reached the service and acted (see `attemptMayHaveActed`). */
function mayHaveActed(error: AxiosError): boolean {
  return attemptMayHaveActed(error.config?.method ?? "get", error.response?.status ?? 0, error.code, isTlsRefusal(error));
}

function isTlsRefusal(error: AxiosError): boolean {
  return !error.response && isCertificateRefusal(error.code);
}

/**
 * Whether to retry, counting against the matching budget: 429 answers have their own, larger one,
 * so a request slowed by rate limiting still has its full budget for 5xx answers and resets. The
 * call's own `retry` overrides the client's policy.
 */
export function shouldRetry(clientPolicy: RetryPolicy, error: AxiosError, isFinal?: (error: AxiosError) => boolean): boolean {
  if (isFinal?.(error)) return false;
  const policy = effectivePolicy(clientPolicy, error.config?.retry);
  const status = error.response?.status;
  const counts = countsOf(error.config);
  const acted = mayHaveActed(error);
  if (acted && !policy.retryWhenMayHaveActed) return false;
  let retry: boolean;
  if (status === 429) retry = counts.rateLimited++ < policy.rateLimitRetries;
  else {
    const retryable = status !== undefined ? policy.retryStatuses.includes(status) : error.code !== undefined && policy.retryCodes.includes(error.code);
    retry = retryable && counts.other++ < policy.retries;
  }
  if (retry && acted) counts.mayHaveActed = true;
  return retry;
}

/** Turns an error body of any of the three services into details. */
export function errorDetailsOf(body: unknown): ApiErrorDetail[] {
  if (typeof body === "string") {
    const text = body.trim();
    if (!text) return [];
    try {
      return errorDetailsOf(JSON.parse(text));
    } catch {
      return [{ message: text.length > 500 ? `${text.slice(0, 500)}…` : text }];
    }
  }
  if (body && typeof body === "object" && Array.isArray((body as { errors?: unknown }).errors)) {
    return (body as { errors: unknown[] }).errors.map((e): ApiErrorDetail => {
      if (typeof e === "string") return { message: e };
      const o = (e ?? {}) as { title?: string; detail?: string; source?: { pointer?: string } };
      const parts = [o.title, o.detail].filter((x): x is string => Boolean(x));
      const message =
        parts.length === 2 && parts[1].toLowerCase().startsWith(parts[0].toLowerCase())
          ? parts[1]
          : parts.join(": ") || JSON.stringify(e);
      return { message, pointer: o.source?.pointer };
    });
  }
  return [];
}

export interface HttpClientOptions {
  config: ServiceConfig;
  /** Path prefix under the address, such as `/v1` or `/api/v2`. */
  basePath: string;
  /** Headers sent on every request (authentication, content type). */
  headers: Record<string, string>;
  /** Answers the service has decided for good, even with a retryable status (never retried). */
  isFinal?: (error: AxiosError) => boolean;
  /** Told, every few seconds, of a request still waiting for its answer (see `waitNoticeMs`). */
  notify?: (message: string) => void;
}

/**
 * How often a request still waiting for its answer is told: every 5 seconds, or four times per
 * attempt when an attempt's timeout is shorter than 20 seconds.
 */
export function waitNoticeMs(timeoutMs: number): number {
  return Math.min(5_000, timeoutMs / 4);
}

/** The path a message shows: relative to the address, query included, never credentials. */
function pathOf(config: AxiosRequestConfig, basePath: string): string {
  if (config.describedAs) return config.describedAs;
  const url = config.url ?? "";
  if (/^https?:\/\//.test(url)) return new URL(url).pathname;
  const query = config.params ? `?${new URLSearchParams(config.params as Record<string, string>).toString()}` : "";
  return `${basePath}${url.startsWith("/") ? url : `/${url}`}${query}`;
}

export function createHttpClient(options: HttpClientOptions): AxiosInstance {
  const { config } = options;
  const policy = retryPolicyOf(config);
  const isHttps = config.address.startsWith("https:");
  const agent = isHttps
    ? new https.Agent({ keepAlive: true, ca: config.caCert, rejectUnauthorized: !config.skipTlsVerify })
    : new http.Agent({ keepAlive: true });
  const baseURL = `${config.address}${options.basePath}`;
  const headers = Object.entries({ Accept: axios.defaults.headers.common.Accept as string, ...options.headers });
  // axios merges each of an instance's defaults into every request it sends, and that merge costs
  // more CPU than the rest of the request. So the instance keeps only what axios itself applies
  // (the adapter, the body transforms, validateStatus); the wire's settings (base URL, agent,
  // timeout, no redirects) are the transport's, and the client's headers go on in the request
  // transform, under the request's own, before axios' JSON transform reads the content type.
  const transport = transportFor(baseURL, agent, { timeoutMs: config.timeoutMs });
  const notify = options.notify;
  // A request still waiting says so now and then, naming itself, its attempt and the timeout: a
  // service that takes connections and never answers is otherwise minutes of silence.
  const adapter: AxiosAdapter = notify
    ? (cfg) => {
        const timeoutMs = cfg.timeout || config.timeoutMs;
        const attempt = ((cfg as { "axios-retry"?: IAxiosRetryConfigExtended })["axios-retry"]?.retryCount ?? 0) + 1;
        const attempts = effectivePolicy(policy, (cfg as AxiosRequestConfig).retry).retries + 1;
        const what = `${(cfg.method ?? "get").toUpperCase()} ${pathOf(cfg, options.basePath)}${/^https?:\/\//.test(cfg.url ?? "") ? "" : ` at ${config.address}`}`;
        const timer = setInterval(() => notify(`still waiting for ${what}: attempt ${attempt} of ${attempts}, ${Number((timeoutMs / 1000).toFixed(3))} s each`), waitNoticeMs(timeoutMs));
        timer.unref();
        return transport(cfg).finally(() => clearInterval(timer));
      }
    : transport;
  const client = axios.create({
    adapter,
    transformRequest: [
      (data: unknown, requestHeaders: AxiosHeaders) => {
        for (const [name, value] of headers) requestHeaders.set(name, value, false);
        return data;
      },
      ...(axios.defaults.transformRequest as AxiosRequestTransformer[]),
    ],
  });
  for (const key of Object.keys(client.defaults) as (keyof typeof client.defaults)[]) {
    if (!["adapter", "transformRequest", "transformResponse", "validateStatus"].includes(key)) delete client.defaults[key];
  }
  axiosRetry(client, {
    // The budgets (and a call's own policy) are enforced by shouldRetry; this bound never binds first.
    retries: Number.MAX_SAFE_INTEGER,
    shouldResetTimeout: true,
    retryCondition: (error) => shouldRetry(policy, error, options.isFinal),
    retryDelay: (attempt, error) => retryDelayMs(effectivePolicy(policy, error.config?.retry), attempt, error),
  });
  client.interceptors.response.use(undefined, (error: unknown) => {
    if (error instanceof ApiError || !axios.isAxiosError(error)) throw error;
    throw apiErrorOf(config, options.basePath, error);
  });
  return client;
}

/**
 * The `ApiError` of a failed axios request: a new error without `cause`, since the axios error holds
 * the request headers, token included. A refused certificate is told in words, with the settings
 * that fix it.
 */
export function apiErrorOf(config: ServiceConfig, basePath: string, error: AxiosError): ApiError {
  const cfg: AxiosRequestConfig = error.config ?? {};
  const retries = (cfg as { "axios-retry"?: IAxiosRetryConfigExtended })["axios-retry"]?.retryCount ?? 0;
  const method = (cfg.method ?? "get").toUpperCase();
  const code = error.response ? undefined : error.code;
  const certificate = error.response ? undefined : certificateProblemOf(config, error.code) ?? schemeMismatchOf(config, error);
  return new ApiError(config.service, method, pathOf(cfg, basePath), error.response?.status ?? 0, errorDetailsOf(error.response?.data), {
    retries,
    code,
    reason: certificate?.reason,
    advice: certificate?.advice,
    notSent: certificate !== undefined,
    earlierAttemptMayHaveActed: countsOf(cfg).mayHaveActed,
    cluster: config.cluster,
    names: config.names,
    scope: scopeOf(config, cfg, basePath),
    // The service's address; not a URL given outright (an upload URL is a credential).
    address: error.response || /^https?:\/\//.test(cfg.url ?? "") ? undefined : config.address,
    timeoutMs: error.response ? undefined : (cfg.timeout ?? config.timeoutMs),
  });
}

/** The namespace header of a secrets-service request, or the organization in a workspace-service path. */
function scopeOf(config: ServiceConfig, cfg: AxiosRequestConfig, basePath: string): RequestScope | undefined {
  if (config.service === "keep") {
    const headers = (cfg.headers ?? {}) as Record<string, unknown>;
    const name = Object.entries(headers).find(([k]) => k.toLowerCase() === "x-keep-namespace")?.[1];
    return typeof name === "string" && name !== "" ? { kind: "namespace", name, fromSetting: name === config.namespace } : undefined;
  }
  if (config.service === "workspaces") {
    const name = /\/organizations\/([^/?]+)/.exec(pathOf(cfg, basePath))?.[1];
    return name ? { kind: "organization", name: decodeURIComponent(name), fromSetting: decodeURIComponent(name) === config.organization } : undefined;
  }
  return undefined;
}
