/**
 * Admin partition: `PUT /partition`, `GET|PUT|DELETE /partition/:name`. Delete only marks the
 * partition; the service deletes its data in the background, and the resource waits for that.
 */
import { z } from "zod";
import { OperationContext } from "../../provider/context";
import { MeshPartition } from "../../provider/contracts/mesh";
import { meshRefusalOf } from "../../provider/mesh-client";
import { defineResource, ResourceArgs } from "../../provider/resource";
import { ApiError } from "../../provider/errors";
import { resourceSpec } from "../../provider/spec";
import { WaitTimeoutError } from "../../provider/wait";

/** The built-in partition, which the service never deletes. */
export const DEFAULT_PARTITION = "default";

const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const DEFAULT_DELETION_TIMEOUT_SECONDS = 300;

const inputs = z.object({
  /**
   * Partition name: a DNS hostname label (letters, digits and hyphens, 1 to 63 characters, no hyphen
   * at either end). Changing it replaces the partition.
   */
  name: z.string().regex(DNS_LABEL, "must be a DNS hostname label: 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen"),
  /** Free-form description; updated in place. */
  description: z.string().default(""),
  /**
   * How long destroy waits for the service to finish deleting the partition's data, and how long a
   * create waits when the name is still being deleted (default 300 seconds).
   */
  deletionTimeoutSeconds: z.number().positive("must be a number of seconds above 0").optional(),
});

const computed = z.object({
  /** Index of the write that created the partition. */
  createIndex: z.number(),
  /** Index of the last write to the partition. */
  modifyIndex: z.number(),
  /** When the partition was marked for deletion (RFC 3339); only set on a read-only reference (`get`). */
  deletedAt: z.string().optional(),
});

type Inputs = z.output<typeof inputs>;

const computedOf = (p: MeshPartition): z.output<typeof computed> => ({
  createIndex: p.CreateIndex,
  modifyIndex: p.ModifyIndex,
  ...(p.DeletedAt ? { deletedAt: p.DeletedAt } : {}),
});

const timeoutMsOf = (seconds: unknown) =>
  (typeof seconds === "number" && seconds > 0 ? seconds : DEFAULT_DELETION_TIMEOUT_SECONDS) * 1000;

const serviceSaid = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** "Already exists": the name is taken (by this create's own lost attempt, or by someone else). */
const isConflict = (error: ApiError) => meshRefusalOf(error) === "already-exists";

async function createPartition(ctx: OperationContext, args: Inputs): Promise<MeshPartition> {
  const client = ctx.mesh();
  try {
    return await client.createPartition(args.name, args.description);
  } catch (e) {
    const refusal = meshRefusalOf(e);
    // An earlier attempt may have made it before its answer was lost: the machine takes it over.
    if (e instanceof ApiError && isConflict(e) && e.earlierAttemptMayHaveActed) throw e;
    if (refusal === "already-exists") {
      throw new Error(
        `partition "${args.name}" already exists on the service (${serviceSaid(e)}): set \`adopt: true\` to manage it, or choose another name`,
      );
    }
    if (refusal !== "being-deleted") throw e;
  }
  // The name is still being deleted: the service refuses it until the background deletion finishes.
  ctx.warn(`mesh:Partition "${args.name}": the name is still being deleted on the service; waiting for the deletion to finish`);
  const timeoutMs = timeoutMsOf(args.deletionTimeoutSeconds);
  try {
    await client.waitForPartitionRemoval(args.name, timeoutMs);
  } catch (e) {
    if (!(e instanceof WaitTimeoutError)) throw e;
    throw new Error(
      `partition "${args.name}" is still being deleted after ${timeoutMs / 1000} s (${e.lastSeen}), so it cannot be created again yet: run again later, or raise deletionTimeoutSeconds`,
    );
  }
  return client.createPartition(args.name, args.description);
}

export const partitionSpec = resourceSpec({
  module: "mesh",
  type: "Partition",
  inputs,
  computed,
  replaceOnChanges: ["name"],
  naturalId: (args) => args.name,
  fromId: (id) => ({ name: id }),
  isConflict,

  async create(ctx, args) {
    const created = await createPartition(ctx, args);
    return { id: created.Name, computed: computedOf(created) };
  },

  async read(ctx, id, state) {
    const found = await ctx.mesh().readPartition(id, { consistent: true });
    if (!found) return undefined;
    // A managed (or adopted) partition marked for deletion is as good as gone. A read-only reference
    // (`get`, whose prior state holds no name) shows it with its deletedAt.
    const reference = state !== undefined && state.name === undefined;
    if (found.DeletedAt && !reference) return undefined;
    return { inputs: { name: found.Name, description: found.Description }, computed: computedOf(found) };
  },

  async update(ctx, id, args, olds) {
    // Only deletionTimeoutSeconds changed: nothing to send.
    if (args.description === olds.description && typeof olds.createIndex === "number" && typeof olds.modifyIndex === "number") {
      return { createIndex: olds.createIndex, modifyIndex: olds.modifyIndex };
    }
    try {
      return computedOf(await ctx.mesh().updatePartition(id, args.description));
    } catch (e) {
      if (meshRefusalOf(e) === "being-deleted") {
        throw new Error(
          `partition "${id}" is being deleted on the service and can no longer be changed (${serviceSaid(e)}): run refresh to drop it from the state, then up creates it again`,
        );
      }
      throw e;
    }
  },

  async delete(ctx, id, state) {
    const client = ctx.mesh();
    try {
      await client.deletePartition(id);
    } catch (e) {
      if (meshRefusalOf(e) === "default-partition") {
        throw new Error(
          `the built-in partition "${DEFAULT_PARTITION}" cannot be deleted; the service refused (${serviceSaid(e)}). ` +
            "To stop managing it, remove it from the stack's state (`pulumi state delete <urn>`) instead of destroying it",
        );
      }
      throw e;
    }
    const timeoutMs = timeoutMsOf(state.deletionTimeoutSeconds);
    try {
      await client.waitForPartitionRemoval(id, timeoutMs);
    } catch (e) {
      if (!(e instanceof WaitTimeoutError)) throw e;
      throw new Error(
        `partition "${id}" is marked for deletion, but the service had not finished deleting its data after ${timeoutMs / 1000} s (${e.lastSeen}); ` +
          "the deletion goes on in the background: run destroy again later, or raise deletionTimeoutSeconds",
      );
    }
  },
  async list(ctx) {
    // The built-in partition and partitions on their way out are not objects to manage.
    const partitions = await ctx.mesh().listPartitions();
    return partitions.filter((p) => p.Name !== DEFAULT_PARTITION && !p.DeletedAt).map((p) => p.Name);
  },
});

/** An admin partition of the mesh service (enterprise edition 1.11.0 and later). ID: the name. */
export const Partition = defineResource(partitionSpec);
export type Partition = InstanceType<typeof Partition>;
export type PartitionArgs = ResourceArgs<typeof inputs>;
