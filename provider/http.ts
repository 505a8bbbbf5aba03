/**
 * The one HTTP machinery every service client uses: axios with keep-alive agents, TLS settings, the
 * retry policy (as data, applied once here) and the conversion of failures into `ApiError`.
 */
import * as http from "node:http";
import * as https from "node:https";
import axios, { AxiosError, AxiosInstance, AxiosRequestConfig } from "axios";
import axiosRetry, { IAxiosRetryConfigExtended } from "axios-retry";
import { ServiceConfig } from "./config";
import { ApiError, ApiErrorDetail } from "./errors";

/** Which failures are retried, and how long to wait. */
export interface RetryPolicy {
  /** Retries of 412, 5xx and network failures. */
  retries: number;
  /** Retries of 429 answers, which say when to come back and so cost little. */
  rateLimitRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Statuses retried with backoff. */
  retryStatuses: readonly number[];
  /** Network error codes retried with backoff (reset connections, timeouts). */
  retryCodes: readonly string[];
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
  };
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

/** Exponential backoff with jitter; a wait the server asks for wins, plus a little jitter so a burst spreads out. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, error: AxiosError): number {
  const asked = serverWaitMs(error);
  if (asked !== undefined) return asked + Math.random() * Math.max(50, policy.baseDelayMs);
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return exp / 2 + (Math.random() * exp) / 2;
}

/** Retries made so far for one request, by budget; kept on the request's config across attempts. */
interface RetryCounts {
  rateLimited: number;
  other: number;
}
/** A string key: axios copies string-keyed config entries from one attempt to the next. */
const RETRY_COUNTS = "keepstack-retries";

function countsOf(error: AxiosError): RetryCounts {
  const config = (error.config ?? {}) as { [RETRY_COUNTS]?: RetryCounts };
  return (config[RETRY_COUNTS] ??= { rateLimited: 0, other: 0 });
}

/**
 * Whether to retry, counting against the matching budget: 429 answers have their own, larger one,
 * so a request slowed by rate limiting still has its full budget for 5xx answers and resets.
 */
export function shouldRetry(policy: RetryPolicy, error: AxiosError, isFinal?: (error: AxiosError) => boolean): boolean {
  if (isFinal?.(error)) return false;
  const status = error.response?.status;
  const counts = countsOf(error);
  if (status === 429) return counts.rateLimited++ < policy.rateLimitRetries;
  const retryable = status !== undefined ? policy.retryStatuses.includes(status) : error.code !== undefined && policy.retryCodes.includes(error.code);
  return retryable && counts.other++ < policy.retries;
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
}

/** The path a message shows: relative to the address, query included, never credentials. */
function pathOf(config: AxiosRequestConfig, basePath: string): string {
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
  const client = axios.create({
    baseURL: `${config.address}${options.basePath}`,
    headers: options.headers,
    timeout: config.timeoutMs,
    [isHttps ? "httpsAgent" : "httpAgent"]: agent,
    maxRedirects: 0,
    // Error bodies are parsed by us; success bodies are JSON or empty.
    transitional: { silentJSONParsing: true, forcedJSONParsing: true, clarifyTimeoutError: true },
  });
  axiosRetry(client, {
    // The budgets are enforced by shouldRetry; this is only the outer bound.
    retries: policy.retries + policy.rateLimitRetries,
    shouldResetTimeout: true,
    retryCondition: (error) => shouldRetry(policy, error, options.isFinal),
    retryDelay: (attempt, error) => retryDelayMs(policy, attempt, error),
  });
  client.interceptors.response.use(undefined, (error: unknown) => {
    if (error instanceof ApiError || !axios.isAxiosError(error)) throw error;
    const cfg: AxiosRequestConfig = error.config ?? {};
    const retries = (cfg as { "axios-retry"?: IAxiosRetryConfigExtended })["axios-retry"]?.retryCount ?? 0;
    const method = (cfg.method ?? "get").toUpperCase();
    // A new error without `cause`: the axios error holds the request headers, token included.
    throw new ApiError(
      config.service,
      method,
      pathOf(cfg, options.basePath),
      error.response?.status ?? 0,
      errorDetailsOf(error.response?.data),
      retries,
      error.response ? undefined : error.code,
    );
  });
  return client;
}
