/**
 * What the cloud-credentials engine's resources and functions share: the mount, durations (`h` is
 * the largest unit the service takes), lists given as arrays or comma-separated strings, and riding
 * out the provider's eventual consistency after a root rotation.
 */
import { z } from "zod";
import { ApiError } from "../../../provider/errors";
import { retryPolicyOf } from "../../../provider/http";
import type { KeepClient } from "../../../provider/keep-client";
import { mountInput } from "../../../provider/keep-object";
import { isUnknown } from "../../../provider/unknowns";
import { waitFor } from "../../../provider/wait";
import { durationSeconds, LargestUnit } from "../duration";

/** Where the cloud-credentials engine is mounted; `cloudA` by default. Part of the ID; changing it replaces the object. */
export const cloudMount = mountInput("cloudA");

export const DURATION_RULE = 'must be a number of seconds, a duration such as "1h", "90m" or "3600s", or days such as "7d"';
export const LEASE_DURATION_RULE = 'must be a number of seconds or a duration such as "1h", "90m" or "3600s" (h is the largest unit the lease configuration takes: write "24h", not "1d")';

const durationInput = (largest: LargestUnit, rule: string) =>
  z.union([z.number().int().min(0), z.string()]).superRefine((value, ctx) => {
    if (isUnknown(value)) return;
    if (durationSeconds(value, largest) === undefined) ctx.addIssue({ code: "custom", message: rule });
  });

/** A duration the service takes: seconds, a Go duration string, or whole days. */
export const cloudDuration = durationInput("d", DURATION_RULE);
/** A duration of the lease configuration: seconds, or a Go duration string up to hours (the spec's one exception). */
export const leaseDuration = durationInput("h", LEASE_DURATION_RULE);

/** Seconds of a duration input; undefined for absent or unknown ones. */
export const secondsOf = (value: unknown): number | undefined =>
  typeof value === "number" || (typeof value === "string" && !isUnknown(value)) ? durationSeconds(value as string | number) : undefined;

/** Durations compare by length (`1h` = `60m` = `3600s` = 3600); 0 is the same as unset. */
export const normalizeDuration = (value: string | number | undefined) => {
  const seconds = value === undefined ? undefined : secondsOf(value) ?? value;
  return seconds === 0 ? null : seconds;
};

/** A list the service takes as an array or a comma-separated string. */
export const listInput = (what: string) => z.union([z.array(z.string().min(1, `must not hold an empty ${what}`)), z.string()]);

/** The items of a list input: trimmed, without empty ones. */
export function listItems(value: string[] | string | undefined): string[] {
  if (value === undefined) return [];
  const items = typeof value === "string" ? value.split(",") : value;
  return items.map((s) => s.trim()).filter((s) => s !== "");
}

/** Lists compare as sets; an empty list is the same as none. */
export const normalizeSet = (value: string[] | string | undefined) => {
  const items = [...new Set(listItems(value))].sort();
  return items.length ? items : null;
};

// ---------------------------------------------------------------------------------------------
// Eventual consistency after a rotation.

/**
 * How long calls refused by the provider's eventual consistency are tried again. The provider makes
 * a new key usable everywhere within seconds; a key still refused after this is wrong for good.
 */
export const CONSISTENCY_TIMEOUT_MS = 60_000;

/**
 * Whether an error is the provider refusing the engine's root key: right after a rotation the new
 * key is not yet known everywhere. The service passes the provider's answer on as a 400 (credentials)
 * or a 500 (a rotation's first step), which the HTTP layer does not retry.
 */
export function isConsistencyRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 400 || error.status === 500) && /InvalidClientTokenId/.test(error.message);
}

/**
 * Runs a call that reaches the provider with the engine's root credentials, trying it again while
 * the provider refuses a freshly rotated key, with the retry policy's backoff (`waitFor`). Other
 * failures end it at once; statuses the policy retries (412, 5xx) were retried by the HTTP layer.
 */
export async function rideOutConsistency<T>(client: KeepClient, what: string, call: () => Promise<T>): Promise<T> {
  let refusal: ApiError | undefined;
  const outcome = await waitFor<{ value: T } | undefined>({
    probe: async () => {
      try {
        return { value: await call() };
      } catch (e) {
        if (!isConsistencyRefusal(e)) throw e;
        refusal = e;
        return undefined;
      }
    },
    done: (result) => result !== undefined,
    timeoutMs: CONSISTENCY_TIMEOUT_MS,
    describe: `the provider to accept the engine's root access key (${what}); a key refused this long was revoked or is wrong, not new`,
    show: () => refusal?.message ?? "refused",
    policy: retryPolicyOf(client.config),
  });
  return outcome!.value;
}
