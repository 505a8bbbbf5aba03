/** Error types shared by the clients and the resource machine. Messages never carry credentials. */

/** One error detail as a service reported it (JSON:API error objects carry title, detail and a pointer). */
export interface ApiErrorDetail {
  message: string;
  pointer?: string;
}

/** An HTTP answer with status >= 400, or a request that never got an answer (status 0). */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly service: string,
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly details: ApiErrorDetail[],
    /** Retries made before giving up. */
    readonly retries = 0,
    /** Network error code (ECONNRESET, ECONNREFUSED, ...) when status is 0. */
    readonly code?: string,
  ) {
    super(describeApiError(service, method, path, status, details, retries, code));
  }

  get messages(): string[] {
    return this.details.map((d) => d.message);
  }
}

function describeApiError(
  service: string,
  method: string,
  path: string,
  status: number,
  details: ApiErrorDetail[],
  retries: number,
  code?: string,
): string {
  const what = status === 0 ? `failed without an answer (${code ?? "network error"})` : `returned ${status}`;
  const said = details.length
    ? `: ${details.map((d) => (d.pointer ? `${d.message} (at ${d.pointer})` : d.message)).join("; ")}`
    : "";
  const tried = retries > 0 ? ` after ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
  return `${service}: ${method} ${path} ${what}${tried}${said}`;
}

/** A successful answer whose body does not have the shape the API promises. */
export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
  constructor(
    readonly service: string,
    readonly method: string,
    readonly path: string,
    readonly issues: string[],
  ) {
    super(`${service}: ${method} ${path} answered with an unexpected body: ${issues.join("; ")}`);
  }
}

/** Bad configuration (a missing address, an unreadable CA file). */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Thrown from create when the object exists on the service but a later step failed. The dynamic
 * provider host turns `id`, `properties` and `reasons` into a created-but-failed resource, so the
 * next update repairs the object instead of creating a duplicate.
 */
export class PartialCreateError extends Error {
  override readonly name = "PartialCreateError";
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
  }
}
