/**
 * The life of a stack as a user runs it with the CLI: a preview that sends no request, `up`, a
 * preview that plans no change, a refresh that finds none, and a destroy, each read from what the CLI
 * printed as JSON (its warnings and errors were checked as the session ran).
 */
import type { CommandRecord } from "../support/differential";
import { countSteps } from "../support/real-engine";

const counts = (record: CommandRecord) => countSteps(Object.values(record.steps));

/** The session of a lifecycle. */
export const LIFECYCLE = ["preview", "up", "preview", "refresh", "destroy"] as const;

/** Checks a session of LIFECYCLE. */
export function expectLifecycle(session: CommandRecord[], programRequest: ((line: string) => boolean) | undefined): void {
  expect(session.map((r) => r.command)).toEqual(LIFECYCLE);
  const [preview, up, again, refresh, destroy] = session;
  const requestsOf = (r: CommandRecord) => r.requests.filter((line) => !programRequest?.(line));
  expect({ requests: requestsOf(preview) }).toEqual({ requests: [] });
  const planned = counts(preview);
  expect(Object.keys(planned)).toEqual(["create"]);
  const created = Object.values(up.steps);
  expect(counts(up)).toEqual(planned);
  expect(Object.values(again.steps).filter((s) => s.op !== "same")).toEqual([]);
  expect(Object.values(refresh.steps).filter((s) => s.op !== "same")).toEqual([]);
  expect(Object.values(destroy.steps).map((s) => s.op)).toEqual(created.map(() => "delete"));
}
