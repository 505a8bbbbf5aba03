/**
 * Emulator of the secrets service ("keep"): a labelled test double, never a substitute for the
 * real service. One fastify server on loopback; each route module registers its routes on a
 * shared KeepRouter, which handles authentication, namespaces, help and error bodies for all.
 */
import { randomBytes } from "node:crypto";
import { ServiceServer, startServiceServer } from "../common";
import { registerNamespaceRoutes } from "./namespaces";
import { PolicyFields, PolicyKind, PolicyView, policyStoreOf, registerPolicyRoutes, viewPolicy } from "./policies";
import { errorBody } from "./replies";
import { KeepRouter } from "./router";
import { KeepState } from "./state";

export type { PolicyKind, PolicyFields, PolicyView } from "./policies";
export type { KeepRoute, KeepRequest, KeepOperation, KeepHandler } from "./router";
export { KeepRouter } from "./router";
export { KeepState, KeepNamespace } from "./state";
export { KeepError } from "./replies";

export interface KeepEmulatorOptions {
  /** Loopback address to bind (default 127.0.0.1). */
  host?: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** Token accepted everywhere; random when absent. */
  rootToken?: string;
  /** Behave like a proxy with `require_request_header`: demand `X-Keep-Request: true`. */
  requireRequestHeader?: boolean;
}

export interface KeepEmulator extends ServiceServer {
  /** Token accepted in every namespace. */
  rootToken: string;
  /** Switchable at run time; see KeepEmulatorOptions. */
  requireRequestHeader: boolean;
  /** The emulator's whole state, for route modules and tests that need more than the helpers. */
  state: KeepState;
  /** Accepts `token` from now on, in every namespace. */
  addToken(token: string): void;
  /** Creates a namespace ("team-a", "team-a/dev"), with any missing parent. */
  addNamespace(path: string): void;
  hasNamespace(path: string): boolean;
  /** The policy as GET would answer it, or undefined. `namespace` defaults to the root. */
  getPolicy(kind: PolicyKind, name: string, namespace?: string): PolicyView | undefined;
  /** Writes a policy as an out-of-band change would: no validation beyond name normalisation. */
  putPolicy(kind: PolicyKind, name: string, fields: PolicyFields, namespace?: string): void;
  deletePolicy(kind: PolicyKind, name: string, namespace?: string): void;
  /** Policy names, sorted. */
  listPolicies(kind: PolicyKind, namespace?: string): string[];
}

/** Starts the emulator; it listens before the promise resolves. */
export async function startKeepEmulator(options: KeepEmulatorOptions = {}): Promise<KeepEmulator> {
  const rootToken = options.rootToken ?? `keep.${randomBytes(18).toString("base64url")}`;
  const state = new KeepState(rootToken);
  state.requireRequestHeader = options.requireRequestHeader ?? false;

  const router = new KeepRouter(state);
  registerNamespaceRoutes(router);
  registerPolicyRoutes(router);

  const server = await startServiceServer(
    {
      name: "keep",
      host: options.host,
      port: options.port,
      errorBody: (_status, message) => errorBody([message]),
    },
    (app) => router.install(app),
  );

  const policiesIn = (namespace?: string) => policyStoreOf(state.requireNamespace(namespace));

  return {
    ...server,
    rootToken,
    state,
    get requireRequestHeader() {
      return state.requireRequestHeader;
    },
    set requireRequestHeader(on: boolean) {
      state.requireRequestHeader = on;
    },
    addToken: (token) => {
      state.tokens.add(token);
    },
    addNamespace: (path) => {
      state.ensureNamespace(path);
    },
    hasNamespace: (path) => state.findNamespace(path) !== undefined,
    getPolicy: (kind, name, namespace) => {
      const stored = policiesIn(namespace).get(kind, name);
      return stored && viewPolicy(kind, stored);
    },
    putPolicy: (kind, name, fields, namespace) => policiesIn(namespace).put(kind, name, fields),
    deletePolicy: (kind, name, namespace) => {
      policiesIn(namespace).delete(kind, name);
    },
    listPolicies: (kind, namespace) => policiesIn(namespace).names(kind),
  };
}
