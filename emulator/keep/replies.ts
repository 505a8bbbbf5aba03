/**
 * Error and response shapes of the secrets service emulator, shared by every route module:
 * the `{ errors: [...] }` body, the response envelope and the list conventions.
 */
import { randomUUID } from "node:crypto";

/** Thrown by route handlers; the router turns it into `status` with `{ errors }`. */
export class KeepError extends Error {
  constructor(
    readonly status: number,
    readonly errors: string[],
  ) {
    super(errors[0] ?? `status ${status}`);
  }
}

export const errorBody = (messages: string[]) => ({ errors: messages });

export const badRequest = (message: string) => new KeepError(400, [message]);
export const permissionDenied = () => new KeepError(403, ["permission denied"]);
/** A read of something absent: the real service answers 404 with an empty error list. */
export const notFound = (message?: string) => new KeepError(404, message ? [message] : []);
export const unsupportedPath = () => new KeepError(404, ["unsupported path"]);
export const unsupportedOperation = () => new KeepError(405, ["unsupported operation"]);

/** What a handler answers; `undefined` from a handler means 204 with no body. */
export interface KeepReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): KeepReply => ({ status: 200, body });
export const noContent = (): KeepReply => ({ status: 204 });

export interface EnvelopeOptions {
  warnings?: string[] | null;
  wrapInfo?: unknown;
  leaseId?: string;
  leaseDuration?: number;
  renewable?: boolean;
  /** The spec shows `mount_type: "system"` on some sys responses. */
  mountType?: string;
}

/** The spec's response envelope around `data`. */
export function envelope(data: unknown, options: EnvelopeOptions = {}) {
  return {
    request_id: randomUUID(),
    lease_id: options.leaseId ?? "",
    renewable: options.renewable ?? false,
    lease_duration: options.leaseDuration ?? 0,
    data,
    wrap_info: options.wrapInfo ?? null,
    warnings: options.warnings ?? null,
    auth: null,
    ...(options.mountType !== undefined ? { mount_type: options.mountType } : {}),
  };
}

/** Convention 1: a list with no results is a 404 with an empty error list. */
export function requireListResults(keys: readonly string[]): void {
  if (keys.length === 0) throw notFound();
}

/**
 * A system-backend answer: the real service puts the fields at the top level and again inside
 * the envelope's `data`, with `mount_type: "system"`; clients read either place.
 */
export function systemReply(data: Record<string, unknown>): KeepReply {
  return ok({ ...data, ...envelope(data, { mountType: "system" }) });
}

/** An engine's answer: the envelope with the payload in `data` and the engine's type as `mount_type`. */
export function engineReply(data: unknown, mountType: string, options: EnvelopeOptions = {}): KeepReply {
  return ok(envelope(data, { mountType, ...options }));
}

/**
 * Content type of every JSON answer. The service sends exactly this, and some clients parse the
 * `errors` list only when the type is exactly `application/json` (no charset parameter).
 */
export const JSON_CONTENT_TYPE = "application/json";
