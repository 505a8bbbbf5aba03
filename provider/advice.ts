/**
 * What the user should do about a failed call, by the status the service answered (0: no answer).
 * One table for resources (object-machine.ts) and functions (resources/.../functions.ts, connect.ts), so a
 * refused token reads the same wherever it shows.
 */
import { SETTINGS, settingLabel } from "./config";
import { ApiError } from "./errors";
import type { ServiceModule } from "./config";

/** What the call needed, to make the advice precise. */
export interface AdviceOptions {
  /** The permission the call needs (`service:write on "web"`): a refused token is told to get it. */
  permission?: string;
  /** The named cluster the call went to (its settings are `keep-<cluster>:...`). */
  cluster?: string;
}

/** The settings an advice may point at, as labels such as `keep:token (or KEEP_TOKEN)`. */
interface AdviceFacts {
  address: string;
  token: string;
  permission?: string;
  /** The address the request was sent to, when it is known. */
  tried?: string;
}

type Advice = string | ((facts: AdviceFacts) => string);

const REJECTED = "the service rejected the inputs: fix the property it names";
const REFUSED: Advice = ({ token, permission }) =>
  permission
    ? `the token was refused or lacks permission: grant ${permission} to the token set in ${token}`
    : `the token was refused or lacks permission: check ${token} and what it may do`;
const UNAVAILABLE = "the service stayed unavailable: run again later";
const NOT_FOUND = "the object or path does not exist, or this token cannot see it";

/** Advice by status; any other 5xx answer is `UNAVAILABLE`, anything else `OTHERWISE`. */
export const ADVICE_BY_STATUS: Readonly<Record<number, Advice>> = {
  0: ({ address, tried }) => (tried ? `check that the service is reachable at ${tried} (${address})` : `check that the service is reachable at the configured address (${address})`),
  400: REJECTED,
  401: REFUSED,
  403: REFUSED,
  404: NOT_FOUND,
  405: "the service does not support this operation on this path (check the mount path and the service edition)",
  409: "the object's current state does not allow this operation",
  412: UNAVAILABLE,
  422: REJECTED,
  429: UNAVAILABLE,
};
const OTHERWISE = "see the service's message";

function isServiceModule(service: string): service is ServiceModule {
  return Object.prototype.hasOwnProperty.call(SETTINGS, service);
}

/** What to do about a failed call, as one clause (no final period). */
export function adviceFor(error: ApiError, options: AdviceOptions = {}): string {
  // The failure itself may say what to do (a refused certificate names caCert and skipTlsVerify).
  if (error.advice) return error.advice;
  const advice = ADVICE_BY_STATUS[error.status] ?? (error.status >= 500 ? UNAVAILABLE : OTHERWISE);
  const service = error.service;
  const label = (key: string) => (isServiceModule(service) ? settingLabel(service, key, options.cluster ?? error.cluster, error.names) : `the ${key} setting of ${service}`);
  // Under a namespace or an organization, a 404 may mean that the scope itself does not exist.
  const scope = error.scope;
  if (error.status === 404 && scope) {
    const where = scope.fromSetting ? label(scope.kind) : `the resource's \`${scope.kind}\` input`;
    const listing = scope.kind === "namespace" ? " (LIST sys/namespaces in its parent lists the namespaces)" : "";
    return `the ${scope.kind} "${scope.name}" may not exist: check ${where}${listing}; otherwise ${NOT_FOUND}`;
  }
  if (typeof advice === "string") return advice;
  return advice({ address: label("address"), token: label("token"), permission: options.permission, tried: error.address });
}

/**
 * The message of a failed call: what failed (`workspaces.listWorkspaces() failed`), what went wrong
 * and, when the service answered, what to do about it.
 */
export function failureMessage(head: string, error: unknown, options?: AdviceOptions): string {
  // The service's own message may end its sentence already ("... route entry not found.").
  if (error instanceof ApiError) return `${head}: ${error.message.replace(/[.\s]+$/, "")}. ${adviceFor(error, options)}.`;
  return `${head}: ${error instanceof Error ? error.message : String(error)}`;
}
