/**
 * Client of the mesh service: `/v1` paths, `X-Mesh-Token`, namespaces (rule 4 of the spec), the
 * `consistent` read mode on demand and blocking queries (`index` + `wait`, the index answered in the
 * `X-Mesh-Index` header). Errors the service decides on its servers arrive as 500 with a text message;
 * the ones retrying cannot change are recognised by their message and never retried.
 */
import { AxiosError } from "axios";
import { ServiceConfig } from "./config";
import { mesh, MeshAuthorizeAnswer, MeshAuthorizeRequest, MeshCaRoots, MeshLeafCertificate, MeshPartition } from "./contracts/mesh";
import { ApiError } from "./errors";
import { retryPolicyOf } from "./http";
import { CallOptions, Profile, ServiceClient } from "./service-client";
import { waitFor } from "./wait";

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

export interface MeshAnswer<T> {
  body: T;
  /** Value of `X-Mesh-Index`, when the service sent one. */
  index?: number;
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

/** What a request of the mesh service carries besides its path and body. */
export interface MeshCallOptions extends CallOptions {
  blocking?: BlockingQuery;
}

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
  shape(config, options) {
    if (!options.blocking) return {};
    const { index, wait } = options.blocking;
    if (!Number.isSafeInteger(index) || index < 0) throw new Error(`index must be a whole number >= 0, got ${index}`);
    const waitMs = wait === undefined ? DEFAULT_BLOCKING_WAIT_MS : parseWait(wait);
    return {
      query: { ...options.query, index: String(index), wait: wait === undefined ? undefined : waitParameter(wait) },
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

export class MeshClient extends ServiceClient<MeshCallOptions, { index?: number }> {
  constructor(config: ServiceConfig) {
    super(config, meshProfile);
  }

  /** The `consistent` mode of a read, when asked for. */
  private readQuery(options: MeshRequestOptions): Record<string, string | true | undefined> {
    return options.consistent ? { consistent: true } : {};
  }

  /** `ns` and `partition` of the agent endpoints. */
  private scopeQuery(options: MeshRequestOptions, withNamespace: boolean): Record<string, string | undefined> {
    return {
      ns: withNamespace ? options.namespace || undefined : undefined,
      partition: options.partition ?? this.config.partition,
    };
  }

  // ---- Partitions.

  /** Undefined when the partition does not exist. */
  async readPartition(name: string, options: Pick<MeshRequestOptions, "consistent"> = {}): Promise<MeshPartition | undefined> {
    return (await this.send(mesh.readPartition, { params: { name }, options: { query: this.readQuery(options) } }))?.body;
  }

  async listPartitions(options: Pick<MeshRequestOptions, "consistent"> = {}): Promise<MeshPartition[]> {
    return (await this.send(mesh.listPartitions, { options: { query: this.readQuery(options) } })).body;
  }

  async createPartition(name: string, description: string): Promise<MeshPartition> {
    return (await this.send(mesh.createPartition, { body: { Name: name, Description: description } })).body;
  }

  async updatePartition(name: string, description: string): Promise<MeshPartition> {
    return (await this.send(mesh.updatePartition, { params: { name }, body: { Name: name, Description: description } })).body;
  }

  async deletePartition(name: string): Promise<void> {
    await this.send(mesh.deletePartition, { params: { name } });
  }

  /**
   * Waits (consistent reads, the retry policy's backoff, at most 5 s apart) until the partition is
   * gone; throws `WaitTimeoutError` (its `lastState` the partition still there) after `timeoutMs`.
   */
  async waitForPartitionRemoval(name: string, timeoutMs: number): Promise<void> {
    await waitFor({
      probe: () => this.readPartition(name, { consistent: true }),
      done: (partition) => partition === undefined,
      timeoutMs,
      describe: `partition "${name}" to be removed`,
      show: (partition) => (partition?.DeletedAt ? `marked for deletion at ${partition.DeletedAt}` : "present, not marked for deletion"),
      policy: retryPolicyOf(this.config),
      maxIntervalMs: 5_000,
    });
  }

  // ---- Agent-local mesh endpoints.

  /** Whether `ClientCertURI` may connect to `Target`. The namespace goes as `ns` and in the body. */
  async authorize(request: MeshAuthorizeRequest, options: Pick<MeshRequestOptions, "namespace" | "partition"> = {}): Promise<MeshAuthorizeAnswer> {
    const body = options.namespace ? { ...request, Namespace: options.namespace } : request;
    return (await this.send(mesh.authorize, { body, options: { query: this.scopeQuery(options, true) } })).body;
  }

  caRoots(options: Omit<MeshRequestOptions, "namespace"> = {}): Promise<MeshAnswer<MeshCaRoots>> {
    return this.send(mesh.caRoots, { options: { query: { ...this.readQuery(options), ...this.scopeQuery(options, false) }, blocking: options.blocking } });
  }

  leafCertificate(service: string, options: MeshRequestOptions = {}): Promise<MeshAnswer<MeshLeafCertificate>> {
    return this.send(mesh.leafCertificate, {
      params: { service },
      options: { query: { ...this.readQuery(options), ...this.scopeQuery(options, true) }, blocking: options.blocking },
    });
  }
}
