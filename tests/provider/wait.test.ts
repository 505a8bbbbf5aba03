/** waitFor: the awaited state, the timeout message, and intervals that are the retry policy's backoff. */
import { backoffMs, retryPolicyOf } from "../../provider/http";
import { resolveServiceConfig } from "../../provider/config";
import { WaitClock, waitFor, WaitTimeoutError } from "../../provider/wait";

/** A clock that only advances when the helper sleeps, recording each interval. */
function fakeClock(): WaitClock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const policy = retryPolicyOf(resolveServiceConfig("workspaces", () => undefined, { WORKSPACES_ADDR: "http://127.0.0.1:1", WORKSPACES_RETRY_BASE_MS: "100" }));

describe("waitFor", () => {
  afterEach(() => jest.restoreAllMocks());

  test("returns the first state that is done, probing no further", async () => {
    const states = ["pending", "pending", "uploaded", "archived"];
    let probes = 0;
    const clock = fakeClock();
    const state = await waitFor({ probe: async () => states[probes++], done: (s) => s === "uploaded", timeoutMs: 60_000, describe: "x", policy, clock });
    expect(state).toBe("uploaded");
    expect(probes).toBe(3);
    expect(clock.slept).toHaveLength(2);
  });

  test("the intervals are the policy's backoff: base delay doubling, jitter over the upper half, capped", async () => {
    // Jitter at its largest, so each interval is the whole exponential step.
    jest.spyOn(Math, "random").mockReturnValue(1);
    const clock = fakeClock();
    let probes = 0;
    await waitFor({ probe: async () => ++probes, done: (n) => n === 7, timeoutMs: 600_000, describe: "x", policy, maxIntervalMs: 1_000, clock });
    expect(clock.slept).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(clock.slept).toEqual([1, 2, 3, 4, 5, 6].map((attempt) => backoffMs({ baseDelayMs: 100, maxDelayMs: 1_000 }, attempt)));

    // Jitter at its smallest: half of each step.
    jest.spyOn(Math, "random").mockReturnValue(0);
    expect([1, 2, 3].map((attempt) => backoffMs(policy, attempt))).toEqual([50, 100, 200]);
  });

  test("after the timeout it fails naming what was awaited and the last state seen; the last probe is at the deadline", async () => {
    jest.spyOn(Math, "random").mockReturnValue(1);
    const clock = fakeClock();
    let probes = 0;
    const error = (await waitFor({
      probe: async () => ({ status: "pending", probe: ++probes }),
      done: () => false,
      timeoutMs: 1_000,
      describe: "configuration version cv-1 to be processed",
      show: (s) => `status ${s.status} (probe ${s.probe})`,
      policy,
      clock,
    }).catch((e: unknown) => e)) as WaitTimeoutError<{ status: string }>;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.message).toBe("timed out after 1 s waiting for configuration version cv-1 to be processed; last seen: status pending (probe 5)");
    expect(error.lastState).toEqual({ status: "pending", probe: 5 });
    // 100 + 200 + 400, then the rest of the second: never past the deadline.
    expect(clock.slept).toEqual([100, 200, 400, 300]);
    expect(clock.now()).toBe(1_000);
  });

  test("a probe that fails ends the wait with its error", async () => {
    const clock = fakeClock();
    await expect(waitFor({ probe: async () => Promise.reject(new Error("403 refused")), done: () => true, timeoutMs: 1_000, describe: "x", policy, clock })).rejects.toThrow(
      "403 refused",
    );
  });
});
