/** The registry: each key is the export path of the class of its spec. */
import * as pkg from "pulumi-keepstack";
import { tokenOf } from "../../provider/spec";
import { registeredResources } from "../../resources/all-specs";

function exportAt(path: string): unknown {
  return path.split(".").reduce<unknown>((ns, name) => (ns as Record<string, unknown> | undefined)?.[name], pkg);
}

test.each(registeredResources.map((r) => [r.path, r.spec] as const))("%s is the class of its registered spec", (path, spec) => {
  expect((exportAt(path) as { __pulumiType?: string } | undefined)?.__pulumiType).toBe(tokenOf(spec));
});
