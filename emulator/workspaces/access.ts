/**
 * Who may do what in the workspace service emulator, and the per-token rate limit the real service
 * applies to its API.
 */
import type { FastifyRequest } from "fastify";
import { ApiError } from "./json-api";
import type { Principal, Store, WorkspaceState } from "./store";

const principals = new WeakMap<FastifyRequest, Principal>();

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

export function authenticate(request: FastifyRequest, store: Store): void {
  const token = bearerToken(request);
  const principal = token === undefined ? undefined : store.tokens.get(token);
  if (!principal) throw ApiError.of(401, token === undefined ? "missing bearer token" : "invalid token");
  principals.set(request, principal);
}

export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (!principal) throw ApiError.of(401);
  return principal;
}

export function canSeeOrganization(principal: Principal, organization: string): boolean {
  return principal.admin.has(organization) || principal.member.has(organization);
}

/** Read-runs on a workspace; every principal with rights here has all of them (owners, organization token). */
export function canReadWorkspace(principal: Principal, ws: WorkspaceState): boolean {
  return principal.admin.has(ws.organization);
}

export const canAdministerWorkspace = canReadWorkspace;

/** Owners team and the organization token may create workspaces. */
export function canCreateWorkspace(principal: Principal, organization: string): boolean {
  return principal.admin.has(organization);
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Fixed one-second windows per key (a token, or the client address for unauthenticated requests,
 * as the real service does). A non-positive or infinite limit turns limiting off.
 */
export class RateLimiter {
  private perSecond: number | undefined;
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(perSecond: number | undefined) {
    this.set(perSecond);
  }

  set(perSecond: number | undefined): void {
    this.perSecond = perSecond !== undefined && perSecond > 0 && Number.isFinite(perSecond) ? Math.floor(perSecond) || 1 : undefined;
    this.windows.clear();
  }

  take(key: string): RateDecision | undefined {
    const limit = this.perSecond;
    if (limit === undefined) return undefined;
    const at = Date.now();
    let window = this.windows.get(key);
    if (!window || at - window.startedAt >= 1000) {
      window = { startedAt: at, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    const resetSeconds = Math.max(0, window.startedAt + 1000 - at) / 1000;
    return {
      allowed: window.count <= limit,
      limit,
      remaining: Math.max(0, limit - window.count),
      resetSeconds,
    };
  }
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "x-ratelimit-limit": String(decision.limit),
    "x-ratelimit-remaining": String(decision.remaining),
    "x-ratelimit-reset": decision.resetSeconds.toFixed(3),
  };
}
