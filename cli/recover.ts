/**
 * `pulumi-keepstack recover`: after a run that was killed (and `pulumi cancel`), the stack's state
 * holds the engine's record of the creates that were under way ("pending creates"): each names the
 * resource and its inputs, but not whether the object was made. For the package's resources the
 * inputs tell the object's ID (its natural ID), so the command hands each to the engine's own
 * recovery, `pulumi refresh --import-pending-creates <urn> <id>`: the refresh reads every one, keeps
 * in the state those the killed run made, and drops those it never made. Pending creates of other
 * packages are left for `pulumi refresh` to ask about, unless `--clear-others` drops them.
 *
 * Nothing is adopted from anyone else: a pending create is this stack's own record of the create it
 * sent. Objects the killed run made after its last checkpoint (or with `PULUMI_SKIP_CHECKPOINTS`)
 * have no such record; where the service records the owner, the next `up` takes them back itself.
 */
import { spawnSync } from "node:child_process";
import { Command } from "commander";
import { machineSchema, withoutProvider } from "../provider/object-machine";
import { ResourceSpec, shortTypeOf } from "../provider/spec";
import { validateInputs } from "../provider/validate";
import { objectSpecOf } from "./import";

/** A pending operation as `pulumi stack export` writes it. */
interface PendingOperation {
  type: string;
  resource: { urn: string; type: string; custom?: boolean; inputs?: Record<string, unknown> };
}

/** What the command makes of each pending create. */
export interface PendingCreate {
  urn: string;
  /** The object's ID, for the package's resources whose inputs tell it. */
  id?: string;
  /** Why it is left to the engine's own questions (another package's, inputs that tell no ID). */
  left?: string;
}

/** The package's object spec of a type token of either door; undefined for any other package's (a full token only). */
const specOfToken = (token: string): ResourceSpec | undefined => (shortTypeOf(token) === token ? undefined : objectSpecOf(token));

/** A secret in an export without `--show-secrets`: its value is not at hand (IDs are never secret). */
const SECRET_SIGNATURE = "4dabf18193072939515e22adb298388d";
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!value || typeof value !== "object") return value;
  if (SECRET_SIGNATURE in value) return "secret";
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v)]));
}

/** The pending creates of an exported deployment, each with the ID of its object where the package can tell it. */
export function pendingCreates(deployment: { pending_operations?: PendingOperation[] }): PendingCreate[] {
  return (deployment.pending_operations ?? [])
    .filter((op) => op.type === "creating")
    .map(({ resource }) => {
      const spec = specOfToken(resource.type);
      if (!spec) return { urn: resource.urn, left: "not a resource of this package" };
      const inputs = withoutProvider(withoutSecrets(resource.inputs ?? {}) as Record<string, unknown>);
      const parsed = validateInputs(machineSchema(spec), inputs);
      try {
        return { urn: resource.urn, id: spec.naturalId((parsed.value ?? inputs) as never) };
      } catch (e) {
        return { urn: resource.urn, left: `its inputs tell no ID (${e instanceof Error ? e.message : e})` };
      }
    });
}

/** Runs the Pulumi CLI, its output shown; stops with its exit code when it fails. */
function pulumi(args: string[], options: { capture?: boolean } = {}): string {
  const ran = spawnSync("pulumi", args, { stdio: options.capture ? ["inherit", "pipe", "inherit"] : "inherit", encoding: "utf8", maxBuffer: 1 << 30 });
  if (ran.error) throw new Error(`could not run pulumi (${ran.error.message}): the Pulumi CLI must be on the PATH`);
  if (ran.status !== 0) throw new Error(`pulumi ${args[0]} ${args[1] ?? ""} failed (exit code ${ran.status})`);
  return ran.stdout ?? "";
}

export function addRecoverCommand(program: Command): void {
  program
    .command("recover")
    .description(
      "after a killed run and `pulumi cancel`: settle the stack's pending creates of this package's resources by the IDs their inputs tell " +
        "(`pulumi refresh --import-pending-creates`): those the killed run made stay in the state, the others are dropped. Then run `pulumi up`.",
    )
    .option("-s, --stack <name>", "the stack (default: the selected one)")
    .option("--clear-others", "also drop the pending creates of other packages (their objects, if made, are then unknown to the state)")
    .option("--dry-run", "print the pending creates and what would be done, and change nothing")
    .action((options: { stack?: string; clearOthers?: boolean; dryRun?: boolean }) => {
      const stack = options.stack ? ["--stack", options.stack] : [];
      const exported = JSON.parse(pulumi(["stack", "export", ...stack], { capture: true })) as { deployment?: { pending_operations?: PendingOperation[] } };
      const pending = pendingCreates(exported.deployment ?? {});
      if (!pending.length) {
        console.log("The stack holds no pending creates: nothing to recover. Run `pulumi up`.");
        return;
      }
      const ours = pending.filter((p): p is PendingCreate & { id: string } => p.id !== undefined);
      const others = pending.filter((p) => p.id === undefined);
      for (const p of ours) console.log(`${p.urn}: read as ${p.id}`);
      for (const p of others) console.log(`${p.urn}: ${options.clearOthers ? "dropped" : "left as it is"}: ${p.left}`);
      if (options.dryRun) return;
      // The flag takes one value per occurrence: a URN, then its ID.
      const imports = ours.flatMap((p) => ["--import-pending-creates", p.urn, "--import-pending-creates", p.id]);
      // Non-interactive: the refresh asks nothing about the pending creates of other packages, and leaves them.
      pulumi(["refresh", "--yes", "--skip-preview", "--non-interactive", ...stack, ...imports, ...(options.clearOthers ? ["--clear-pending-creates"] : [])]);
      console.log(
        `Recovered ${ours.length} pending create${ours.length === 1 ? "" : "s"}` +
          (others.length && !options.clearOthers ? `; ${others.length} of other packages left (settle them with \`pulumi refresh\`)` : "") +
          ". Now run `pulumi up`.",
      );
    });
}
