/**
 * Paths filter of one secondary, on the primary (`sys/replication/performance/primary/paths-filter/:id`):
 * `deny` keeps the listed mounts and namespaces from the secondary, `allow` sends only them. The ID
 * is the secondary's cluster ID (`clusterId` of its `SecondaryEnable`). After the secondary takes a
 * new token with update-primary the service drops the filter: refresh sees it gone and the next
 * `up` makes it again. A cluster that is no longer a primary keeps no filters, so delete has
 * nothing to do there (and a read finds none).
 */
import { z } from "zod";
import type { OperationContext } from "../../../provider/context";
import { ApiError } from "../../../provider/errors";
import { pathsFilter } from "../../../provider/contracts/keep";
import { keepObject, pathSegment, splitKeepId } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import type { ResourceSpec } from "../../../provider/spec";
import { clusterLabel, readStatus } from "./common";

/** `secret`, `/secret/` and `secret/` name the same mount: compared as `secret/`, as a set. */
export const normalizeFilterPaths = (paths: readonly string[]) =>
  [...new Set(paths.map((p) => `${p.split("/").filter((s) => s !== "").join("/")}/`))].sort();

const base = keepObject({
  type: "ReplicationPathsFilter",
  description: "The paths filter of a performance secondary, on the primary",
  rows: pathsFilter,
  id: "{secondaryClusterId}",
  inputs: z.object({
    /** The secondary's cluster ID (`clusterId` of its `SecondaryEnable`, `cluster_id` of its status). */
    secondaryClusterId: pathSegment("secondary cluster ID"),
    /** `deny` keeps the listed paths from the secondary; `allow` sends only them. */
    mode: z.enum(["allow", "deny"]),
    /** Mount paths (`secret/`, `team-a/kv/`) and namespace paths (`team-a/`); compared as a set. */
    paths: z.array(z.string().min(1, "must not be empty").refine((p) => p.replace(/\//g, "") !== "", "must name a mount or namespace")),
  }),
  fields: { paths: { fromWire: (v) => (Array.isArray(v) ? (v as string[]) : []) } },
  normalize: { paths: normalizeFilterPaths },
  example: { inputs: () => ({ secondaryClusterId: "c-0123456789", mode: "deny" as const, paths: ["transform/"] }), change: { paths: ["transform/", "secret/"] } },
});

/**
 * Whether the cluster of a filter's ID is no longer a primary: a demoted or disabled primary keeps
 * no filters, and answers 400 to their routes, so the filter is gone.
 */
async function primaryGone(ctx: OperationContext, id: string): Promise<string | undefined> {
  const { cluster } = splitKeepId(id);
  const status = await readStatus(ctx.keep(cluster));
  return status.mode === "primary" ? undefined : `${clusterLabel(cluster)} is no longer a primary (mode "${status.mode}")`;
}

export const pathsFilterSpec: typeof base = {
  ...base,
  async read(ctx, id, state) {
    try {
      return await base.read(ctx, id, state);
    } catch (e) {
      if (e instanceof ApiError && e.status === 400 && (await primaryGone(ctx, id))) return undefined;
      throw e;
    }
  },
  async delete(ctx, id, state) {
    const gone = await primaryGone(ctx, id);
    if (gone) {
      ctx.info(`keep:ReplicationPathsFilter "${id}": ${gone}: it keeps no paths filter, nothing to delete`);
      return;
    }
    await base.delete(ctx, id, state);
  },
} satisfies ResourceSpec<typeof base.inputs, typeof base.computed>;

/**
 * The paths filter of one secondary on the primary; refresh sees it dropped after update-primary.
 * ID: the secondary's cluster ID, or `<cluster>@<id>` when the primary is a named cluster.
 */
export const PathsFilter = defineResource(pathsFilterSpec);
export type PathsFilter = InstanceType<typeof PathsFilter>;
export type PathsFilterArgs = ResourceArgs<typeof pathsFilterSpec.inputs>;
