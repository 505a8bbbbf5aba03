/** Error types shared by the clients and the resource machine. Messages never carry credentials. */
import type { z } from "zod";
import { Owner, ownerLabel } from "./owner";

/** One error detail as a service reported it (JSON:API error objects carry title, detail and a pointer). */
export interface ApiErrorDetail {
  message: string;
  pointer?: string;
}

/** What is known of a failed request besides its answer. */
export interface ApiErrorFacts {
  /** Retries made before giving up. */
  retries?: number;
  /** Network or TLS error code (ECONNRESET, DEPTH_ZERO_SELF_SIGNED_CERT, ...) when status is 0. */
  code?: string;
  /** What went wrong, in words, when there was no answer (a refused certificate). */
  reason?: string;
  /** What to do, when the failure itself tells (a refused certificate); wins over the advice by status. */
  advice?: string;
  /**
   * An attempt before the final one may have reached the service and acted: it was sent and got no
   * answer (a reset connection, a timeout), or a write was answered with 5xx. A later "it exists
   * already" may then be the object this very request made.
   */
  earlierAttemptMayHaveActed?: boolean;
  /** The request never left (the TLS handshake refused the server): the service cannot have acted. */
  notSent?: boolean;
  /** The named cluster the request went to (`keep-<cluster>:` settings); undefined for the default one. */
  cluster?: string;
  /** How the door that sent the request names its settings (config.ts's `SettingNames`): advice names them so; the stack's by default. */
  names?: "stack" | "plugin";
  /** The namespace (secrets service) or organization (workspace service) the request was scoped to. */
  scope?: RequestScope;
  /** The address the request was sent to (the service's base URL), named when no answer came. */
  address?: string;
  /** The timeout of one attempt, named when the last attempt timed out. */
  timeoutMs?: number;
}

/** Where a request was scoped, and whether the stack's setting (not a resource's input) chose it. */
export interface RequestScope {
  kind: "namespace" | "organization";
  name: string;
  fromSetting: boolean;
}

/** Codes of failures that happen before a request leaves: the service cannot have acted on it. */
const NEVER_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ERR_CANCELED", "ERR_BAD_OPTION_VALUE", "EPROTO"]);

/**
 * Whether a failed attempt may have reached the service and acted: no answer to a request that may
 * have been sent (anything but a refused connection, an unknown host or a refused certificate), or
 * a 5xx answer to a write. `notSent` tells that it never left (a refused certificate).
 */
export function attemptMayHaveActed(method: string, status: number, code: string | undefined, notSent = false): boolean {
  if (status === 0) return !notSent && !(code !== undefined && NEVER_SENT_CODES.has(code));
  return status >= 500 && !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
}

/** An HTTP answer with status >= 400, or a request that never got an answer (status 0). */
export class ApiError extends Error {
  override readonly name = "ApiError";
  /** Retries made before giving up. */
  readonly retries: number;
  /** Network or TLS error code when status is 0. */
  readonly code?: string;
  /** What went wrong, in words, when there was no answer. */
  readonly reason?: string;
  /** What to do, when the failure itself tells; see `adviceFor`. */
  readonly advice?: string;
  /** See `ApiErrorFacts.earlierAttemptMayHaveActed`. */
  readonly earlierAttemptMayHaveActed: boolean;
  /** The request never left (see `ApiErrorFacts.notSent`). */
  readonly notSent: boolean;
  /** See `ApiErrorFacts.cluster`. */
  readonly cluster?: string;
  /** See `ApiErrorFacts.names`. */
  readonly names?: "stack" | "plugin";
  /** See `ApiErrorFacts.scope`. */
  readonly scope?: RequestScope;
  /** See `ApiErrorFacts.address`. */
  readonly address?: string;
  /** See `ApiErrorFacts.timeoutMs`. */
  readonly timeoutMs?: number;

  constructor(
    readonly service: string,
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly details: ApiErrorDetail[],
    facts: ApiErrorFacts = {},
  ) {
    super(describeApiError(service, method, path, status, details, facts));
    this.retries = facts.retries ?? 0;
    this.code = facts.code;
    this.reason = facts.reason;
    this.advice = facts.advice;
    this.earlierAttemptMayHaveActed = facts.earlierAttemptMayHaveActed ?? false;
    this.notSent = facts.notSent ?? false;
    this.cluster = facts.cluster;
    this.names = facts.names;
    this.scope = facts.scope;
    this.address = facts.address;
    this.timeoutMs = facts.timeoutMs;
  }

  get messages(): string[] {
    return this.details.map((d) => d.message);
  }

  /** The same failure with what to do about it, when the caller knows better than the status (a 404 meaning a missing parent). */
  withAdvice(advice: string): ApiError {
    return new ApiError(this.service, this.method, this.path, this.status, this.details, {
      retries: this.retries,
      code: this.code,
      reason: this.reason,
      advice,
      earlierAttemptMayHaveActed: this.earlierAttemptMayHaveActed,
      notSent: this.notSent,
      cluster: this.cluster,
      names: this.names,
      scope: this.scope,
      address: this.address,
      timeoutMs: this.timeoutMs,
    });
  }

  /**
   * Whether this request may have acted on the service, in this attempt or an earlier one: what a
   * create checks before it sends the request again.
   */
  get mayHaveActed(): boolean {
    return this.earlierAttemptMayHaveActed || attemptMayHaveActed(this.method, this.status, this.code, this.notSent);
  }
}

/** Seconds, as a person reads them: `60 s`, `0.5 s`. */
const secondsOf = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

function describeApiError(service: string, method: string, path: string, status: number, details: ApiErrorDetail[], facts: ApiErrorFacts): string {
  const code = facts.code ?? "network error";
  const retries = facts.retries ?? 0;
  const attempts = retries + 1;
  const from = facts.address ? ` from ${facts.address}` : "";
  // A timeout is told with its length and how many attempts had it: the run's length follows from both.
  const timedOut = facts.timeoutMs !== undefined && (code === "ETIMEDOUT" || code === "ECONNABORTED");
  const why = timedOut ? `${code}: no answer within ${secondsOf(facts.timeoutMs!)}, the timeout of each of ${attempts} ${attempts === 1 ? "attempt" : "attempts"}` : code;
  const what = status === 0 ? (facts.reason ? `failed without an answer${from}: ${facts.reason} (${why})` : `failed without an answer${from} (${why})`) : `returned ${status}`;
  const said = details.length
    ? `: ${details.map((d) => (d.pointer ? `${d.message} (at ${d.pointer})` : d.message)).join("; ")}`
    : "";
  const tried = retries > 0 && !timedOut ? ` after ${retries} ${retries === 1 ? "retry" : "retries"}` : "";
  return `${service}: ${method} ${path} ${what}${tried}${said}`;
}

/** A successful answer whose body does not have the shape the API promises. */
export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
  constructor(
    readonly service: string,
    readonly method: string,
    readonly path: string,
    readonly issues: string[],
  ) {
    super(`${service}: ${method} ${path} answered with an unexpected body: ${issues.join("; ")}`);
  }
}

/** Where an answer came from, for the error that says it is not what the service should send. */
export interface AnswerSource {
  service: string;
  method: string;
  /** As messages show it: from the address, `/v1/...`. */
  path: string;
  /** Where the checked part sits in the body (`data`), prefixed to each field named. */
  under?: string;
}

/** An answer checked against its schema: the parsed value, or a ResponseShapeError naming each field. */
export function checkedAnswer<T extends z.ZodType>(schema: T, body: unknown, source: AnswerSource): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const field = (path: PropertyKey[]) => {
    const joined = path.map(String).join(".");
    return source.under ? [source.under, joined].filter(Boolean).join(".") : joined || "(body)";
  };
  throw new ResponseShapeError(source.service, source.method, source.path, result.error.issues.map((i) => `${field(i.path)}: ${i.message}`));
}

/** The service says the object is not there: an answer where absence is one (a read, a delete). */
export function isNotFound(e: unknown): e is ApiError {
  return e instanceof ApiError && e.status === 404;
}

/** A request's answer, or undefined when the object is not there (404). */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Bad configuration (a missing address, an unreadable CA file). */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    message: string,
    /** The setting at fault (`keep:address`), when one is. */
    readonly setting?: string,
    /** The setting is not set, and has no default. */
    readonly missing = false,
  ) {
    super(message);
  }
}

/**
 * Thrown from create when the object exists on the service but a later step failed. The dynamic
 * provider host turns `id`, `properties` and `reasons` into a created-but-failed resource, so the
 * next update repairs the object instead of creating a duplicate.
 */
export class PartialCreateError extends Error {
  override readonly name = "PartialCreateError";
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/**
 * A create refused because the service holds an object of the same ID that this stack's state does
 * not: made by hand, by another stack, or by an earlier run of this one whose record was lost.
 */
export class ObjectExistsError extends Error {
  override readonly name = "ObjectExistsError";
  constructor(
    readonly shortToken: string,
    /** The object as the program names it. */
    readonly objectId: string,
    readonly options: {
      /** The service's refusal, where the create itself was refused. */
      refusal?: ApiError;
      /** The object's own ID, where the service gave it one of another form (a workspace's `ws-…`). */
      ownId?: string;
      /** Another way to adopt it, said last. */
      hint?: string;
      /** The stack's resource the service records as the object's owner. */
      owner?: Owner;
      /** Refused at an adoption: the object is recorded as another stack's. */
      adopting?: boolean;
    } = {},
  ) {
    const { refusal, ownId, hint, owner, adopting } = options;
    const said = refusal ? ` (${refusal.method} ${refusal.path} answered ${refusal.status}: ${refusal.messages.join("; ") || "taken"})` : "";
    const held = `${shortToken} "${objectId}"${ownId ? `, ID ${ownId}` : ""}`;
    super(
      adopting && owner
        ? `${held} is managed by ${ownerLabel(owner)} (the service records it), so it was not adopted and was left exactly as it is: ` +
            "an adoption never gives an object a second owner. Leave it to that stack and choose another name; " +
            "or, to move it to this stack, remove it from that stack's state (`pulumi state delete` there) and declare it here with `adopt: true, takeOver: true`"
        : `the service already holds ${held}${said}${owner ? `, managed by ${ownerLabel(owner)}` : ""}, and this stack's state does not, ` +
            "so it was left exactly as it is: a create never writes over an object it did not make. " +
            "To manage it from this program, declare it with `adopt: true` (the object is then converged to the declared inputs)" +
            (owner ? " and `takeOver: true` (it is recorded as another stack's)" : "") +
            `, or import it (\`pulumi import\` through the keepstack plugin, or \`npx pulumi-keepstack import ${shortToken} ${ownId ?? objectId}\`); ` +
            "if another stack manages it, choose another name instead" +
            (hint ? `. ${hint}` : ""),
    );
  }

  /** The same refusal, naming the owner the service records. */
  withOwner(owner: Owner): ObjectExistsError {
    return new ObjectExistsError(this.shortToken, this.objectId, { ...this.options, owner });
  }
}
