/**
 * Administrative partitions of the mesh emulator, following the spec's state table:
 * none → active (create) → active (update) → marked for deletion (delete; DeletedAt set, reads still
 * work) → removed (background deletion after a configurable delay).
 */
import { badRequest, notFound, serverRefusal } from "./errors";
import { RaftIndex } from "./raft-index";

export interface Partition {
  Name: string;
  Description: string;
  /** RFC 3339; present only once the partition is marked for deletion. */
  DeletedAt?: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export const DEFAULT_PARTITION = "default";

const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isValidPartitionName(name: unknown): name is string {
  return typeof name === "string" && DNS_LABEL.test(name);
}

export function assertValidPartitionName(name: unknown): asserts name is string {
  if (!isValidPartitionName(name)) {
    throw badRequest(`Invalid partition name ${JSON.stringify(name ?? "")}: must be a valid DNS hostname label`);
  }
}

export class PartitionStore {
  private readonly partitions = new Map<string, Partition>();
  private readonly removals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly index: RaftIndex,
    private deletionDelayMs: number,
  ) {
    const at = index.next();
    this.partitions.set(DEFAULT_PARTITION, {
      Name: DEFAULT_PARTITION,
      Description: "Builtin Default Partition",
      CreateIndex: at,
      ModifyIndex: at,
    });
  }

  setDeletionDelay(ms: number): void {
    this.deletionDelayMs = ms;
  }

  get(name: string): Partition | undefined {
    const found = this.partitions.get(name);
    return found && { ...found };
  }

  /** Sorted by name, as the real service lists from its name index. */
  list(): Partition[] {
    return [...this.partitions.values()].sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0)).map((p) => ({ ...p }));
  }

  create(name: string, description: string): Partition {
    const existing = this.partitions.get(name);
    // Both refusals are decided by the servers, hence 500 with the message (see errors.ts).
    if (existing?.DeletedAt) throw serverRefusal(`Partition "${name}" is being deleted; it cannot be created again until deletion completes`);
    if (existing) throw serverRefusal(`Partition "${name}" already exists`);
    const at = this.index.next();
    const created: Partition = { Name: name, Description: description, CreateIndex: at, ModifyIndex: at };
    this.partitions.set(name, created);
    return { ...created };
  }

  update(name: string, description: string): Partition {
    const existing = this.partitions.get(name);
    if (!existing) throw notFound(`Partition "${name}" not found`);
    // The state table has no update from "marked for deletion".
    if (existing.DeletedAt) throw serverRefusal(`Partition "${name}" is being deleted and cannot be modified`);
    existing.Description = description;
    existing.ModifyIndex = this.index.next();
    return { ...existing };
  }

  /**
   * Marks for deletion and, unless `scheduleRemoval` is false, removes the partition after the deletion
   * delay. Deleting an absent or already-marked partition succeeds without change, as deletes of the real
   * service are idempotent.
   */
  markDeleted(name: string, scheduleRemoval = true): Partition | undefined {
    if (name === DEFAULT_PARTITION) throw serverRefusal(`Cannot delete the default partition`);
    const existing = this.partitions.get(name);
    if (!existing) return undefined;
    if (!existing.DeletedAt) {
      existing.DeletedAt = new Date().toISOString();
      existing.ModifyIndex = this.index.next();
    }
    if (scheduleRemoval && !this.removals.has(name)) {
      if (this.deletionDelayMs === 0) {
        // Removed once this request is answered, before any later request is read: no clock involved.
        setImmediate(() => this.removeNow(name));
      } else {
        const timer = setTimeout(() => this.removeNow(name), this.deletionDelayMs);
        timer.unref();
        this.removals.set(name, timer);
      }
    }
    return { ...existing };
  }

  /** Out-of-band removal, skipping the deletion state. */
  removeNow(name: string): boolean {
    const timer = this.removals.get(name);
    if (timer) clearTimeout(timer);
    this.removals.delete(name);
    return this.partitions.delete(name);
  }

  dispose(): void {
    for (const timer of this.removals.values()) clearTimeout(timer);
    this.removals.clear();
  }
}
