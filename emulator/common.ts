/**
 * Shared core of the local emulator: a test double of the three services, never a substitute for them.
 * Each service runs its own fastify server on loopback with an in-memory state, a request log the tests
 * can read, and fault injection the tests can switch.
 */
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export interface RequestRecord {
  service: string;
  method: string;
  /** Path with its query string, as sent. */
  url: string;
  /** Path without the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  status: number;
  /** Set when the response was a fault injected by a test ("held": answered to no one, see `holdUntilAborted`). */
  fault?: "status" | "drop" | "held";
  /** When the request arrived (milliseconds since the epoch). */
  receivedAt: number;
}

export interface FaultSpec {
  /** How many matching requests the fault applies to. */
  times: number;
  /** Only requests whose method and path match (for example /POST \/v1\/sys\//). */
  match?: RegExp;
  /** Answer with this status and the service's error body. */
  status?: number;
  /** Headers sent with an injected status (for example `Retry-After`). */
  headers?: Record<string, string>;
  /** Destroy the connection without answering: the service does not act. */
  drop?: boolean;
  /** Handle the request for real, then drop the connection before the answer reaches the client. */
  dropAfterHandling?: boolean;
  /**
   * A slow service, scripted: the request is held until the client gives up on it (its timeout
   * aborts the connection); then the service does the work, whose answer reaches no one. Requests
   * arriving after the abort wait until that work is done, so whatever the machine's load, the
   * client's retry or follow-up sees the service after it acted.
   */
  holdUntilAborted?: boolean;
  /**
   * Applies to the first matching request of each distinct `METHOD path` only (`times` then counts
   * those): a client's retry of a faulted request is spared, a request it never sent before is not.
   */
  firstOfEach?: boolean;
}

/** Faults armed by tests; each applies to the next `times` matching requests. */
export class Faults {
  private readonly armed: FaultSpec[] = [];
  /** The `METHOD path`s each `firstOfEach` fault has met. */
  private readonly met = new WeakMap<FaultSpec, Set<string>>();
  /** Work of held requests whose client gave up, not yet done. */
  private readonly pending = new Set<Promise<void>>();
  private readonly heldListeners: (() => void)[] = [];

  /** How many requests have been held so far (`holdUntilAborted`). */
  heldCount = 0;

  /** Resolves once a request is being held (`holdUntilAborted`), for a test that aborts it itself. */
  held(): Promise<void> {
    return new Promise((resolve) => this.heldListeners.push(resolve));
  }

  /** @internal A request is being held. */
  noteHeld(): void {
    this.heldCount++;
    this.heldListeners.splice(0).forEach((resolve) => resolve());
  }

  /** @internal Marks the work of an aborted held request as under way; call the result when it is done. */
  beginHeldWork(): () => void {
    let done!: () => void;
    const work = new Promise<void>((resolve) => (done = resolve));
    this.pending.add(work);
    return () => {
      this.pending.delete(work);
      done();
    };
  }

  /** Resolves once no held request's work is under way (requests wait on this before they are handled). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all(this.pending);
  }

  inject(fault: FaultSpec): void {
    this.armed.push({ ...fault });
  }

  clear(): void {
    this.armed.length = 0;
  }

  /** Takes the first armed fault that matches `METHOD path`, counting it down. */
  take(method: string, path: string): FaultSpec | undefined {
    const key = `${method} ${path}`;
    const index = this.armed.findIndex((f) => f.times > 0 && (!f.match || f.match.test(key)) && !this.met.get(f)?.has(key));
    if (index < 0) return undefined;
    const fault = this.armed[index];
    if (fault.firstOfEach) this.met.set(fault, (this.met.get(fault) ?? new Set()).add(key));
    fault.times -= 1;
    if (fault.times <= 0) this.armed.splice(index, 1);
    return fault;
  }
}

export class RequestLog {
  readonly entries: RequestRecord[] = [];
  private readonly listeners: ((entry: RequestRecord) => void)[] = [];

  record(entry: RequestRecord): void {
    this.entries.push(entry);
    for (const listener of this.listeners) listener(entry);
  }

  /** Calls `listener` with each request recorded from now on (the command's `--requests` file). */
  onRecord(listener: (entry: RequestRecord) => void): void {
    this.listeners.push(listener);
  }

  clear(): void {
    this.entries.length = 0;
  }

  get count(): number {
    return this.entries.length;
  }

  /** `METHOD path` lines, the form most assertions want. */
  lines(): string[] {
    return this.entries.map((e) => `${e.method} ${e.url}`);
  }
}

export interface ServiceServer {
  name: string;
  app: FastifyInstance;
  url: string;
  port: number;
  log: RequestLog;
  faults: Faults;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Service name used in logs ("keep", "workspaces", "mesh"). */
  name: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The service's error body for an injected status. */
  errorBody(status: number, message: string): unknown;
  /** Content type of error bodies. */
  errorContentType?: string;
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number;
}

/** Header names never written to the request log. */
const REDACTED_HEADERS = new Set(["x-keep-token", "authorization", "x-mesh-token"]);

function redactHeaders(headers: FastifyRequest["headers"]): RequestRecord["headers"] {
  const out: RequestRecord["headers"] = {};
  for (const [k, v] of Object.entries(headers)) out[k] = REDACTED_HEADERS.has(k) ? "<redacted>" : v;
  return out;
}

/**
 * Builds a fastify server with the request log and fault injection wired in; `register` adds the
 * service's routes. The server listens before the promise resolves.
 */
export async function startServiceServer(
  options: ServiceOptions,
  register: (app: FastifyInstance) => void | Promise<void>,
): Promise<ServiceServer> {
  const log = new RequestLog();
  const faults = new Faults();
  const app = Fastify({ logger: false, bodyLimit: options.bodyLimit ?? 32 * 1024 * 1024, return503OnClosing: false });
  const faultOf = new WeakMap<FastifyRequest, FaultSpec>();
  const receivedAt = new WeakMap<FastifyRequest, number>();
  /** Ends the held work of a request, once its (unread) answer is made. */
  const heldWorkDone = new WeakMap<FastifyRequest, () => void>();
  const endHeldWork = (request: FastifyRequest) => {
    heldWorkDone.get(request)?.();
    heldWorkDone.delete(request);
  };

  const record = (request: FastifyRequest, status: number, fault?: RequestRecord["fault"]) => {
    const url = request.raw.url ?? request.url;
    log.record({
      receivedAt: receivedAt.get(request) ?? Date.now(),
      service: options.name,
      method: request.method,
      url,
      path: url.split("?")[0],
      headers: redactHeaders(request.headers),
      body: request.body,
      status,
      fault,
    });
  };

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    receivedAt.set(request, Date.now());
    // A held request whose client gave up is being worked on: the service acts before it answers
    // anything else. One turn of the event loop first, so an abort that arrived with this request is seen.
    await new Promise((resolve) => setImmediate(resolve));
    await faults.settled();
    const fault = faults.take(request.method, (request.raw.url ?? "").split("?")[0]);
    if (!fault) return;
    faultOf.set(request, fault);
    if (fault.drop) {
      record(request, 0, "drop");
      request.raw.socket.destroy();
      return reply.hijack();
    }
    if (fault.status) {
      record(request, fault.status, "status");
      return reply
        .code(fault.status)
        .headers(fault.headers ?? {})
        .type(options.errorContentType ?? "application/json")
        .send(options.errorBody(fault.status, `injected fault: status ${fault.status}`));
    }
  });

  // Held after the body is read (so the work has its inputs), before the handler acts.
  app.addHook("preHandler", async (request) => {
    if (!faultOf.get(request)?.holdUntilAborted) return;
    const socket = request.raw.socket;
    faults.noteHeld();
    // The client's abort shows as the end of its connection (or a reset), whichever comes first.
    if (!socket.destroyed && !socket.readableEnded) {
      await new Promise<void>((resolve) => {
        const gone = () => resolve();
        socket.once("end", gone);
        socket.once("close", gone);
        socket.once("error", gone);
      });
    }
    // Set before any later request is read: the abort's close event comes first.
    heldWorkDone.set(request, faults.beginHeldWork());
    record(request, 0, "held");
  });

  // A request is recorded before its answer is written: a client that reads the log as soon as it
  // has the answer (a shell step's `grep` of the --requests file) finds its request there.
  const recorded = new WeakSet<FastifyRequest>();
  app.addHook("onSend", async (request, reply, payload) => {
    const fault = faultOf.get(request);
    if (fault?.holdUntilAborted) endHeldWork(request);
    if (fault?.dropAfterHandling) {
      record(request, 0, "drop");
      request.raw.socket.destroy();
    } else if (!fault?.drop && !fault?.status && !fault?.holdUntilAborted && !recorded.has(request)) {
      // Faults were recorded when they happened.
      recorded.add(request);
      record(request, reply.statusCode);
    }
    return payload;
  });

  app.addHook("onResponse", async (request) => {
    endHeldWork(request);
  });

  await register(app);
  await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 0 });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error(`${options.name} emulator did not bind a TCP port`);
  const host = options.host ?? "127.0.0.1";
  return {
    name: options.name,
    app,
    url: `http://${host}:${address.port}`,
    port: address.port,
    log,
    faults,
    close: async () => {
      await app.close();
    },
  };
}
