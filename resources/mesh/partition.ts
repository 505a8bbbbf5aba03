/**
 * Admin partition: `PUT /partition`, `GET|PUT|DELETE /partition/:name`. Delete only marks the
 * partition; the service deletes its data in the background, and the resource waits for that.
 */
import { z } from "zod";
import { OperationContext } from "../../provider/context";
import { mesh, MeshPartition } from "../../provider/contracts/mesh";
import { MeshClient, meshRefusalOf } from "../../provider/mesh-client";
import { defineResource, ResourceArgs } from "../../provider/resource";
import { ApiError } from "../../provider/errors";
import { Owner, ownerOf, OWNER_KEY, sameResource, withOwnerNote, withoutOwnerNote } from "../../provider/owner";
import { nth, resourceSpec } from "../../provider/spec";
import { retryPolicyOf } from "../../provider/http";
import { waitFor, WaitTimeoutError } from "../../provider/wait";

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

/** The partition, read consistently; undefined when it does not exist. */
async function readPartition(client: MeshClient, name: string): Promise<MeshPartition | undefined> {
  return (await client.send(mesh.readPartition, { params: { name }, options: { consistent: true } }))?.body;
}

/**
 * Waits (consistent reads, the retry policy's backoff, at most 5 s apart) until the partition is
 * gone; throws `WaitTimeoutError` (its `lastState` the partition still there) after `timeoutMs`.
 */
export async function waitForPartitionRemoval(client: MeshClient, name: string, timeoutMs: number): Promise<void> {
  await waitFor({
    probe: () => readPartition(client, name),
    done: (partition) => partition === undefined,
    timeoutMs,
    describe: `partition "${name}" to be removed`,
    show: (partition) => (partition?.DeletedAt ? `marked for deletion at ${partition.DeletedAt}` : "present, not marked for deletion"),
    policy: retryPolicyOf(client.config),
    maxIntervalMs: 5_000,
  });
}

/** The body of a write: the description carries the owner's note on its last line (one owner). */
const partitionBody = (args: Pick<Inputs, "name" | "description">, owner: Owner | undefined) => ({
  Name: args.name,
  Description: recordsOwner(args) ? withOwnerNote(args.description, owner) : args.description,
});

/** The built-in partition is the service's: no stack records itself as its owner. */
const recordsOwner = (args: Pick<Inputs, "name">) => args.name !== DEFAULT_PARTITION;

async function createPartition(ctx: OperationContext, args: Inputs, owner: Owner | undefined): Promise<MeshPartition> {
  const client = ctx.mesh();
  try {
    return (await client.send(mesh.createPartition, { body: partitionBody(args, owner) })).body;
  } catch (e) {
    const refusal = meshRefusalOf(e);
    // Taken: by an earlier attempt whose answer was lost (the machine takes it over), or by someone
    // else (the machine refuses it by name).
    if (refusal !== "being-deleted") throw e;
  }
  // The name is still being deleted: the service refuses it until the background deletion finishes.
  ctx.warn(`mesh:Partition "${args.name}": the name is still being deleted on the service; waiting for the deletion to finish`);
  const timeoutMs = timeoutMsOf(args.deletionTimeoutSeconds);
  try {
    await waitForPartitionRemoval(client, args.name, timeoutMs);
  } catch (e) {
    if (!(e instanceof WaitTimeoutError)) throw e;
    throw new Error(
      `partition "${args.name}" is still being deleted after ${timeoutMs / 1000} s (${e.lastSeen}), so it cannot be created again yet: run again later, or raise deletionTimeoutSeconds`,
    );
  }
  return (await client.send(mesh.createPartition, { body: partitionBody(args, owner) })).body;
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
  ownerRecord: { where: "a last line of its description: `(managed by Pulumi stack <project>/<stack>, resource <name>)`", rewritable: true, appliesTo: recordsOwner },

  async create(ctx, args, owner) {
    const created = await createPartition(ctx, args, owner);
    return { id: created.Name, computed: computedOf(created) };
  },

  async read(ctx, id, state) {
    const found = await readPartition(ctx.mesh(), id);
    if (!found) return undefined;
    // A managed (or adopted) partition marked for deletion is as good as gone. A read-only reference
    // (`get`, whose prior state holds no name) shows it with its deletedAt.
    const reference = state !== undefined && state.name === undefined;
    if (found.DeletedAt && !reference) return undefined;
    const { text: description, owner } = withoutOwnerNote(found.Description);
    return { inputs: { name: found.Name, description }, computed: computedOf(found), owner };
  },

  async update(ctx, id, args, olds, owner) {
    // Only deletionTimeoutSeconds changed (and the recorded owner stands): nothing to send.
    const recorded = ownerOf(olds[OWNER_KEY]);
    const sameOwner = recorded && owner ? sameResource(recorded, owner) : recorded === owner;
    if (args.description === olds.description && sameOwner && typeof olds.createIndex === "number" && typeof olds.modifyIndex === "number") {
      return { createIndex: olds.createIndex, modifyIndex: olds.modifyIndex };
    }
    try {
      return computedOf((await ctx.mesh().send(mesh.updatePartition, { params: { name: id }, body: partitionBody({ name: id, description: args.description }, owner) })).body);
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
      await client.send(mesh.deletePartition, { params: { name: id } });
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
      await waitForPartitionRemoval(client, id, timeoutMs);
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
    const { body: partitions } = await ctx.mesh().send(mesh.listPartitions);
    return partitions.filter((p) => p.Name !== DEFAULT_PARTITION && !p.DeletedAt).map((p) => p.Name);
  },
  example: { inputs: (n) => ({ name: nth("team-a", n), description: "Team A" }), change: { description: "Team A, again" } },
});

/** An admin partition of the mesh service (enterprise edition 1.11.0 and later). ID: the name. */
export const Partition = defineResource(partitionSpec);
export type Partition = InstanceType<typeof Partition>;
export type PartitionArgs = ResourceArgs<typeof inputs>;
