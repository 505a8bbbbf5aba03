/**
 * How a client's requests reach the wire. axios' own http adapter does, for every request, work
 * our requests never need: it looks up proxies in the environment, wraps the socket for redirects
 * and decompression, and pipes bodies through streams. On a provider host that is most of the
 * CPU time of an operation. A plain request (a JSON or empty body, a relative path with its query
 * in it, no `params`, no stream, no cancellation) is sent here instead as one `http.request` on the client's keep-alive
 * agent; everything else, and every request when a proxy is configured, goes to axios' adapter.
 *
 * The request and its outcome are those of axios' adapter: the same headers (without
 * `Accept-Encoding`, since nothing here decompresses), the same `AxiosError` codes for network
 * failures, timeouts (`clarifyTimeoutError`) and statuses (`validateStatus`), and the body as text
 * for axios' response transform.
 */
import * as http from "node:http";
import * as https from "node:https";
import axios, { AxiosAdapter, AxiosError, AxiosHeaders, AxiosResponse, InternalAxiosRequestConfig } from "axios";

const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"];

/** Whether the environment asks for a proxy, which only axios' adapter knows how to use. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name]));
}

function isPlain(config: InternalAxiosRequestConfig): boolean {
  const url = config.url ?? "";
  return (
    (config.data === undefined || config.data === null || typeof config.data === "string") &&
    (config.responseType === undefined || config.responseType === "json") &&
    config.params === undefined &&
    config.signal === undefined &&
    config.cancelToken === undefined &&
    config.auth === undefined &&
    // Absolute as axios reads it (a scheme and `//`, or `//` alone): axios joins those itself.
    !/^([a-z][a-z\d+\-.]*:)?\/\//i.test(url)
  );
}

/** The client's wire settings a request does not set itself. */
export interface WireDefaults {
  /** Attempt timeout, when the request gives none. */
  timeoutMs?: number;
}

/**
 * The adapter of one client: plain requests straight to `agent`, the rest to axios' own adapter.
 * `baseURL` is the client's (address and base path); a request's `url` is relative to it. The
 * client's base URL, agent and timeout, no redirects and clear timeout errors apply to both paths,
 * whether or not the request config repeats them.
 */
export function transportFor(baseURL: string, agent: http.Agent, wire: WireDefaults = {}): AxiosAdapter {
  const adapter = axios.getAdapter("http");
  const agentKey = baseURL.startsWith("https:") ? "httpsAgent" : "httpAgent";
  const general = (config: InternalAxiosRequestConfig) =>
    adapter({
      ...config,
      baseURL: config.baseURL ?? baseURL,
      [agentKey]: config[agentKey] ?? agent,
      timeout: config.timeout ?? wire.timeoutMs,
      maxRedirects: config.maxRedirects ?? 0,
      transitional: { ...config.transitional, clarifyTimeoutError: config.transitional?.clarifyTimeoutError ?? true },
    });
  const base = new URL(baseURL.endsWith("/") ? baseURL : `${baseURL}/`);
  const send = base.protocol === "https:" ? https.request : http.request;
  const basePath = base.pathname.replace(/\/$/, "");
  const userAgent = `axios/${axios.VERSION}`;
  return (config) => {
    if (!isPlain(config) || proxyConfigured()) return general(config);
    return new Promise<AxiosResponse>((resolve, reject) => {
      const url = config.url ?? "";
      const headers = AxiosHeaders.from(config.headers);
      const body = typeof config.data === "string" ? Buffer.from(config.data, "utf8") : undefined;
      if (body) headers.setContentLength(body.length, false);
      headers.set("User-Agent", userAgent, false);
      let done = false;
      // Built only when it is the outcome: an AxiosError captures a stack trace, which costs.
      const fail = (error: () => AxiosError) => {
        if (done) return;
        done = true;
        reject(error());
      };
      // As axios does: the path joined to the base, then normalised (and percent-encoded) as a URL.
      const target = new URL(`${basePath}/${url.replace(/^\/+/, "")}`, base.origin);
      const request = send(
        {
          protocol: base.protocol,
          hostname: base.hostname.startsWith("[") ? base.hostname.slice(1, -1) : base.hostname,
          port: base.port,
          path: `${target.pathname}${target.search}`,
          method: (config.method ?? "get").toUpperCase(),
          headers: headers.toJSON() as http.OutgoingHttpHeaders,
          agent,
        },
        (response) => {
          const answer: AxiosResponse = {
            data: undefined,
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? "",
            headers: new AxiosHeaders(response.headers as Record<string, string>),
            config,
            request,
          };
          const chunks: Buffer[] = [];
          const cutShort = () => new AxiosError("stream has been aborted", AxiosError.ERR_BAD_RESPONSE, config, request, answer);
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("aborted", () => fail(cutShort));
          response.on("error", (error) => fail(() => AxiosError.from(error, undefined, config, request, answer)));
          // A body that stops without an end or an error is cut short all the same.
          response.on("close", () => fail(cutShort));
          response.on("end", () => {
            if (done) return;
            done = true;
            answer.data = Buffer.concat(chunks).toString("utf8");
            const status = answer.status;
            if (!status || !config.validateStatus || config.validateStatus(status)) resolve(answer);
            else {
              const code = status >= 400 && status < 500 ? AxiosError.ERR_BAD_REQUEST : AxiosError.ERR_BAD_RESPONSE;
              reject(new AxiosError(`Request failed with status code ${status}`, code, config, request, answer));
            }
          });
        },
      );
      request.on("error", (error) => fail(() => AxiosError.from(error, undefined, config, request)));
      const timeout = config.timeout ?? wire.timeoutMs;
      if (timeout) {
        request.setTimeout(timeout, () => {
          const code = (config.transitional?.clarifyTimeoutError ?? true) ? AxiosError.ETIMEDOUT : AxiosError.ECONNABORTED;
          fail(() => new AxiosError(config.timeoutErrorMessage ?? `timeout of ${timeout}ms exceeded`, code, config, request));
          request.destroy();
        });
      }
      request.end(body);
    });
  };
}
