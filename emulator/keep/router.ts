/**
 * Request pipeline of the secrets service emulator. Route modules describe their routes to a
 * KeepRouter: system routes (`sys/...`) directly, an engine's routes relative to wherever it is
 * mounted through `router.engine(type)`. The router does what every path shares: body parsing,
 * the request-header check, namespace resolution, dispatch to the mount with the longest matching
 * path, authentication, help, the trailing-period rule, list dispatch, 405s and `{ errors }` bodies.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RequestBody } from "./fields";
import { buildHelp } from "./help";
import {
  JSON_CONTENT_TYPE,
  KeepError,
  KeepReply,
  badRequest,
  errorBody,
  noContent,
  ok,
  permissionDenied,
  unsupportedOperation,
  unsupportedPath,
} from "./replies";
import { EngineDescriptor, KeepMount, KeepNamespace, KeepState, SYSTEM_MOUNTS, normalizeNamespacePath } from "./state";

/** Node's HTTP parser refuses the `LIST` verb, so `list` is `GET ?list=true` (convention 1). */
export type KeepOperationKind = "read" | "list" | "write" | "delete" | "patch";

export interface KeepRequest {
  state: KeepState;
  /** The namespace the request resolved to (header value and path prefix combined). */
  namespace: KeepNamespace;
  /** The mount the request was dispatched to; the namespace's `sys/` mount for system routes. */
  mount: KeepMount;
  /** Path parameters, URL-decoded. */
  params: Record<string, string>;
  /** Query parameters; repeated ones keep their first value. */
  query: Record<string, string>;
  /** JSON body; `{}` when empty. */
  body: RequestBody;
  method: string;
  /** Route path relative to the namespace, without `/v1/` and without a trailing slash. */
  path: string;
  /** Route path relative to the mount (equal to `path` for system routes). */
  mountPath: string;
  /** The caller's token, absent on unauthenticated routes called without one. */
  token?: string;
  raw: FastifyRequest;
}

export type KeepHandler = (request: KeepRequest) => KeepReply | void | Promise<KeepReply | void>;

export interface KeepOperation {
  /** One line for the help text and the OpenAPI operation. */
  summary: string;
  handler: KeepHandler;
  /** Success status shown in help; defaults to 200 for read and list, 204 otherwise. */
  status?: number;
}

export interface KeepRoute {
  /**
   * Path relative to `/v1/` and to the namespace: literal segments, `:name` for one segment,
   * `:name*` (last only) for one or more segments.
   */
  path: string;
  /** What the path is, for the help text. */
  summary: string;
  /** Reachable without a token (the replication status endpoint is one). */
  unauthenticated?: boolean;
  /** Descriptions of path parameters, for the help document. */
  params?: Record<string, string>;
  operations: Partial<Record<KeepOperationKind, KeepOperation>>;
  /** Engine routes only: whether the route exists on this mount (the key-value engine's two versions). */
  when?: (mount: KeepMount) => boolean;
}

export type PathSegment =
  | { kind: "literal"; value: string }
  | { kind: "param"; name: string }
  | { kind: "rest"; name: string };

export interface CompiledRoute {
  route: KeepRoute;
  segments: PathSegment[];
  /** For an engine route shown under a mount's path in help: the route as the engine registered it. */
  source?: CompiledRoute;
  /** ... and the mount it is shown under. */
  mount?: KeepMount;
}

export interface RouteMatch {
  compiled: CompiledRoute;
  params: Record<string, string>;
}

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;

/** Go's strconv.ParseBool, which the service applies to `list`. */
const TRUE_VALUES = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE_VALUES = new Set(["0", "f", "F", "false", "FALSE", "False"]);

function compilePath(path: string): PathSegment[] {
  const parts = path.split("/").filter((part) => part !== "");
  return parts.map((part, index) => {
    if (part.startsWith(":") && part.endsWith("*")) {
      if (index !== parts.length - 1) throw new Error(`keep route ${path}: a rest parameter must be last`);
      return { kind: "rest", name: part.slice(1, -1) };
    }
    if (part.startsWith(":")) return { kind: "param", name: part.slice(1) };
    return { kind: "literal", value: part };
  });
}

/** Literal segments outrank parameters, which outrank rest parameters. */
function specificity(segments: PathSegment[]): number[] {
  return segments.map((s) => (s.kind === "literal" ? 2 : s.kind === "param" ? 1 : 0));
}

function compareSpecificity(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? -1) - (b[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

function matchSegments(segments: PathSegment[], path: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.kind === "rest") {
      const rest = path.slice(i);
      if (rest.length === 0 || rest.some((part) => part === "")) return undefined;
      params[segment.name] = rest.join("/");
      return params;
    }
    const part = path[i];
    if (part === undefined || part === "") return undefined;
    if (segment.kind === "literal" && segment.value !== part) return undefined;
    if (segment.kind === "param") params[segment.name] = part;
  }
  return segments.length === path.length ? params : undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `X-Keep-Token`, else `Authorization: Bearer`. */
export function tokenOf(request: FastifyRequest): string | undefined {
  const direct = firstHeader(request.headers["x-keep-token"]);
  if (direct) return direct;
  const authorization = firstHeader(request.headers.authorization);
  const match = authorization?.match(/^Bearer\s+(.+)$/i);
  return match ? match[1].trim() : undefined;
}

function normalizeQuery(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string") out[key] = first;
  }
  return out;
}

function operationKindOf(method: string, query: Record<string, string>): KeepOperationKind | undefined {
  switch (method) {
    case "GET": {
      const list = query.list;
      if (list === undefined || list === "") return "read";
      if (TRUE_VALUES.has(list)) return "list";
      if (FALSE_VALUES.has(list)) return "read";
      throw badRequest(`invalid value for the 'list' query parameter: "${list}"`);
    }
    case "POST":
    case "PUT":
      return "write";
    case "DELETE":
      return "delete";
    case "PATCH":
      return "patch";
    default:
      return undefined;
  }
}

function parseJsonBody(text: string): RequestBody {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw Object.assign(new Error(`failed to parse JSON input: ${(error as Error).message}`), { statusCode: 400 });
  }
  // JSON null decodes to an empty map in the service.
  if (parsed === null) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw Object.assign(new Error("failed to parse JSON input: the body must be a JSON object"), { statusCode: 400 });
  }
  return parsed as RequestBody;
}

function sendReply(reply: FastifyReply, result: KeepReply): FastifyReply {
  const status = result.status ?? (result.body === undefined ? 204 : 200);
  reply.code(status);
  if (result.headers) reply.headers(result.headers);
  if (status === 204 || result.body === undefined) return reply.send();
  return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify(result.body));
}

function routeShape(segments: PathSegment[]): string {
  return segments.map((s) => (s.kind === "literal" ? s.value : s.kind === "param" ? ":" : "*")).join("/");
}

/** Describes a kind of stored object that a collection route serves, for out-of-band access. */
export interface CollectionInfo {
  kind: string;
  normalizeName(name: string): string;
  /** The fields a read answers for a stored object. */
  view(stored: unknown, name: string): unknown;
  /** Objects a new mount starts with. */
  seed?: Record<string, unknown>;
}

export interface EngineOptions {
  /** What the engine is, for help. */
  summary?: string;
  /** Checks and completes the options of a new mount; throws a 400 KeepError when invalid. */
  normalizeOptions?: (options: Record<string, string>) => Record<string, string>;
}

/**
 * The routes of one engine type, relative to its mount path. The `system` engine is the service's
 * own backend: its routes carry their full path (`sys/policies/acl`) and it is mounted at `sys/`.
 */
export class KeepEngine implements EngineDescriptor {
  private readonly compiled: CompiledRoute[] = [];
  readonly collections = new Map<string, CollectionInfo>();
  summary: string;
  private readonly optionsNormalizer?: (options: Record<string, string>) => Record<string, string>;

  constructor(
    readonly type: string,
    options: EngineOptions = {},
  ) {
    this.summary = options.summary ?? `The ${type} engine.`;
    this.optionsNormalizer = options.normalizeOptions;
  }

  /** Registers one route; a route module calls this once per path. */
  add(route: KeepRoute): CompiledRoute {
    const segments = compilePath(route.path);
    const shape = routeShape(segments);
    // Two routes of one shape are a mistake unless they exist on different mounts (`when`).
    const clash = this.compiled.find((c) => routeShape(c.segments) === shape && !c.route.when && !route.when);
    if (clash) throw new Error(`keep route ${route.path} duplicates ${clash.route.path}`);
    const compiled = { route, segments };
    this.compiled.push(compiled);
    return compiled;
  }

  get routes(): readonly CompiledRoute[] {
    return this.compiled;
  }

  /** Routes present on `mount` (all of them when no mount is given). */
  routesOn(mount?: KeepMount): CompiledRoute[] {
    return this.compiled.filter((c) => !mount || !c.route.when || c.route.when(mount));
  }

  match(path: string[], mount?: KeepMount): RouteMatch | undefined {
    let best: (RouteMatch & { rank: number[] }) | undefined;
    for (const compiled of this.routesOn(mount)) {
      const params = matchSegments(compiled.segments, path);
      if (!params) continue;
      const rank = specificity(compiled.segments);
      if (!best || compareSpecificity(rank, best.rank) > 0) best = { compiled, params, rank };
    }
    return best && { compiled: best.compiled, params: best.params };
  }

  seedOf(kind: string): Record<string, unknown> | undefined {
    return this.collections.get(kind)?.seed;
  }

  normalizeOptions(options: Record<string, string>): Record<string, string> {
    return this.optionsNormalizer ? this.optionsNormalizer(options) : options;
  }

  normalizeName(kind: string, name: string): string {
    const collection = this.collections.get(kind);
    return collection ? collection.normalizeName(name) : name;
  }
}

/**
 * Runs around an operation: may refuse it (throw) or act after it (`next` runs the operation and
 * the hooks inside this one). Replication refuses writes on a secondary and follows a primary's.
 */
export type OperationHook = (request: KeepRequest, kind: KeepOperationKind, next: () => Promise<KeepReply | void>) => Promise<KeepReply | void>;

export class KeepRouter {
  private readonly engines = new Map<string, KeepEngine>();
  /** Hooks around every operation, outermost first. */
  readonly operationHooks: OperationHook[] = [];
  /** The service's own backend, mounted at `sys/` in every namespace. */
  readonly system: KeepEngine;

  constructor(readonly state: KeepState) {
    for (const { type, description } of SYSTEM_MOUNTS) this.engine(type, { summary: description });
    this.system = this.engines.get("system")!;
  }

  /** Whether an engine of `type` is registered (a module registered twice keeps its first routes). */
  hasEngine(type: string): boolean {
    return this.engines.has(type);
  }

  /** Registers one system route (its path starts at the namespace: `sys/...`). */
  add(route: KeepRoute): void {
    const compiled = this.system.add(route);
    const first = compiled.segments[0];
    if (first?.kind === "literal") this.state.routeRoots.add(first.value);
  }

  /**
   * The engine of `type`, created on first call: a route module adds its routes to it relative to
   * the mount (`roles/:name`), and `keep.mount(path, type)` makes them reachable under `path`.
   */
  engine(type: string, options: EngineOptions = {}): KeepEngine {
    let engine = this.engines.get(type);
    if (!engine) {
      engine = new KeepEngine(type, options);
      this.engines.set(type, engine);
      this.state.engines.set(type, engine);
    } else if (options.summary || options.normalizeOptions) {
      throw new Error(`keep engine ${type} is already defined`);
    }
    return engine;
  }

  findEngine(type: string): KeepEngine | undefined {
    return this.engines.get(type);
  }

  /** System routes, as registered. */
  get routes(): readonly CompiledRoute[] {
    return this.system.routes;
  }

  /** Matches a path against the system routes. */
  match(path: string[]): RouteMatch | undefined {
    return this.system.match(path);
  }

  /** The mount a namespace-relative path goes to, the route there, and the path relative to the mount. */
  dispatch(namespace: KeepNamespace, path: string[]): { mount: KeepMount; mountPath: string[]; matched?: RouteMatch } {
    const resolved = this.state.resolveMount(namespace, path);
    if (resolved && resolved.mount.type !== "system") {
      const engine = this.engines.get(resolved.mount.type);
      return { mount: resolved.mount, mountPath: resolved.rest, matched: engine?.match(resolved.rest, resolved.mount) };
    }
    return { mount: this.state.systemMount(namespace), mountPath: path, matched: this.system.match(path) };
  }

  /** Every route reachable in `namespace`, engine routes prefixed with their mount's path (for help). */
  routesIn(namespace: KeepNamespace): CompiledRoute[] {
    const all: CompiledRoute[] = [...this.system.routes];
    for (const mount of this.state.mountsOf(namespace)) {
      const engine = this.engines.get(mount.type);
      if (!engine || engine === this.system) continue;
      const prefix: PathSegment[] = mount.segments.map((value) => ({ kind: "literal", value }));
      for (const compiled of engine.routesOn(mount)) {
        const path = [mount.path, compiled.route.path].filter((p) => p !== "").join("/");
        all.push({ route: { ...compiled.route, path }, segments: [...prefix, ...compiled.segments], source: compiled, mount });
      }
    }
    return all;
  }

  /** Wires the pipeline into the service's fastify server; call after every route is added. */
  install(app: FastifyInstance): void {
    // The service does not require a Content-Type: every body is read as JSON.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });

    app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
      if (error instanceof KeepError) return sendReply(reply, { status: error.status, body: errorBody(error.errors) });
      const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
      const message = status >= 500 ? `internal error: ${error.message}` : error.message;
      return sendReply(reply, { status, body: errorBody([message]) });
    });

    // Paths outside /v1/ have no handler at all in the service.
    app.setNotFoundHandler((request, reply) => {
      sendReply(reply, { status: 404, body: errorBody([`no handler for route "${request.url.split("?")[0]}"`]) });
    });

    // A proxy with require_request_header answers 412 before forwarding anything, so this runs first.
    app.addHook("onRequest", async (request, reply) => {
      reply.header("cache-control", "no-store");
      if (!this.state.requireRequestHeader) return;
      if (request.headers["x-keep-request"] !== "true") {
        return sendReply(reply, { status: 412, body: errorBody(["missing 'X-Keep-Request' header"]) });
      }
    });

    // fastify adds `; charset=utf-8` to the JSON it serialises itself (injected faults, its own
    // errors); the service sends the bare type, which some clients require before reading `errors`.
    app.addHook("onSend", async (_request, reply, payload) => {
      const type = reply.getHeader("content-type");
      if (typeof type === "string" && /^application\/json\s*;/i.test(type)) reply.header("content-type", JSON_CONTENT_TYPE);
      return payload;
    });

    app.route({
      method: [...HTTP_METHODS],
      url: "/v1/*",
      exposeHeadRoute: false,
      handler: async (request, reply) => sendReply(reply, await this.handle(request)),
    });
  }

  private async handle(request: FastifyRequest): Promise<KeepReply> {
    const query = normalizeQuery(request.query);
    const requestPath = request.url.split("?")[0].slice("/v1/".length);
    // Convention 7: the namespace header is prepended to the path, then the longest existing
    // namespace prefix is the namespace and the remainder is routed.
    const headerNamespace = normalizeNamespacePath(firstHeader(request.headers["x-keep-namespace"]));
    const fullPath = [
      ...(headerNamespace === "" ? [] : headerNamespace.split("/")),
      ...requestPath.split("/").map(decodeSegment),
    ];
    const { namespace, rest } = this.state.resolveNamespace(fullPath);
    if (rest.length > 0 && rest[rest.length - 1] === "") rest.pop();

    const wantsHelp = query.help !== undefined && query.help !== "";
    const { mount, mountPath, matched } = this.dispatch(namespace, rest);
    const token = tokenOf(request);
    const needsToken = wantsHelp || !matched?.compiled.route.unauthenticated;
    if (needsToken && !this.state.isValidToken(token)) throw permissionDenied();

    if (wantsHelp) {
      const routes = this.routesIn(namespace);
      const exact = matched && routes.find((c) => c === matched.compiled || (c.source === matched.compiled && c.mount === mount));
      const help = buildHelp(routes, rest, exact, namespace);
      if (!help) throw unsupportedPath();
      return ok(help);
    }

    if (!matched) {
      const fullRoute = `${namespace.displayPath}${rest.join("/")}`;
      // Outside every mount (the system mount took the path and has no such route): say where engines are listed.
      if (mount.type === "system" && rest[0] !== "sys") {
        throw new KeepError(404, [
          `no handler for route "${fullRoute}": no secrets engine is mounted at "${namespace.displayPath}${rest[0]}/"; GET sys/mounts lists the mounts, POST sys/mounts/${rest[0]} mounts one`,
        ]);
      }
      throw new KeepError(404, [`no handler for route "${fullRoute}". route entry not found.`]);
    }
    // Convention 4.
    if (Object.values(matched.params).some((value) => value.endsWith("."))) throw unsupportedPath();

    const kind = operationKindOf(request.method, query);
    const operation = kind && matched.compiled.route.operations[kind];
    if (!operation) throw unsupportedOperation();

    const keepRequest: KeepRequest = {
      state: this.state,
      namespace,
      mount,
      params: matched.params,
      query,
      body: (request.body as RequestBody | undefined) ?? {},
      method: request.method,
      path: rest.join("/"),
      mountPath: mountPath.join("/"),
      token: this.state.isValidToken(token) ? token : undefined,
      raw: request,
    };
    const run = this.operationHooks.reduceRight<() => Promise<KeepReply | void>>(
      (next, hook) => () => hook(keepRequest, kind, next),
      async () => operation.handler(keepRequest),
    );
    const result = await run();
    return result ?? noContent();
  }
}
