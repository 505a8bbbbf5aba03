/**
 * The creates a machine's resources sent, kept on the machine that ran them (ARCHITECTURE.md, "One owner"):
 * what a run killed before the engine recorded its creates (between two checkpoints, or with
 * `PULUMI_SKIP_CHECKPOINTS`) leaves of the objects it made, for the types whose service has no room
 * to record an owner. A later create of the same resource that meets the object takes it back; any
 * other create still refuses it. An entry is written before the create's first write, and removed
 * when the resource deletes the object or a read finds it gone.
 *
 * One file per entry (writes of parallel providers never meet), under `KEEPSTACK_CREATE_JOURNAL`, or
 * `keepstack/creates` in the Pulumi home (`PULUMI_HOME`, `~/.pulumi`).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { OperationContext } from "./context";
import type { Owner } from "./owner";

/** A create sent: which resource of which stack made which object, where. */
export interface SentCreate {
  owner: Owner;
  /** Short type (`keep:AclPolicy`). */
  type: string;
  /** The object's natural ID. */
  id: string;
  /** The address of its service. */
  address: string;
}

export const CREATE_JOURNAL_ENV = "KEEPSTACK_CREATE_JOURNAL";

function journalDir(ctx: Pick<OperationContext, "envValue">): string {
  const home = ctx.envValue("PULUMI_HOME") || path.join(os.homedir(), ".pulumi");
  return ctx.envValue(CREATE_JOURNAL_ENV) || path.join(home, "keepstack", "creates");
}

/** The entry's file: one per object of one stack (the resource is what an entry says). */
function entryFile(ctx: Pick<OperationContext, "envValue">, sent: Omit<SentCreate, "owner"> & { owner: Pick<Owner, "project" | "stack"> }): string {
  const key = JSON.stringify([sent.owner.project, sent.owner.stack, sent.type, sent.address, sent.id]);
  return path.join(journalDir(ctx), `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
}

/** Notes a create about to be sent. A journal that cannot be written costs only the take-back, so it never fails the create. */
export function noteCreate(ctx: Pick<OperationContext, "envValue">, sent: SentCreate): void {
  try {
    const file = entryFile(ctx, sent);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ ...sent, at: new Date().toISOString() }));
  } catch {
    // Without the entry, a killed run's object is refused by the next create, as any other.
  }
}

/** Whether this resource sent a create of this object, here, that no delete or read has settled since. */
export function sentByThisResource(ctx: Pick<OperationContext, "envValue">, sent: SentCreate): boolean {
  try {
    const entry = JSON.parse(fs.readFileSync(entryFile(ctx, sent), "utf8")) as Partial<SentCreate>;
    return entry.owner?.resource === sent.owner.resource && entry.type === sent.type && entry.id === sent.id && entry.address === sent.address;
  } catch {
    return false;
  }
}

/** Forgets a create: the object was deleted, or found gone. */
export function forgetCreate(ctx: Pick<OperationContext, "envValue">, sent: Omit<SentCreate, "owner"> & { owner: Pick<Owner, "project" | "stack"> }): void {
  try {
    fs.rmSync(entryFile(ctx, sent), { force: true });
  } catch {
    // Left, the entry would let this resource take back an object made again at that ID.
  }
}
