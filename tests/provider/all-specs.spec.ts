/** The registry: each key is the export path of the class of its spec, and each spec has its example. */
import * as pkg from "pulumi-keepstack";
import { listableSpecs } from "../../cli/import-all";
import { tokenOf } from "../../provider/spec";
import { registeredResources } from "../../resources/all-specs";
import { exampleInputs } from "../support/samples";

function exportAt(path: string): unknown {
  return path.split(".").reduce<unknown>((ns, name) => (ns as Record<string, unknown> | undefined)?.[name], pkg);
}

test.each(registeredResources.map((r) => [r.path, r.spec] as const))("%s is the class of its registered spec", (path, spec) => {
  expect((exportAt(path) as { __pulumiType?: string } | undefined)?.__pulumiType).toBe(tokenOf(spec));
});

describe.each(registeredResources.map((r) => [r.path, r.spec] as const))("%s's example", (_path, spec) => {
  test("is there, and its inputs are what the type takes (n = 0 and 1), its change too", () => {
    expect(spec.example).toBeDefined();
    for (const n of [0, 1]) expect(spec.inputs.safeParse(exampleInputs(spec, n)).error?.issues ?? []).toEqual([]);
    if (spec.example!.change) expect(spec.inputs.safeParse({ ...exampleInputs(spec, 0), ...spec.example!.change }).error?.issues ?? []).toEqual([]);
  });
});

test.each(listableSpecs().map((r) => [r.path, r.spec] as const))("%s: each example names another object (the bench seeds many of each listable type)", (_path, spec) => {
  const ids = [0, 1, 2].map((n) => spec.naturalId(spec.inputs.parse(exampleInputs(spec, n))));
  expect(new Set(ids).size).toBe(3);
});
