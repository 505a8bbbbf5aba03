/**
 * Client of the mesh service: `/v1` paths, `X-Mesh-Token`, namespaces (rule 4 of the spec), the
 * `consistent` read mode on demand and blocking queries (`index` + `wait`, the index answered in the
 * `X-Mesh-Index` header). Errors the service decides on its servers arrive as 500 with a text message;
 * the ones retrying cannot change are recognised by their message and never retried.
 */
import { AxiosError } from "axios";
import { ServiceConfig } from "./config";
import type { AgentScope } from "./contracts/mesh";
import { ApiError } from "./errors";
import { CallOptions, Profile, Query, ServiceClient } from "./service-client";

/** Response header carrying the index of a read, to pass back as `index` of a blocking query. */
export const MESH_INDEX_HEADER = "X-Mesh-Index";

/** The service caps the wait of a blocking query at 10 minutes. */
export const MAX_BLOCKING_WAIT_MS = 10 * 60_000;
/** Wait the service applies when a blocking query names none. */
export const DEFAULT_BLOCKING_WAIT_MS = 5 * 60_000;

export interface BlockingQuery {
  /** Index of the previous answer (its `X-Mesh-Index`): the answer waits until the data changes past it. */
  index: number;
  /** Longest wait: a duration such as "30s", "5m", "1m30s", or a number of seconds. At most 10 minutes; default 5 minutes. */
  wait?: string | number;
}

export interface MeshRequestOptions {
  /** Namespace of this request, sent as the `ns` query parameter (it wins over the configured `X-Mesh-Namespace`). */
  namespace?: string;
  /** Admin partition of this request (agent endpoints), sent as the `partition` query parameter; overrides `mesh:partition`. */
  partition?: string;
  /** Read with the `consistent` mode (the leader confirms it is still the leader). */
  consistent?: boolean;
  blocking?: BlockingQuery;
}

/** Refusals the service answers as 500 with a message; retrying cannot change them. */
export type MeshRefusal = "default-partition" | "being-deleted" | "already-exists";

const REFUSALS: readonly { kind: MeshRefusal; pattern: RegExp }[] = [
  { kind: "default-partition", pattern: /cannot delete the default partition/i },
  { kind: "being-deleted", pattern: /is being deleted/i },
  { kind: "already-exists", pattern: /already exists/i },
];

function refusalOfText(status: number | undefined, text: string): MeshRefusal | undefined {
  if (status !== 500) return undefined;
  return REFUSALS.find((r) => r.pattern.test(text))?.kind;
}

/** Which permanent refusal an error is, if any. */
export function meshRefusalOf(error: unknown): MeshRefusal | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return refusalOfText(error.status, error.messages.join("\n"));
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a wait given as a duration ("30s", "1m30s", "500ms") or a number of seconds. */
export function parseWait(wait: string | number): number {
  const fail = (): never => {
    throw new Error(`wait must be a duration such as "30s" or "5m", or a number of seconds, got ${JSON.stringify(wait)}`);
  };
  let ms: number;
  if (typeof wait === "number") {
    if (!Number.isFinite(wait) || wait < 0) fail();
    ms = wait * 1000;
  } else if (/^\d+(\.\d+)?$/.test(wait)) {
    ms = Number(wait) * 1000;
  } else {
    const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
    ms = 0;
    let at = 0;
    if (!wait) fail();
    while (at < wait.length) {
      part.lastIndex = at;
      const match = part.exec(wait);
      if (!match) fail();
      ms += Number(match![1]) * UNIT_MS[match![2]];
      at = part.lastIndex;
    }
  }
  if (ms > MAX_BLOCKING_WAIT_MS) {
    throw new Error(`wait ${JSON.stringify(wait)} is longer than the 10 minutes the service allows for a blocking query`);
  }
  return ms;
}

/** The wait as the service reads it: a duration with a unit (a bare number means seconds). */
function waitParameter(wait: string | number): string {
  return typeof wait === "number" || /^\d+(\.\d+)?$/.test(wait) ? `${Number(wait)}s` : wait;
}

/** Refusals the service decided are final, whatever their status. */
function isRefusal(error: AxiosError): boolean {
  const body = error.response?.data;
  return refusalOfText(error.response?.status, typeof body === "string" ? body : "") !== undefined;
}

/**
 * What a request of the mesh service carries besides its path and body: the read mode, the scope of
 * an agent endpoint (which its row declares), a blocking query.
 */
export interface MeshCallOptions extends CallOptions, MeshRequestOptions {}

const meshProfile: Profile<MeshCallOptions, { index?: number }> = {
  basePath: "/v1",
  headers(config) {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (config.token) headers["X-Mesh-Token"] = config.token;
    // Rule 4: this header ranks below the `ns` query parameter that per-call namespaces use.
    if (config.namespace) headers["X-Mesh-Namespace"] = config.namespace;
    return headers;
  },
  isFinal: isRefusal,
  shape(config, options, row) {
    const scope = (row as Partial<AgentScope> | undefined)?.agentScope;
    const query: Query = {
      ...options.query,
      ...(options.consistent ? { consistent: true } : {}),
      ...(scope ? { ns: scope.namespace ? options.namespace || undefined : undefined, partition: options.partition ?? config.partition } : {}),
    };
    if (!options.blocking) return { query };
    const { index, wait } = options.blocking;
    if (!Number.isSafeInteger(index) || index < 0) throw new Error(`index must be a whole number >= 0, got ${index}`);
    const waitMs = wait === undefined ? DEFAULT_BLOCKING_WAIT_MS : parseWait(wait);
    return {
      query: { ...query, index: String(index), wait: wait === undefined ? undefined : waitParameter(wait) },
      // The service holds the answer for the wait plus up to wait/16 of jitter; the attempt timeout covers both.
      timeoutMs: config.timeoutMs + waitMs + waitMs / 16,
    };
  },
  answer(body, headers) {
    const header = headers[MESH_INDEX_HEADER.toLowerCase()];
    const index = header === undefined || header === "" ? undefined : Number(header);
    return { body, extra: { index: Number.isFinite(index) ? index : undefined } };
  },
};

/** The mesh service's client: every request is a row of `contracts/mesh.ts`, sent with `send`. */
export class MeshClient extends ServiceClient<MeshCallOptions, { index?: number }> {
  constructor(config: ServiceConfig, notify?: (message: string) => void) {
    super(config, meshProfile, notify);
  }
}
