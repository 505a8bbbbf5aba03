/**
 * Emulator of the mesh service (a test double, not the real service): administrative partitions with
 * background deletion, ACL tokens, a real certificate authority issuing SPIFFE leaf certificates,
 * intention-based authorisation and blocking queries, all under /v1 and answering errors as plain text.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { startServiceServer, ServiceServer } from "../common";
import { AclStore, MeshToken, TokenRules, requireOperator, requirePartitionRead, requireService } from "./acl";
import { BLOCKING_INDEX_HEADER, ChangeNotifier, parseBlockingParams } from "./blocking-query";
import { CertificateAuthority, ROOTS_TOPIC, leafTopic } from "./certificate-authority";
import { MeshHttpError, badRequest, notFound } from "./errors";
import { Intention, IntentionInput, IntentionStore } from "./intentions";
import { Partition, PartitionStore, assertValidPartitionName } from "./partitions";
import { RaftIndex } from "./raft-index";

export type { TokenRules, AccessLevel } from "./acl";
export type { Partition } from "./partitions";
export type { Intention, IntentionInput, AuthorizeDecision } from "./intentions";
export type { CaRoot, CaRootsResponse, LeafCertificate } from "./certificate-authority";
export { parseDuration } from "./blocking-query";

export interface MeshEmulatorOptions {
  /** Loopback address to bind (default 127.0.0.1). */
  host?: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** Secret of the management token; random when absent. */
  rootToken?: string;
  /** Delay of the background deletion that removes a partition marked for deletion (default 100 ms). */
  deletionDelayMs?: number;
  /** Lifetime of leaf certificates (default 72 hours). */
  leafTtlMs?: number;
  /** SPIFFE trust domain of the certificate authority (default `<random uuid>.mesh`). */
  trustDomain?: string;
}

export interface MeshEmulator extends ServiceServer {
  /** Secret of the management token, which holds every permission. */
  rootToken: string;
  /** Response header carrying the index of blocking queries: "X-Mesh-Index". */
  blockingIndexHeader: string;
  trustDomain: string;
  /** Creates a token from a few rules and returns its secret. */
  createToken(rules: TokenRules): string;
  /** Accessor ID of a token secret, as it appears in permission-denied messages. */
  accessorOf(secret: string): string | undefined;
  /** Delay of the background deletion for partitions deleted from now on. */
  setDeletionDelay(ms: number): void;
  /** Adds a new active root; the old root stays listed, inactive; the roots index advances. */
  rotateRoot(): Promise<void>;
  addIntention(intention: IntentionInput): Intention;
  clearIntentions(): void;
  /** Decision when no intention matches (default: deny). */
  setDefaultAllow(allow: boolean): void;
  getPartition(name: string): Partition | undefined;
  /** Every partition, deleted ones still being removed included, for out-of-band checks. */
  listPartitions(): Partition[];
  /** Removes a partition out of band, skipping the deletion state; true when it existed. */
  deletePartitionNow(name: string): boolean;
  /** Marks a partition for deletion without scheduling its removal, so it stays "being deleted". */
  markPartitionDeleted(name: string): Partition | undefined;
  /** Current value of the cluster-wide modify index. */
  currentIndex(): number;
  /** Number of blocking queries parked right now; lets a test know its query is waiting before it acts. */
  blockingQueriesWaiting(): number;
}

const TEXT = "text/plain; charset=utf-8";

export async function startMeshEmulator(options: MeshEmulatorOptions = {}): Promise<MeshEmulator> {
  const index = new RaftIndex();
  const notifier = new ChangeNotifier();
  const acl = new AclStore(options.rootToken ?? randomUUID());
  const partitions = new PartitionStore(index, options.deletionDelayMs ?? 100);
  const intentions = new IntentionStore();
  const ca = await CertificateAuthority.create({
    trustDomain: options.trustDomain ?? `${randomUUID()}.mesh`,
    index,
    leafTtlMs: options.leafTtlMs ?? 72 * 3_600_000,
    onChange: (topic) => notifier.notify(topic),
  });

  const server = await startServiceServer(
    { name: "mesh", host: options.host, port: options.port, errorBody: (_status, message) => message, errorContentType: TEXT },
    (app) => registerRoutes(app, { acl, partitions, intentions, ca, notifier, index }),
  );

  return {
    ...server,
    rootToken: acl.rootToken,
    blockingIndexHeader: BLOCKING_INDEX_HEADER,
    trustDomain: ca.trustDomain,
    createToken: (rules) => acl.createToken(rules),
    accessorOf: (secret) => acl.accessorOf(secret),
    setDeletionDelay: (ms) => partitions.setDeletionDelay(ms),
    rotateRoot: () => ca.rotate(),
    addIntention: (intention) => intentions.add(intention),
    clearIntentions: () => intentions.clear(),
    setDefaultAllow: (allow) => intentions.setDefaultAllow(allow),
    getPartition: (name) => partitions.get(name),
    listPartitions: () => partitions.list(),
    deletePartitionNow: (name) => partitions.removeNow(name),
    markPartitionDeleted: (name) => partitions.markDeleted(name, false),
    currentIndex: () => index.current(),
    blockingQueriesWaiting: () => notifier.waiting,
    close: async () => {
      notifier.releaseAll();
      partitions.dispose();
      await server.close();
    },
  };
}

interface MeshState {
  acl: AclStore;
  partitions: PartitionStore;
  intentions: IntentionStore;
  ca: CertificateAuthority;
  notifier: ChangeNotifier;
  index: RaftIndex;
}

type Query = Record<string, string | undefined>;

function registerRoutes(app: FastifyInstance, state: MeshState): void {
  const { acl, partitions, intentions, ca, notifier, index } = state;

  // The real service decodes any body as JSON whatever its content type, and accepts none at all.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(badRequest(`Request decode failed: ${(error as Error).message}`), undefined);
    }
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    const status = error instanceof MeshHttpError ? error.statusCode : (error.statusCode ?? 500);
    return reply.code(status).type(TEXT).send(error.message);
  });
  // Text of the real service's router for an unknown path.
  app.setNotFoundHandler((_request, reply) => reply.code(404).type(TEXT).send("404 page not found"));
  app.addHook("preClose", async () => notifier.releaseAll());

  /** Query metadata the real service sends with every read. */
  const queryMeta = (reply: FastifyReply, at: number) =>
    reply.header(BLOCKING_INDEX_HEADER, String(at)).header("X-Mesh-KnownLeader", "true").header("X-Mesh-LastContact", "0");

  // ---- Partitions. `?consistent`, `?stale` and `?default` are accepted: the emulator has one copy of its state.

  app.put("/v1/partition", async (request, reply) => {
    requireOperator(acl.resolve(request), "write");
    const body = objectBody(request.body);
    if (body.Name === undefined || body.Name === "") throw badRequest("Partition Name is required");
    assertValidPartitionName(body.Name);
    return reply.send(partitions.create(body.Name, descriptionOf(body)));
  });

  app.get("/v1/partition/:name", async (request, reply) => {
    const { name } = request.params as { name: string };
    requirePartitionRead(acl.resolve(request), name);
    const found = partitions.get(name);
    queryMeta(reply, index.current());
    if (!found) throw notFound(`Partition "${name}" not found`);
    return reply.send(found);
  });

  app.put("/v1/partition/:name", async (request, reply) => {
    const { name } = request.params as { name: string };
    requireOperator(acl.resolve(request), "write");
    assertValidPartitionName(name);
    const body = objectBody(request.body);
    if (body.Name !== undefined && body.Name !== name) {
      throw badRequest(`Partition name in the payload (${JSON.stringify(body.Name)}) does not match the name in the URL ("${name}")`);
    }
    return reply.send(partitions.update(name, descriptionOf(body)));
  });

  app.delete("/v1/partition/:name", async (request, reply) => {
    const { name } = request.params as { name: string };
    requireOperator(acl.resolve(request), "write");
    partitions.markDeleted(name);
    // Success is indicated by the status alone.
    return reply.code(200).send();
  });

  app.get("/v1/partitions", async (request, reply) => {
    requireOperator(acl.resolve(request), "read");
    queryMeta(reply, index.current());
    return reply.send(partitions.list());
  });

  // ---- Agent-local mesh endpoints.

  app.post("/v1/agent/connect/authorize", async (request, reply) => {
    const body = objectBody(request.body);
    // The real agent validates the payload before it resolves the token.
    for (const field of ["Target", "ClientCertURI", "ClientCertSerial"] as const) {
      if (typeof body[field] !== "string" || body[field] === "") throw badRequest(`${field} must be specified`);
    }
    const target = body.Target as string;
    const token = acl.resolve(request);
    requireService(token, target, "write");
    const source = parseServiceUri(body.ClientCertURI as string);
    // Rule 4's first source, the body's Namespace, applies here since this payload carries one.
    const namespace = (typeof body.Namespace === "string" && body.Namespace) || namespaceOf(request, token);
    // Like the real agent, the trust domain of the client URI is not compared with ours: the caller
    // has already verified the certificate against the current roots (rule 1).
    return reply.send(intentions.authorize(source, { service: target, namespace }));
  });

  app.get("/v1/agent/connect/ca/roots", async (request, reply) => {
    // No ACL is required, and the real servers do not resolve the token for this read either.
    const blocking = parseBlockingParams(request.query as Query);
    const deadline = Date.now() + blocking.waitMs;
    while (blocking.index !== undefined && ca.rootsIndex <= blocking.index) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      if ((await notifier.waitFor([ROOTS_TOPIC], remaining, reply.raw)) === "aborted") break;
    }
    queryMeta(reply, ca.rootsIndex);
    return reply.send(ca.roots());
  });

  app.get("/v1/agent/connect/ca/leaf/:service", async (request, reply) => {
    const { service } = request.params as { service: string };
    if (!service) throw badRequest("Missing service name");
    const token = acl.resolve(request);
    // Required even when the service is absent from the catalog.
    requireService(token, service, "write");
    const namespace = namespaceOf(request, token);
    const blocking = parseBlockingParams(request.query as Query);
    const deadline = Date.now() + blocking.waitMs;
    let leaf = await ca.leaf(namespace, service);
    // A blocking query returns once a new certificate is needed (root rotation, nearing expiry) or the wait ends.
    while (blocking.index !== undefined && leaf.ModifyIndex <= blocking.index) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const untilRenewal = (ca.leafRenewAt(namespace, service) ?? Date.now()) - Date.now() + 1;
      const outcome = await notifier.waitFor(
        [ROOTS_TOPIC, leafTopic(namespace, service)],
        Math.min(remaining, Math.max(untilRenewal, 0)),
        reply.raw,
      );
      leaf = await ca.leaf(namespace, service);
      if (outcome === "aborted") break;
    }
    queryMeta(reply, leaf.ModifyIndex);
    return reply.send(leaf);
  });

  // The real router answers a known path with the wrong method with 405 and an Allow header.
  const allowed: Record<string, string[]> = {
    "/v1/partition": ["PUT"],
    "/v1/partition/:name": ["GET", "PUT", "DELETE"],
    "/v1/partitions": ["GET"],
    "/v1/agent/connect/authorize": ["POST"],
    "/v1/agent/connect/ca/roots": ["GET"],
    "/v1/agent/connect/ca/leaf/:service": ["GET"],
  };
  const methods = ["GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS"] as const;
  for (const [url, allow] of Object.entries(allowed)) {
    const others = methods.filter((m) => !allow.includes(m));
    app.route({
      method: [...others],
      url,
      handler: async (request, reply) =>
        reply
          .code(405)
          .header("Allow", ["OPTIONS", ...allow].join(","))
          .type(TEXT)
          .send(`method ${request.method} not allowed`),
    });
  }
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw badRequest("Request decode failed: body must be a JSON object");
  return body as Record<string, unknown>;
}

function descriptionOf(body: Record<string, unknown>): string {
  if (body.Description === undefined || body.Description === null) return "";
  if (typeof body.Description !== "string") throw badRequest("Request decode failed: Description must be a string");
  return body.Description;
}

/** Namespace precedence of spec rule 4 for endpoints without a body: `ns` query, header, token, `default`. */
function namespaceOf(request: FastifyRequest, token: MeshToken): string {
  const query = (request.query as Query).ns;
  if (query) return query;
  const header = request.headers["x-mesh-namespace"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader;
  return token.namespace || "default";
}

/** Source service of a SPIFFE service URI: spiffe://<trust-domain>[/ap/<partition>]/ns/<ns>/dc/<dc>/svc/<name>. */
function parseServiceUri(uri: string): { service: string; namespace: string } {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw badRequest("ClientCertURI not a valid Connect identifier");
  }
  if (parsed.protocol !== "spiffe:" || !parsed.host) throw badRequest("ClientCertURI not a valid Connect identifier");
  const match = parsed.pathname.match(/^(?:\/ap\/[^/]+)?\/ns\/([^/]+)\/dc\/[^/]+\/svc\/([^/]+)$/);
  if (!match) throw badRequest("ClientCertURI not a valid Service identifier");
  return { namespace: decodeURIComponent(match[1]), service: decodeURIComponent(match[2]) };
}
