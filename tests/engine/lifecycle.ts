/**
 * The life of a stack as a user runs it with the CLI: a preview that sends no request, `up`, a
 * preview that plans no change, a refresh that finds none, and a destroy. Each step is read from
 * what the CLI prints as JSON, and its text is searched for warnings and errors.
 */
import { CliStep, countSteps, expectNoComplaints, planOf, Project, stackOutputsOf, stepsOf } from "../support/real-engine";

export interface LifecycleResult {
  /** The resources `up` created, by type and name. */
  created: CliStep[];
  /** The stack's outputs after `up` (a secret one as "[secret]"). */
  outputs: Record<string, unknown>;
}

/** `afterUp` sees the services after `up` (the emulator's state), before anything else runs. */
export async function lifecycle(project: Project, requests: () => number, afterUp?: (outputs: Record<string, unknown>) => void | Promise<void>): Promise<LifecycleResult> {
  const before = requests();
  const preview = await project.pulumi(["preview", "--json"]);
  expect({ requests: requests() - before }).toEqual({ requests: 0 });
  const planned = planOf(preview);
  expect(Object.keys(planned.changes)).toEqual(["create"]);

  const up = await project.pulumi(["up", "--yes", "--skip-preview", "--json"]);
  const created = stepsOf(up);
  expect(countSteps(created)).toEqual(planned.changes);
  const outputs = stackOutputsOf(up);
  await afterUp?.(outputs);

  const again = await project.pulumi(["preview", "--json", "--expect-no-changes"]);
  expect(planOf(again).changes).toEqual({});
  const refresh = await project.pulumi(["refresh", "--yes", "--skip-preview", "--expect-no-changes", "--json"]);
  expect(stepsOf(refresh).filter((s) => s.op !== "same" && s.op !== "refresh")).toEqual([]);

  const destroy = await project.pulumi(["destroy", "--yes", "--skip-preview", "--json"]);
  expect(countSteps(stepsOf(destroy))).toEqual({ delete: created.length });
  expectNoComplaints(preview, up, again, refresh, destroy);
  return { created, outputs };
}
