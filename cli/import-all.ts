/**
 * `pulumi-keepstack import --all`: every listable object of every configured service, read into
 * one list the program printer turns into a program. Generic over the registry: each object spec
 * with a `list` is listed (in every namespace of the secrets service), each listed ID is read, and
 * built-in objects and operations are left out.
 */
import { adviceFor } from "../provider/advice";
import { ConfigLookup, SETTINGS, settingLabel } from "../provider/config";
import { createContext, OperationContext } from "../provider/context";
import { namespaces } from "../provider/contracts/keep";
import { ApiError } from "../provider/errors";
import { keepId } from "../provider/keep-object";
import { isOperationSpec, ResourceSpec, ServiceModule, shortTypeOf, tokenOf } from "../provider/spec";
import { registeredResources } from "../resources/all-specs";
import type { ImportedObject } from "./program-text";

/** Object specs that can list what a service holds, with the export path of their class. */
export function listableSpecs(): { path: string; spec: ResourceSpec }[] {
  return registeredResources
    .filter((r) => !isOperationSpec(r.spec) && (r.spec as ResourceSpec).list && !(r.spec as ResourceSpec).notImportable)
    .map((r) => ({ path: r.path, spec: r.spec as ResourceSpec }));
}

/** What `--all` leaves out, and why. */
export interface LeftOut {
  /** `keep:AclPolicy default`, or a whole type (`keep:Rekey`). */
  what: string;
  why: string;
}

/** The closing lines of `--all`: what it left out, grouped by reason. */
export function leftOutSummary(leftOut: LeftOut[]): string {
  const byReason = new Map<string, string[]>();
  for (const l of leftOut) byReason.set(l.why, [...(byReason.get(l.why) ?? []), l.what]);
  const lines = ["Left out of the program:"];
  for (const [why, what] of byReason) {
    const shown = what.slice(0, 24).join(", ") + (what.length > 24 ? `, and ${what.length - 24} more` : "");
    lines.push(`- ${shown}: ${why}`);
  }
  return `${lines.join("\n")}\n`;
}

const BUILT_IN = "built in: the service makes them (declare one with adopt: true to manage it)";

/** Whether an answer means this token may not do it (the object is there, the token cannot see it). */
const refused = (e: unknown): e is ApiError => e instanceof ApiError && (e.status === 401 || e.status === 403);

/** Services whose address is set through `--config` or the environment (defaults do not count). */
export function configuredServices(lookup: ConfigLookup, env: NodeJS.ProcessEnv): ServiceModule[] {
  return (Object.keys(SETTINGS) as ServiceModule[]).filter((service) => {
    const address = SETTINGS[service].find((s) => s.key === "address")!;
    return Boolean(lookup(`${service}:address`) || (address.env && env[address.env]));
  });
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of the results. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Answers that mean "nothing of that kind here": no such mount, or no such route on this server. */
function meansNone(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 404 || e.status === 405);
}

/**
 * Every namespace under `base` (the configured namespace, or the root as ""), base first, by full
 * path: `sys/namespaces` lists only the children of the namespace a request names.
 */
export async function listNamespaces(ctx: OperationContext, base: string, limit: number): Promise<string[]> {
  const found: string[] = [base];
  let level = [base];
  while (level.length) {
    const children = await mapLimited(level, limit, async (ns) => {
      // A service without namespaces answers 404 or 405: the base alone.
      const keys = await ctx
        .keep()
        .send(namespaces.list, { options: { namespace: ns } })
        .then((answer) => answer?.body ?? [])
        .catch((e: unknown) => {
          if (meansNone(e)) return [];
          throw e;
        });
      return keys.map((k) => `${ns ? `${ns}/` : ""}${k.replace(/\/+$/, "")}`);
    });
    level = children.flat();
    found.push(...level);
  }
  return found.sort();
}

/**
 * Fails, naming the setting, when the configured namespace does not exist: listing under it would
 * find nothing and say nothing. A service without namespaces (404 or 405 on the read) passes.
 */
export async function requireNamespace(ctx: OperationContext): Promise<void> {
  const base = ctx.config("keep").namespace;
  if (!base) return;
  const segments = base.replace(/\/+$/, "").split("/");
  const name = segments.pop()!;
  const parent = segments.join("/");
  const found = await ctx
    .keep()
    .send(namespaces.read, { params: { path: name }, options: { namespace: parent } })
    .catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 405) return "no namespaces here";
      throw e;
    });
  if (found === undefined) {
    throw new Error(`namespace "${base}" does not exist${parent ? ` in namespace "${parent}"` : ""}: check ${settingLabel("keep", "namespace")}, or create it (POST sys/namespaces/${name})`);
  }
}

export interface ImportAllOptions {
  /** Settings as `--config` gives them (`keep:address`, ...); the environment fills the rest. */
  lookup: ConfigLookup;
  env?: NodeJS.ProcessEnv;
  /** Requests in flight at once (default 8, well inside the services' rate limits). */
  concurrency?: number;
  /** Progress messages (the command writes them to standard error). */
  progress?(message: string): void;
  /** Told of each object or type left out of the program, with the reason. */
  leftOut?(entry: LeftOut): void;
}

interface Listing {
  path: string;
  spec: ResourceSpec;
  /** The secrets service's namespace the listing ran in; "" is the root (or the configured one). */
  namespace?: string;
}

/** Reads every listable object of every configured service; sorted by class path, then ID. */
export async function importAll(options: ImportAllOptions): Promise<ImportedObject[]> {
  const env = options.env ?? process.env;
  const limit = options.concurrency ?? 8;
  const progress = options.progress ?? (() => {});
  const leaveOut = options.leftOut ?? (() => {});
  const services = configuredServices(options.lookup, env);
  if (services.length === 0) {
    throw new Error("no service is configured: set KEEP_ADDR, WORKSPACES_ADDR or MESH_HTTP_ADDR (or --config keep:address=...)");
  }
  const ctx = createContext(options.lookup, env);
  const specs = listableSpecs().filter((s) => services.includes(s.spec.module));
  for (const r of registeredResources) {
    if (!services.includes(r.spec.module)) continue;
    const type = shortTypeOf(tokenOf(r.spec));
    if (isOperationSpec(r.spec)) leaveOut({ what: type, why: "operations run, they are not objects a service holds" });
    else if ((r.spec as ResourceSpec).notImportable) leaveOut({ what: type, why: (r.spec as ResourceSpec).notImportable! });
    else if (!(r.spec as ResourceSpec).list) leaveOut({ what: type, why: "the service cannot list them: import them by ID (pulumi-keepstack import <type> <id>)" });
    else if ((r.spec as ResourceSpec).builtIn) leaveOut({ what: `built-in ${type} objects`, why: BUILT_IN });
  }

  // The secrets service is listed in each namespace through a context whose namespace is that one;
  // the objects then carry their namespace in their IDs (and so as an input), never through settings.
  const listings: Listing[] = [];
  if (services.includes("keep")) {
    await requireNamespace(ctx);
    const base = ctx.config("keep").namespace ?? "";
    const namespaces = await listNamespaces(ctx, base, limit);
    progress(`keep: ${namespaces.length} namespace${namespaces.length === 1 ? "" : "s"}`);
    for (const namespace of namespaces) for (const s of specs) if (s.spec.module === "keep") listings.push({ ...s, namespace });
  }
  for (const s of specs) if (s.spec.module !== "keep") listings.push(s);

  const contexts = new Map<string, OperationContext>();
  const contextOf = (namespace: string | undefined) => {
    if (namespace === undefined) return ctx;
    let c = contexts.get(namespace);
    if (!c) {
      c = createContext((key) => (key === "keep:namespace" ? namespace : options.lookup(key)), { ...env, KEEP_NAMESPACE: namespace });
      contexts.set(namespace, c);
    }
    return c;
  };

  const listed = await mapLimited(listings, limit, async (l) => {
    let ids: string[];
    const where = `${l.path}${l.namespace ? ` in namespace ${l.namespace}` : ""}`;
    try {
      ids = await l.spec.list!(contextOf(l.namespace));
    } catch (e) {
      if (refused(e)) {
        leaveOut({ what: `every ${shortTypeOf(tokenOf(l.spec))}${l.namespace ? ` in namespace ${l.namespace}` : ""}`, why: `this token may not list them (${e.method} ${e.path} returned ${e.status}): ${adviceFor(e)}` });
        return [];
      }
      if (!meansNone(e)) throw new Error(`listing ${where}: ${e instanceof Error ? e.message : e}. ${e instanceof ApiError ? adviceFor(e) : ""}`.trim());
      ids = [];
    }
    if (ids.length) progress(`${l.path}${l.namespace ? ` (${l.namespace})` : ""}: ${ids.length}`);
    return ids.map((id) => ({ spec: l.spec, path: l.path, id: l.namespace ? keepId({ namespace: l.namespace }, id) : id }));
  });
  const builtInOf = (t: { spec: ResourceSpec; id: string }, inputs: Record<string, unknown>) => {
    const what = t.spec.builtIn?.(inputs as never);
    if (what) leaveOut({ what: `${shortTypeOf(tokenOf(t.spec))} ${t.id}`, why: BUILT_IN });
    return what;
  };
  const targets = listed.flat().filter((t) => !builtInOf(t, t.spec.fromId(t.id)));

  let done = 0;
  const step = Math.max(100, Math.ceil(targets.length / 10));
  progress(`reading ${targets.length} objects`);
  const read = await mapLimited(targets, limit, async (t): Promise<ImportedObject | undefined> => {
    let found: Awaited<ReturnType<ResourceSpec["read"]>>;
    try {
      found = await t.spec.read(ctx, t.id);
    } catch (e) {
      if (!refused(e)) throw e;
      leaveOut({ what: `${shortTypeOf(tokenOf(t.spec))} ${t.id}`, why: `not readable with this token (${e.method} ${e.path} returned ${e.status}): ${adviceFor(e)}` });
      return undefined;
    }
    if (++done % step === 0) progress(`read ${done}/${targets.length}`);
    // Listed, then gone before the read: nothing to adopt.
    if (!found) return undefined;
    const inputs = { ...t.spec.fromId(t.id), ...found.inputs } as Record<string, unknown>;
    if (builtInOf(t, inputs)) return undefined;
    return { spec: t.spec, id: found.id ?? t.id, inputs, owner: found.owner };
  });
  const objects = read.filter((o): o is ImportedObject => o !== undefined);
  progress(`read ${objects.length} objects`);
  for (const service of services) {
    if (objects.some((o) => o.spec.module === service)) continue;
    const namespace = service === "keep" ? ctx.config("keep").namespace : undefined;
    progress(`${service}: no object to import${namespace ? ` in namespace "${namespace}" or below` : ""}`);
  }
  const key = (o: ImportedObject) => `${shortTypeOf(tokenOf(o.spec))}\u0000${o.id}`;
  return objects.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
