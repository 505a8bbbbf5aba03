/**
 * Client of the secrets service: the client core (service-client.ts) with its profile: `/v1` paths,
 * `X-Keep-Token`, namespaces, answers bare or inside the `data` envelope with the lease and
 * `wrap_info` beside it, lists as `GET ?list=true`.
 */
import { ServiceConfig } from "./config";
import { CallOptions, Profile, ServiceClient } from "./service-client";

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

export interface KeepRequestOptions extends CallOptions {
  /** Namespace for this request; overrides the configured one. */
  namespace?: string;
  query?: Record<string, string>;
  /** Content type of the body when not JSON's default (`application/merge-patch+json` for PATCH). */
  contentType?: string;
}

const keepProfile: Profile<KeepRequestOptions, { lease: Lease; wrapInfo: unknown }> = {
  basePath: "/v1",
  headers(config) {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (config.token) headers["X-Keep-Token"] = config.token;
    if (config.requestHeader) headers["X-Keep-Request"] = "true";
    return headers;
  },
  // As the service's own clients send a query: `:`, `$` and `,` as they are, a space as `+`.
  encode: (text) => encodeURIComponent(text).replace(/%3A/gi, ":").replace(/%24/g, "$").replace(/%2C/gi, ",").replace(/%20/g, "+"),
  shape(config, options) {
    const namespace = options.namespace ?? config.namespace;
    const headers: Record<string, string> = namespace ? { "X-Keep-Namespace": namespace } : {};
    if (options.contentType) headers["Content-Type"] = options.contentType;
    return { headers };
  },
  // A response-wrapped answer carries its token in the envelope's `wrap_info`, beside an empty `data`.
  answer: (data) => ({ body: answerFields(data) ?? data, extra: { lease: leaseOf(data), wrapInfo: isObject(data) ? data.wrap_info ?? undefined : undefined } }),
};

export class KeepClient extends ServiceClient<KeepRequestOptions, { lease: Lease; wrapInfo: unknown }> {
  constructor(config: ServiceConfig, notify?: (message: string) => void) {
    super(config, keepProfile, notify);
  }
}
