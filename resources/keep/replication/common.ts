/**
 * What every replication resource shares: the status read (a row of the secrets service's contract,
 * no token needed), the spec's mode table for messages, the transition builder, and
 * the wait for a secondary to stream.
 *
 * A transition reads the mode first. When the cluster is already in the target mode it does nothing
 * and says so, so a run after lost state never demotes, disables or wipes anything; when the table
 * allows no such transition from the mode it fails naming the mode and what the table allows.
 */
import { z } from "zod";
import type { OperationContext } from "../../../provider/context";
import type { Endpoint } from "../../../provider/contract";
import { replication, ReplicationStatus } from "../../../provider/contracts/keep";
import { retryPolicyOf } from "../../../provider/http";
import type { KeepClient } from "../../../provider/keep-client";
import { clusterInput } from "../../../provider/keep-object";
import { InputShape, operationSpec, OperationSpec, SpecExample } from "../../../provider/spec";
import { waitFor, WaitTimeoutError } from "../../../provider/wait";

export type StatusAnswer = ReplicationStatus;
export type ReplicationMode = StatusAnswer["mode"];

/** One status read; the endpoint needs no token. */
export const readStatus = async (client: KeepClient): Promise<StatusAnswer> => (await client.send(replication.status)).body;

/** What the spec's table allows from each mode. */
export const ALLOWED_FROM: Record<ReplicationMode, string> = {
  disabled: "PrimaryEnable, SecondaryEnable",
  primary: "PrimaryDemote, PrimaryDisable, SecondaryToken, RevokeSecondary, PathsFilter",
  secondary: "SecondaryPromote, SecondaryDisable, UpdatePrimary",
};

/** `cluster "dr"` or `the default cluster`, for messages. */
export const clusterLabel = (cluster: string | undefined) => (cluster ? `cluster "${cluster}"` : "the cluster");

/** The refusal of a transition the table does not allow from the current mode. */
export function notAllowed(what: string, cluster: string | undefined, mode: ReplicationMode): Error {
  return new Error(
    `cannot ${what}: ${clusterLabel(cluster)} is in replication mode "${mode}"; from "${mode}" the replication table allows: ${ALLOWED_FROM[mode]}; nothing was changed`,
  );
}

/** A secondary's status in words, for messages. */
export function describeSecondary(status: StatusAnswer): string {
  if (status.mode !== "secondary") return `mode "${status.mode}"`;
  const primary = status.primaries[0];
  const link = primary ? `, primary ${primary.cluster_address} ${primary.connection_status}` : ", no primary";
  const error = status.connection_error ? ` (${status.connection_error})` : "";
  return `state "${status.state || "unknown"}"${link}${error}`;
}

/**
 * The API address of the primary an activation token comes from: activation tokens are JWTs whose
 * `addr` claim names it. Undefined when the token is not one (it is then not compared).
 */
export function tokenPrimaryAddress(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as { addr?: unknown };
    return typeof claims.addr === "string" ? claims.addr.replace(/\/+$/, "") : undefined;
  } catch {
    return undefined;
  }
}

/** Waits until the secondary reports `stream-wals`; fails with its status otherwise. */
export async function waitForStreaming(client: KeepClient, cluster: string | undefined, seconds: number): Promise<StatusAnswer & { mode: "secondary" }> {
  try {
    const status = await waitFor({
      probe: () => readStatus(client),
      done: (s) => s.mode === "secondary" && s.state === "stream-wals",
      timeoutMs: seconds * 1000,
      describe: `${clusterLabel(cluster)} to report state "stream-wals"`,
      show: describeSecondary,
      policy: retryPolicyOf(client.config),
      maxIntervalMs: 5_000,
    });
    return status as StatusAnswer & { mode: "secondary" };
  } catch (e) {
    if (e instanceof WaitTimeoutError) {
      throw new Error(`the secondary did not start streaming from its primary: ${e.message}; check the primary's cluster address and that the clusters can reach each other`, { cause: e });
    }
    throw e;
  }
}

/** Outputs every transition reports. */
export const transitionOutputs = {
  /** The cluster's replication mode after the run. */
  mode: z.string(),
  /** The cluster's replication cluster ID after the run ("" when disabled). */
  clusterId: z.string(),
  /** The mode at the last refresh (informational; refresh never runs the operation again). */
  currentMode: z.string().optional(),
};

/** The `cluster` input every replication resource takes. */
export const clusterShape = {
  /**
   * Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection: a program
   * manages a primary and its secondaries this way (`cluster: "dr"`).
   */
  cluster: clusterInput,
};

/** Seconds a transition waits for a secondary to stream, by default. */
export const DEFAULT_WAIT_SECONDS = 300;

type Values<S extends InputShape> = z.output<S> & { cluster?: string };

export interface TransitionDeclaration<S extends InputShape, O extends InputShape> {
  type: string;
  description: string;
  inputs: S;
  /** Example inputs (see `SpecExample`). */
  example?: SpecExample<S>;
  /** Outputs besides `mode`, `clusterId` and `currentMode`. */
  outputs?: O;
  /** What the transition does, for messages: "demote a primary". */
  what: string;
  /** The mode the table allows it from. */
  from: ReplicationMode;
  /**
   * Whether the target state holds already (the status is read first); the message says what holds.
   * Return undefined to act (when the mode is `from`); a refusal otherwise.
   */
  holds(status: StatusAnswer, values: Values<S>): string | undefined;
  /** Refusals beyond the table (a secondary of another primary). */
  refuse?(status: StatusAnswer, values: Values<S>): string | undefined;
  /** The request: a row of the replication contract and its body. */
  request(values: Values<S>): Transition;
  /** Outputs after the request; `before` is the status read first. */
  after(ctx: OperationContext, client: KeepClient, values: Values<S>, before: StatusAnswer): Promise<Record<string, unknown>>;
  /** Outputs when nothing was done. */
  unchanged?(status: StatusAnswer, values: Values<S>): Record<string, unknown>;
  acknowledgements?: OperationSpec<S>["acknowledgements"];
  secretInputs?: readonly (keyof z.output<S> & string)[];
  label?(values: z.output<S>): string;
}

/** One transition's request: a row of the table and the body it takes. */
type TransitionRows = Omit<typeof replication, "status" | "secondaryToken" | "dynamicFilter">;
export type Transition = { [K in keyof TransitionRows]: TransitionRows[K] extends Endpoint<infer Body, unknown, "error"> ? { row: TransitionRows[K]; body: Body } : never }[keyof TransitionRows];

/** Mode and cluster ID of a status. */
export const modeOf = (status: StatusAnswer) => ({ mode: status.mode, clusterId: status.mode === "disabled" ? "" : status.cluster_id });

/** An operation resource for one row of the replication table. */
export function transition<S extends InputShape, O extends InputShape = z.ZodObject<{}>>(declaration: TransitionDeclaration<S, O>) {
  const computed = z.object({ ...transitionOutputs, ...(declaration.outputs?.shape ?? {}) }) as z.ZodObject<typeof transitionOutputs & O["shape"]>;
  return operationSpec({
    module: "keep",
    type: declaration.type,
    description: declaration.description,
    inputs: declaration.inputs,
    example: declaration.example,
    computed,
    secretInputs: declaration.secretInputs,
    acknowledgements: declaration.acknowledgements,
    label: declaration.label,
    async current(ctx, values) {
      const v = values as Values<S>;
      const status = await readStatus(ctx.keep(v.cluster));
      const held = declaration.holds(status, v);
      if (held !== undefined) {
        return { computed: { ...modeOf(status), ...(declaration.unchanged?.(status, v) ?? {}) } as never, message: `${clusterLabel(v.cluster)}: ${held}` };
      }
      const refusal = declaration.refuse?.(status, v);
      if (refusal) throw new Error(`cannot ${declaration.what}: ${refusal}; nothing was changed`);
      if (status.mode !== declaration.from) throw notAllowed(declaration.what, v.cluster, status.mode);
      // The status read first goes to `run` through the context of this call.
      pendingStatus.set(values as object, status);
      return undefined;
    },
    async run(ctx, values) {
      const v = values as Values<S>;
      const client = ctx.keep(v.cluster);
      const before = pendingStatus.get(values as object) ?? (await readStatus(client));
      const { row, body } = declaration.request(v);
      // A transition answered 5xx may have happened: sending it again could be refused by the table
      // or act twice, so it is never repeated blindly.
      await client.send(row as Endpoint<unknown, unknown, "error">, { body, options: { retry: { retryWhenMayHaveActed: false } } });
      return (await declaration.after(ctx, client, v, before)) as never;
    },
    async status(ctx, values) {
      const status = await readStatus(ctx.keep((values as Values<S>).cluster));
      return { currentMode: status.mode } as never;
    },
  }) as OperationSpec<S, typeof computed>;
}

/** The status `current` read, handed to `run` of the same call (the machine calls them in turn with the same values). */
const pendingStatus = new WeakMap<object, StatusAnswer>();
