/**
 * Waiting for a state of the service (a version processed, a partition removed, a replication
 * mode reached): one helper, whose intervals are the retry policy's backoff, so no resource keeps a
 * polling loop or a backoff formula of its own.
 *
 * ```ts
 * const version = await waitFor({
 *   probe: () => client.send(row, { params }),
 *   done: (v) => v?.status !== "pending",
 *   timeoutMs: 600_000,
 *   describe: `configuration version ${id} to be processed`,
 *   show: (v) => `status ${v?.status}`,
 *   policy: retryPolicyOf(client.config),
 * });
 * ```
 *
 * A probe that throws ends the wait with its error: the HTTP layer has already retried what was
 * worth retrying.
 */
import { backoffMs, RetryPolicy } from "./http";

export interface WaitOptions<T> {
  /** Reads the current state (one request, usually). */
  probe: () => Promise<T>;
  /** Whether a state read is the one awaited. */
  done: (state: T) => boolean;
  /** How long to wait in all, from the first probe; the last probe happens at the deadline. */
  timeoutMs: number;
  /** What is awaited, for the timeout message: `partition "web" to be removed`. */
  describe: string;
  /** How a state reads in the timeout message; JSON by default. */
  show?: (state: T) => string;
  /** The backoff between probes: the client's retry policy (`retryPolicyOf(config)`). */
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">;
  /** Longest interval between probes, below the policy's `maxDelayMs` (a status poll stays lively). */
  maxIntervalMs?: number;
  /** The clock; tests give their own so nothing really sleeps. */
  clock?: WaitClock;
}

export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const realClock: WaitClock = { now: () => Date.now(), sleep };

/** The awaited state did not come in time; `lastState` is what the last probe read. */
export class WaitTimeoutError<T = unknown> extends Error {
  override readonly name = "WaitTimeoutError";
  constructor(
    /** What was awaited. */
    readonly awaited: string,
    readonly timeoutMs: number,
    readonly lastState: T,
    /** `lastState` as the message shows it. */
    readonly lastSeen: string,
    /** Probes made. */
    readonly probes: number,
  ) {
    super(`timed out after ${timeoutMs / 1000} s waiting for ${awaited}; last seen: ${lastSeen}`);
  }
}

/** Probes until `done` holds and returns that state, or throws `WaitTimeoutError` after `timeoutMs`. */
export async function waitFor<T>(options: WaitOptions<T>): Promise<T> {
  const clock = options.clock ?? realClock;
  const policy = {
    baseDelayMs: Math.max(1, options.policy.baseDelayMs),
    maxDelayMs: Math.min(options.policy.maxDelayMs, options.maxIntervalMs ?? Number.POSITIVE_INFINITY),
  };
  const deadline = clock.now() + options.timeoutMs;
  for (let probes = 1; ; probes++) {
    const state = await options.probe();
    if (options.done(state)) return state;
    const left = deadline - clock.now();
    if (left <= 0) {
      const lastSeen = options.show ? options.show(state) : JSON.stringify(state) ?? String(state);
      throw new WaitTimeoutError(options.describe, options.timeoutMs, state, lastSeen, probes);
    }
    await clock.sleep(Math.min(left, backoffMs(policy, probes)));
  }
}
