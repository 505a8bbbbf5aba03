/**
 * Durations preview accepts are the ones the service takes: the provider's reader
 * (resources/keep/duration.ts) against the emulator's own (emulator/keep/durations.ts).
 */
import { parseDuration } from "../../emulator/keep/durations";
import { durationSeconds } from "../../resources/keep/duration";

const CASES = ["90", "90s", "1h30m", "1.5h", ".5s", "1.s", "300ms", "2µs", "2μs", "1h0m0s", "365d", "0", "0s", "-5s", "5x", "1d2h", "h", ".s", "", " 5s"];

test.each(CASES)("%j: preview and the service agree", (text) => {
  const preview = durationSeconds(text);
  const service = parseDuration(text, { days: true });
  expect([text, preview === undefined ? "refused" : Math.floor(preview)]).toEqual([text, service === undefined ? "refused" : service]);
});

test("with h as the largest unit (the lease configuration), days are refused on both sides", () => {
  expect(durationSeconds("365d", "h")).toBeUndefined();
  expect(parseDuration("365d", { days: false })).toBeUndefined();
});
