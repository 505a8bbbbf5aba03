/**
 * ACL tokens of the mesh emulator: a management token with every permission, tokens made by tests from
 * a few rules, and the anonymous token used when a request carries none. Denials use the real service's
 * wording: `Permission denied: token with AccessorID '<id>' lacks permission '<resource>:<level>'`,
 * followed by ` on "<name>"` when the permission is about a named resource.
 */
import { randomUUID } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { forbidden } from "./errors";

export type AccessLevel = "read" | "write";

/** Rules of a token created by a test. */
export interface TokenRules {
  /** `operator` permission; absent means none. */
  operator?: AccessLevel;
  /** Service permissions by exact service name; the key `*` covers every service. */
  services?: Record<string, AccessLevel>;
  /** Partition the token belongs to (default `default`); the token can always read it. */
  partition?: string;
  /** Namespace the token belongs to (default `default`); selects the namespace when a request names none. */
  namespace?: string;
}

export interface MeshToken {
  accessorId: string;
  secretId: string;
  partition: string;
  namespace: string;
  management: boolean;
  anonymous: boolean;
  operator?: AccessLevel;
  services: Record<string, AccessLevel>;
}

/** The real service's fixed accessor ID of the anonymous token. */
export const ANONYMOUS_ACCESSOR_ID = "00000000-0000-0000-0000-000000000002";

const grants = (held: AccessLevel | undefined, wanted: AccessLevel) =>
  held === "write" || (held === "read" && wanted === "read");

export class AclStore {
  private readonly bySecret = new Map<string, MeshToken>();
  private readonly anonymous: MeshToken = {
    accessorId: ANONYMOUS_ACCESSOR_ID,
    secretId: "anonymous",
    partition: "default",
    namespace: "default",
    management: false,
    anonymous: true,
    services: {},
  };

  constructor(readonly rootToken: string) {
    this.bySecret.set(rootToken, {
      accessorId: randomUUID(),
      secretId: rootToken,
      partition: "default",
      namespace: "default",
      management: true,
      anonymous: false,
      services: {},
    });
  }

  createToken(rules: TokenRules): string {
    const secretId = randomUUID();
    this.bySecret.set(secretId, {
      accessorId: randomUUID(),
      secretId,
      partition: rules.partition ?? "default",
      namespace: rules.namespace ?? "default",
      management: false,
      anonymous: false,
      operator: rules.operator,
      services: { ...(rules.services ?? {}) },
    });
    return secretId;
  }

  accessorOf(secretId: string): string | undefined {
    return this.bySecret.get(secretId)?.accessorId;
  }

  /** The token of a request: `X-Mesh-Token`, else `Authorization: Bearer`, else anonymous. */
  resolve(request: FastifyRequest): MeshToken {
    const secret = secretOf(request);
    if (secret === undefined) return this.anonymous;
    const token = this.bySecret.get(secret);
    // The real service answers an unknown secret with 403 and this exact text.
    if (!token) throw forbidden("ACL not found");
    return token;
  }
}

function secretOf(request: FastifyRequest): string | undefined {
  const header = request.headers["x-mesh-token"];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct) return direct;
  const authorization = request.headers.authorization;
  const match = authorization?.match(/^Bearer\s+(.+)$/i);
  return match ? match[1].trim() : undefined;
}

function denied(token: MeshToken, permission: string, resourceName?: string): Error {
  const on = resourceName === undefined ? "" : ` on "${resourceName}"`;
  return forbidden(`Permission denied: token with AccessorID '${token.accessorId}' lacks permission '${permission}'${on}`);
}

export function hasOperator(token: MeshToken, level: AccessLevel): boolean {
  return token.management || grants(token.operator, level);
}

export function requireOperator(token: MeshToken, level: AccessLevel): void {
  if (!hasOperator(token, level)) throw denied(token, `operator:${level}`);
}

export function requireService(token: MeshToken, service: string, level: AccessLevel): void {
  if (token.management) return;
  const held = token.services[service] ?? token.services["*"];
  if (!grants(held, level)) throw denied(token, `service:${level}`, service);
}

/** Partition reads need operator:read, except that a non-anonymous token can always read its own partition. */
export function requirePartitionRead(token: MeshToken, partition: string): void {
  if (!token.anonymous && token.partition === partition) return;
  requireOperator(token, "read");
}
