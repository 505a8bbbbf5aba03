/**
 * The generic machine: turns a ResourceSpec into the operations of a Pulumi dynamic provider.
 * `check` and `diff` are pure (no HTTP); every other operation goes through the spec's service calls.
 */
import { z } from "zod";
import { failureMessage } from "./advice";
import type { OperationContext } from "./context";
import { ApiError, ConfigError, isNotFound, ObjectExistsError, PartialCreateError } from "./errors";
import { Owner, ownerLabel, ownerOf, OWNER_KEY, sameResource, sameStack, TAKE_OVER_KEY } from "./owner";
import { forgetCreate, noteCreate, SentCreate, sentByThisResource } from "./create-journal";
import { fingerprintReference, isSecretReference, resolveReference, SecretReferenceError } from "./secret-ref";
import { isSameCluster, settingLabel, type ServiceConfig } from "./config";
import { ResourceSpec, ServiceModule, shortTypeOf, tokenOf } from "./spec";
import { containsUnknown, isUnknown } from "./unknowns";
import { CheckFailure, validateInputs } from "./validate";

export const PROVIDER_KEY = "__provider";
/**
 * The dynamic resources' `replaceOnChanges` option, passed as a hidden input: the engine applies the
 * option to the properties a provider's diff names, and the dynamic provider host passes none on
 * (it sends `replaces` alone), so the machine applies it itself.
 */
export const REPLACE_ON_CHANGES_KEY = "__replaceOnChanges";
/** The adoption input every CRUD resource accepts. */
export const ADOPT_KEY = "adopt";
/**
 * The address of the service an object was made (and last managed) at, kept beside its inputs and
 * outputs: an object does not move when its service's address changes, so neither may the state.
 */
export const ADDRESS_KEY = "__address";

export type Props = Record<string, unknown>;

export interface DiffResult {
  changes: boolean;
  /** The inputs that changed (the plugin door shows each, with its kind). */
  diffs: string[];
  replaces: string[];
  stables: string[];
  deleteBeforeReplace: boolean;
}

/** Outputs must be plain JSON: no undefined, no Date, no class instances. */
export function toPlainJson<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/** The props without what is kept beside the inputs (the dynamic host's provider text, the replaceOnChanges option, the service's address, the owner). */
export function withoutProvider(props: Props): Props {
  const { [PROVIDER_KEY]: _provider, [REPLACE_ON_CHANGES_KEY]: _replaceOnChanges, [ADDRESS_KEY]: _address, [OWNER_KEY]: _owner, ...rest } = props;
  return rest;
}

/** The address of a resource's service as its settings give it now; undefined where they cannot (a problem reported apart). */
function serviceAddress(service: ServiceModule, cluster: unknown, ctx: OperationContext): ServiceConfig | undefined {
  try {
    return ctx.config(service, typeof cluster === "string" && !isUnknown(cluster) ? cluster : undefined);
  } catch {
    // As `connectionProblems`: settings that cannot be read are reported there, or at the first request.
    return undefined;
  }
}

/**
 * Why an object recorded at one address cannot be managed through the settings of another, with
 * the ways forward; undefined when they name the same cluster (or nothing was recorded).
 */
export function movedAddressProblem(spec: Pick<ResourceSpec, "module">, what: string, recorded: unknown, cluster: unknown, ctx: OperationContext): string | undefined {
  if (typeof recorded !== "string") return undefined;
  const config = serviceAddress(spec.module, cluster, ctx);
  if (!config || isSameCluster(recorded, config)) return undefined;
  const named = typeof cluster === "string" && !isUnknown(cluster) ? cluster : undefined;
  const address = settingLabel(spec.module, "address", named, config.names);
  const previous = settingLabel(spec.module, "previousAddresses", named, config.names).split(" ")[0];
  return (
    `${what} was made at ${recorded}, and ${address} now names ${config.address}: objects do not move with an address, ` +
    `and this stack would lose ${recorded}'s object. Set ${address} back to ${recorded} to manage it there; ` +
    `if ${config.address} reaches the same cluster, add ${recorded} to ${previous}; ` +
    `to move the objects, destroy them with the old address first (or forget them with \`pulumi state delete\`), then up with the new one`
  );
}

/** Whether `replaceOnChanges` (property paths, `*` for any) names a changed input. */
function forcedReplacement(option: unknown, key: string): boolean {
  if (!Array.isArray(option)) return false;
  return option.some((path) => typeof path === "string" && (path === "*" || path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`) || path.startsWith(`["${key}"]`)));
}

/** Canonical JSON (sorted keys) for comparing values. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Props)[k]]))
      : v,
  );
}

export class ResourceOperationError extends Error {
  override readonly name = "ResourceOperationError";
  constructor(
    readonly token: string,
    readonly objectId: string,
    readonly operation: string,
    override readonly cause: unknown,
  ) {
    super(describe(token, objectId, operation, cause));
  }
}

export function describe(token: string, objectId: string, operation: string, cause: unknown): string {
  const type = shortTypeOf(token);
  const head = `${type} "${objectId}": ${operation} failed`;
  if (cause instanceof ApiError) return failureMessage(head, cause);
  if (cause instanceof ConfigError) return `${head}: ${cause.message}`;
  return `${head}: ${cause instanceof Error ? cause.message : String(cause)}`;
}

/**
 * A refusal that names, quoted, the value of an input that refers to another object (the spec's
 * `references`: a transformation's template) gets advice naming that input and what to check,
 * instead of the generic "fix the property it names".
 */
function withReferenceAdvice(spec: ResourceSpec, inputs: Props, e: unknown): unknown {
  if (!(e instanceof ApiError) || (e.status !== 400 && e.status !== 404) || !spec.references) return e;
  const said = e.messages.join(" ");
  for (const [key, ref] of Object.entries(spec.references as Record<string, { types: readonly string[] } | undefined>)) {
    const values = ([] as unknown[]).concat(inputs[key] ?? []).filter((v): v is string => typeof v === "string");
    const named = values.find((v) => said.includes(`"${v}"`));
    if (!ref || !named) continue;
    return e.withAdvice(
      `check ${key}: "${named}" names no ${ref.types.join(" or ")} the service holds; declare it in this program and pass its output (so it is made first), or create it, then run again`,
    );
  }
  return e;
}

/**
 * Settings of the resource's connection that cannot work: an address without its scheme, a CA file
 * that cannot be read, an address the service has no default for and nobody set. Seen in preview,
 * where stack config and the environment are at hand, rather than at apply.
 */
export function connectionProblems(service: ServiceModule, cluster: unknown, context: () => OperationContext): CheckFailure[] {
  const named = typeof cluster === "string" && !isUnknown(cluster) ? cluster : undefined;
  try {
    context().config(service, named);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError) || !e.setting) return [];
    // The input that chose a cluster is what the program can change. A setting is no input: the
    // failure then names no property (the engine would print the input's value under that name),
    // and its message names the setting.
    return [{ property: named === undefined ? "" : "cluster", reason: e.message }];
  }
}

/**
 * Resolves the secret references among checked inputs (ARCHITECTURE.md, "Secrets by reference") and fingerprints them with the
 * salt of the same reference in `olds`; a reference that cannot be resolved is a check failure.
 * Only stack config, the environment and local files are read: no service is called.
 */
export function fingerprintReferences(inputs: Props, olds: Props, ctx: OperationContext): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [key, value] of Object.entries(inputs)) {
    if (!isSecretReference(value) || containsUnknown(value)) continue;
    try {
      inputs[key] = fingerprintReference(value, ctx, olds[key]);
    } catch (e) {
      failures.push({ property: key, reason: e instanceof SecretReferenceError ? e.message : String(e) });
    }
  }
  return failures;
}

/** The inputs with every secret reference replaced by the value it stands for now: what is sent. */
export function resolveReferences(inputs: Props, ctx: OperationContext): Props {
  const resolved: Props = { ...inputs };
  for (const [key, value] of Object.entries(inputs)) {
    if (!isSecretReference(value)) continue;
    try {
      resolved[key] = resolveReference(value, ctx);
    } catch (e) {
      throw new Error(`${key}: ${(e as Error).message}`);
    }
  }
  return resolved;
}

/**
 * How a create of a spec keeps from writing over an object someone else made (ARCHITECTURE.md, "One owner"):
 * - `atomic`: the create itself fails when the object exists (a taken name, key-value's `cas: 0`),
 *   which the spec's `isConflict` recognises;
 * - `read-first`: the object's ID is read before the first write, and an object found is refused;
 * - `always-new`: every create makes an object under a new ID the service generates.
 */
export type CreateGuard = "atomic" | "read-first" | "always-new";

export function createGuardOf(spec: ResourceSpec): CreateGuard {
  if (spec.isConflict) return "atomic";
  return spec.alwaysNew ? "always-new" : "read-first";
}

export interface Machine {
  token: string;
  /** The inputs a program declares (`adopt` or `triggers` included): what an import answers as inputs. */
  inputKeys: readonly string[];
  check(olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }>;
  diff(id: string, olds: Props, news: Props): Promise<DiffResult>;
  create(inputs: Props): Promise<{ id: string; outs: Props }>;
  read(id: string, props: Props): Promise<{ id: string; props: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
  delete(id: string, props: Props): Promise<void>;
  /**
   * What a create or update of checked inputs answers in a preview, without acting: the inputs,
   * unknowns kept. The values the service computes are unknown until it answers, so they are left
   * out, which the languages' SDKs read as unknown (the engine does the same for a provider that
   * does not preview).
   */
  plan(news: Props): Props;
}

/** Every machine's `plan`: the checked inputs as they are, unknowns kept; no service is asked. */
export function plannedOutputs(news: Props): Props {
  return withoutProvider(news);
}

/** The schema the machine validates: the spec's inputs, strict, plus `adopt` and `takeOver`. */
export function machineSchema(spec: ResourceSpec) {
  return spec.inputs.extend({ [ADOPT_KEY]: z.boolean().optional(), [TAKE_OVER_KEY]: z.boolean().optional() }).strict();
}

export function createMachine(spec: ResourceSpec, context: () => OperationContext): Machine {
  const token = tokenOf(spec);
  const shortToken = shortTypeOf(token);
  const schema = machineSchema(spec);
  const inputKeys = Object.keys(spec.inputs.shape);
  const replaceKeys = new Set<string>(spec.replaceOnChanges ?? []);
  const writeOnly = new Set<string>(spec.writeOnly ?? []);
  const effective = (spec.effective ?? {}) as Record<string, string | undefined>;
  /**
   * The values the schema gives inputs a program leaves out: a read by ID alone (an import) has no
   * prior inputs, so an input the service does not report reads as its default, as a check of the
   * inputs that read answers would make it (they then compare equal).
   */
  const defaults: Props = {};
  for (const key of inputKeys) {
    const parsed = (spec.inputs.shape[key] as z.ZodType).safeParse(undefined);
    if (parsed.success && parsed.data !== undefined) defaults[key] = parsed.data;
  }
  const normalizers = (spec.normalize ?? {}) as Record<string, ((v: unknown) => unknown) | undefined>;

  const parse = (props: Props): Props => {
    const result = validateInputs(schema, withoutProvider(props));
    if (result.failures.length) {
      throw new Error(`${token}: invalid inputs: ${result.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    }
    return result.value as Props;
  };

  /** A normalizer is written for valid values; diff may see anything (it never throws), so others compare as they are. */
  const normalized = (key: string, value: unknown): unknown => {
    const normalize = normalizers[key];
    if (!normalize || value === undefined || value === null) return value;
    try {
      return normalize(value);
    } catch {
      return value;
    }
  };
  const same = (key: string, a: unknown, b: unknown): boolean => canonical(normalized(key, a) ?? null) === canonical(normalized(key, b) ?? null);

  const fail = (id: string, operation: string, cause: unknown): never => {
    if (cause instanceof PartialCreateError) throw cause;
    throw new ResourceOperationError(token, id, operation, cause);
  };

  /**
   * Outputs: the declared inputs plus the computed values, as plain JSON, the address of the
   * object's service and the owner (a delete compares it with the service's record, and settles the create journal).
   */
  const outputsOf = (inputs: Props, computed: unknown, owner?: Owner): Props => {
    const here = serviceAddress(spec.module, inputs.cluster, context());
    return toPlainJson({
      ...withoutProvider(inputs),
      ...(computed as Props),
      ...(here ? { [ADDRESS_KEY]: here.address } : {}),
      ...(owner ? { [OWNER_KEY]: owner } : {}),
    });
  };
  /** How messages name the object of some props: its type and natural ID. */
  const nameOf = (props: Props): string => {
    try {
      return `${shortToken} "${spec.naturalId(withoutProvider(props) as never)}"`;
    } catch {
      return shortToken;
    }
  };
  /** Whether the service records the owner of an object of these props (not of the service's own objects). */
  const recordsOwner = (props: Props): boolean => Boolean(spec.ownerRecord && (spec.ownerRecord.appliesTo?.(props as never) ?? true));
  /** Settles the create journal's entry of an object that is gone (deleted, or found gone). */
  const forgetSent = (id: string, props: Props): void => {
    const owner = ownerOf(props[OWNER_KEY]);
    const address = props[ADDRESS_KEY];
    if (!owner || typeof address !== "string") return;
    let naturalId = id;
    try {
      naturalId = spec.naturalId(withoutProvider(props) as never);
    } catch {
      // Read-only references and older states: the ID in state is the natural one.
    }
    forgetCreate(context(), { owner, type: shortToken, id: naturalId, address });
  };
  /** Refuses to act on an object recorded at another cluster than the settings reach now. */
  const refuseMoved = (id: string, operation: string, props: Props): void => {
    const moved = movedAddressProblem(spec, `${shortToken} "${id}"`, props[ADDRESS_KEY], props.cluster, context());
    if (moved) throw new ResourceOperationError(token, id, operation, new Error(moved));
  };

  return {
    token,
    inputKeys: [...inputKeys, ADOPT_KEY, TAKE_OVER_KEY],
    plan: plannedOutputs,

    async check(olds, news) {
      const result = validateInputs(schema, withoutProvider(news));
      // With unknown values the parse cannot complete; the inputs go on as given and are parsed at apply.
      const inputs = (result.value as Props | undefined) ?? withoutProvider(news);
      const failures = [...result.failures];
      const inState = Object.keys(withoutProvider(olds)).length > 0;
      if (result.value) {
        failures.push(...fingerprintReferences(inputs, olds, context()));
        failures.push(...connectionProblems(spec.module, inputs.cluster, context));
        const builtIn = !inState && !inputs[ADOPT_KEY] ? spec.builtIn?.(inputs as never) : undefined;
        if (builtIn) {
          failures.push({
            property: inputKeys.includes("name") ? "name" : inputKeys[0],
            reason: `names ${builtIn}, which the service makes itself: it can be adopted (\`adopt: true\`), never created`,
          });
        }
      }
      // Adoption concerns the first create only. Once the object is in state, a replacement must create
      // a new object; but the engine checks a replacement's inputs again with no state (ARCHITECTURE.md, "The real engine is the judge"),
      // so its create would still see `adopt` and take over whatever holds the new ID. As the engine
      // refuses to replace a resource still declaring `import`, a replacing change is refused while
      // `adopt` is set, in preview.
      if (inState && inputs[ADOPT_KEY] === true) {
        const replacing = inputKeys.filter((k) => (replaceKeys.has(k) || forcedReplacement(news[REPLACE_ON_CHANGES_KEY], k)) && !containsUnknown(inputs[k]) && !same(k, olds[k], inputs[k]));
        if (replacing.length) {
          failures.push({
            property: ADOPT_KEY,
            reason: `takes over an existing object at the first create only, and this object is in state: the change of ${replacing.join(", ")} replaces it, and with adopt set the replacement would take over the object the new inputs name instead of creating one. Remove adopt from the program (it is done), then run again`,
          });
        }
      }
      if (result.value) {
        // Where the object lives: recorded with it, and compared with where the settings point now.
        const ctx = context();
        const moved = ctx.addressChangeReplaces ? undefined : movedAddressProblem(spec, nameOf(olds), olds[ADDRESS_KEY], olds.cluster, ctx);
        if (moved) failures.push({ property: "", reason: moved });
        const here = serviceAddress(spec.module, inputs.cluster, ctx);
        if (here) inputs[ADDRESS_KEY] = here.address;
      }
      if (!inState && inputs[TAKE_OVER_KEY] === true && inputs[ADOPT_KEY] !== true && !containsUnknown(inputs[ADOPT_KEY])) {
        failures.push({ property: TAKE_OVER_KEY, reason: "takes over an object at its adoption: set adopt: true with it, or leave takeOver out" });
      }
      if (inState) {
        delete inputs[ADOPT_KEY];
        delete inputs[TAKE_OVER_KEY];
      }
      // Who declares the object (the program's stack and resource), for the services that record it.
      const owner = ownerOf(news[OWNER_KEY]);
      if (owner) inputs[OWNER_KEY] = owner;
      if (news[REPLACE_ON_CHANGES_KEY] !== undefined) inputs[REPLACE_ON_CHANGES_KEY] = news[REPLACE_ON_CHANGES_KEY];
      return { inputs, failures };
    },

    async diff(id, olds, news) {
      const changed: string[] = [];
      for (const key of inputKeys) {
        const next = news[key];
        const effectiveKey = effective[key];
        if (effectiveKey && next === undefined) continue;
        const current = effectiveKey && olds[key] === undefined ? olds[effectiveKey] : olds[key];
        if (containsUnknown(next) || !same(key, current, next)) changed.push(key);
      }
      const replaces = changed.filter((k) => replaceKeys.has(k) || forcedReplacement(news[REPLACE_ON_CHANGES_KEY], k));
      let deleteBeforeReplace = false;
      if (changed.length && !containsUnknown(news)) {
        // Replacing with an object of the same natural ID must delete the old one first (made first,
        // it would be the old one, written over, then deleted). The ID in state may be of another
        // form (`ws-…`), so the natural ID of the old outputs counts too. Said of any change, not only
        // those that replace here: the engine may replace for its own reasons (`replaceOnChanges`).
        try {
          const next = spec.naturalId(parse(news) as never);
          deleteBeforeReplace = next === id || next === spec.naturalId(withoutProvider(olds) as never);
        } catch {
          deleteBeforeReplace = false;
        }
      }
      return {
        changes: changed.length > 0,
        diffs: changed,
        replaces,
        stables: inputKeys.filter((k) => !changed.includes(k)),
        deleteBeforeReplace,
      };
    },

    async create(props) {
      const inputs = parse(props);
      const naturalId = spec.naturalId(inputs as never);
      const ctx = context();
      const owner = ownerOf(props[OWNER_KEY]);
      let sent: Props;
      try {
        sent = resolveReferences(inputs, ctx);
      } catch (e) {
        return fail(naturalId, "create", e);
      }

      /** The object of an ID, or undefined; a failure of the read fails the operation. */
      const readExisting = async (operation: string, lookupId: string) => {
        try {
          return await spec.read(ctx, lookupId);
        } catch (e) {
          return fail(naturalId, operation, e);
        }
      };
      /** The create this resource sends, as the create journal notes it (a type whose creates make new IDs has nothing to take back). */
      const here = serviceAddress(spec.module, inputs.cluster, ctx)?.address;
      const sending: SentCreate | undefined = owner && here && createGuardOf(spec) !== "always-new" ? { owner, type: shortToken, id: naturalId, address: here } : undefined;
      /** Whether an earlier run's create of this very resource is noted (read before this create notes its own). */
      const sentEarlier = sending !== undefined && sentByThisResource(ctx, sending);
      /**
       * Whether a found object is this very resource's own, left by a run cut short before the state
       * recorded it: the service's owner record says so, or (where the object has none) this machine's create journal.
       */
      const isOwn = (found: { owner?: Owner } | undefined): boolean => {
        if (!found || !owner) return false;
        if (found.owner) return sameResource(found.owner, owner);
        return sentEarlier;
      };

      /**
       * Takes an existing object into state and converges it to the declared inputs; undefined when
       * there is none. An object recorded as another stack's is refused unless the program takes it
       * over (`takeOver: true`); one taken over records its new owner, where the service can.
       */
      const takeOver = async (operation: string, lookupId: string, found?: Awaited<ReturnType<typeof spec.read>>): Promise<{ id: string; outs: Props } | undefined> => {
        const existing = found ?? (await readExisting(operation, lookupId));
        if (!existing) return undefined;
        const id = existing.id ?? lookupId;
        if (existing.owner && !(owner && sameStack(existing.owner, owner)) && inputs[TAKE_OVER_KEY] !== true) {
          return fail(naturalId, operation, new ObjectExistsError(shortToken, lookupId, { ownId: existing.id !== lookupId ? existing.id : undefined, owner: existing.owner, adopting: true }));
        }
        const current = outputsOf({ ...inputs, ...existing.inputs }, existing.computed, existing.owner);
        const drifted = inputKeys.some((k) => !writeOnly.has(k) && inputs[k] !== undefined && !same(k, current[k], inputs[k]));
        const recordAnew = Boolean(owner && spec.ownerRecord?.rewritable && recordsOwner(inputs) && !(existing.owner && sameResource(existing.owner, owner)));
        if (existing.owner && owner && !sameStack(existing.owner, owner)) {
          ctx.warn(`${shortToken} "${id}": taken over from ${ownerLabel(existing.owner)} (takeOver: true); remove it from that stack's state (\`pulumi state delete\`) so it has one owner again`);
        }
        if (!drifted && !recordAnew) {
          // The service cannot show write-only values: the declared ones are taken as those in use, so
          // taking over an unchanged object writes nothing. A later change of them is written.
          const unseen = inputKeys.filter((k) => writeOnly.has(k) && inputs[k] !== undefined);
          if (unseen.length) ctx.info(`${shortToken} "${id}": ${unseen.join(", ")} cannot be read from the service; the declared value is taken as the one in use and written when it changes`);
          return { id, outs: outputsOf(inputs, existing.computed, owner) };
        }
        try {
          const computed = await spec.update(ctx, id, sent as never, current, owner);
          return { id, outs: outputsOf(inputs, computed, owner) };
        } catch (e) {
          return fail(naturalId, `${operation} (converging to the declared inputs)`, e);
        }
      };
      /** Takes back an object this very resource made in a run cut short before the state recorded it. */
      const takeBack = (lookupId: string, found: Awaited<ReturnType<typeof spec.read>>) => {
        const by = found?.owner ? "the service records it" : "this machine's create journal notes it";
        ctx.info(`${shortToken} "${found?.id ?? lookupId}": ${by} as made by this resource (${ownerLabel(owner!)}) in a run that did not finish: taken back into the state`);
        return takeOver("create (taking back this resource's own object)", lookupId, found);
      };

      /** Makes the object, and says what a failure of it means. */
      const make = async (): Promise<{ id: string; outs: Props }> => {
        if (sending) noteCreate(ctx, sending);
        /** A create the service refused made nothing: its note would claim someone else's object later. */
        const forgetAttempt = () => sending && forgetCreate(ctx, sending);
        try {
          const { id, computed } = await spec.create(ctx, sent as never, owner);
          return { id, outs: outputsOf(inputs, computed, owner) };
        } catch (e) {
          // An earlier attempt of this create may have made the object before its answer was lost:
          // "it exists" then means it is ours, not someone else's.
          if (e instanceof ApiError && e.earlierAttemptMayHaveActed && spec.isConflict?.(e)) {
            const own = await takeOver("create (taking over the object an earlier attempt made)", lookupId);
            if (own) return own;
          }
          const taken = e instanceof ObjectExistsError ? e : e instanceof ApiError && spec.isConflict?.(e) ? new ObjectExistsError(shortToken, lookupId, { refusal: e }) : undefined;
          if (taken && (spec.ownerRecord || sentEarlier)) {
            // The name is taken: by this resource in a run cut short (its record or the journal says so), or by someone else.
            const found = await readExisting("create", lookupId);
            if (isOwn(found)) return (await takeBack(lookupId, found))!;
            forgetAttempt();
            return fail(naturalId, "create", found?.owner ? taken.withOwner(found.owner) : taken);
          }
          if (taken) {
            forgetAttempt();
            return fail(naturalId, "create", taken);
          }
          /** Keeps the object in state as created-but-failed: the next up writes it again, a refresh drops it when it is not there. */
          const keptFailed = (id: string, computed: Props, message: string, reasons: string[]): never => {
            const properties = { ...outputsOf(inputs, computed), [PROVIDER_KEY]: props[PROVIDER_KEY] };
            throw Object.assign(new Error(message), { id, properties, reasons });
          };
          if (e instanceof PartialCreateError) return keptFailed(e.id, e.properties, describe(token, e.id, "create", e), e.reasons);
          // A write that may have reached the service (no answer, a 5xx): the object may be there, made
          // by this create. Under its natural ID in the state it stays this program's own, where a
          // later create would refuse it as someone else's. (An object whose ID the service makes
          // cannot be kept so: its create recognises its own through `isConflict` or its own ledger.)
          if (e instanceof ApiError && e.mayHaveActed && e.method !== "GET" && createGuardOf(spec) !== "always-new" && !spec.adoptionId) {
            const message = `${describe(token, naturalId, "create", e)} The object may have been made: the state keeps it, so the next up writes it again (a refresh drops it if it is not there).`;
            return keptFailed(naturalId, {}, message, [message]);
          }
          if (!(e instanceof ApiError && e.mayHaveActed)) forgetAttempt();
          return fail(naturalId, "create", withReferenceAdvice(spec, inputs, e));
        }
      };

      const adoptionId = spec.adoptionId?.(inputs as never);
      const lookupId = adoptionId ?? naturalId;
      if (inputs[ADOPT_KEY]) {
        const adopted = await takeOver("adopt", lookupId);
        if (adopted) return adopted;
        // An ID given to find the object by (a workspace's `adoptId`) names one object: not a new one.
        if (adoptionId) {
          throw new ResourceOperationError(token, naturalId, "adopt", new Error(`the service holds no object of ID ${adoptionId}: check the ID, or leave the ID out to adopt the object of this name, or to create it when there is none`));
        }
        ctx.info(`${shortToken} "${naturalId}": adopt is set and the service holds no such object: this program creates it`);
        return make();
      }
      if (createGuardOf(spec) === "read-first") {
        // One owner (ARCHITECTURE.md): a create never writes over an object it did not make.
        let found;
        try {
          found = await spec.read(ctx, lookupId);
        } catch (e) {
          return fail(naturalId, "create", e);
        }
        if (found && isOwn(found)) return (await takeBack(lookupId, found))!;
        if (found && (spec.inUse?.(found) ?? true)) {
          throw new ResourceOperationError(token, naturalId, "create", new ObjectExistsError(shortToken, lookupId, { ownId: found.id && found.id !== lookupId ? found.id : undefined, owner: found.owner }));
        }
      }
      return make();
    },

    async read(id, props) {
      // A read at another cluster would find nothing there and drop the object from the state.
      refuseMoved(id, "read", props);
      const prior = withoutProvider(props);
      let found;
      try {
        found = await spec.read(context(), id, prior);
      } catch (e) {
        return fail(id, "read", e);
      }
      // An empty ID tells the engine the object is gone.
      if (!found) {
        forgetSent(id, props);
        return { id: "", props: {} };
      }
      const inputs: Props = { ...defaults, ...prior, ...spec.fromId(id), ...found.inputs };
      for (const key of writeOnly) if (prior[key] !== undefined) inputs[key] = prior[key];
      const owner = ownerOf(props[OWNER_KEY]);
      if (owner && found.owner && !sameStack(owner, found.owner)) {
        context().warn(`${shortToken} "${id}": the service records it as managed by ${ownerLabel(found.owner)}, which took it over: this stack no longer owns it; its destroy leaves it there (forget it here with \`pulumi state delete\`)`);
      }
      return { id: found.id ?? id, props: outputsOf(inputs, found.computed, owner) };
    },

    async update(id, olds, news) {
      const inputs = parse(news);
      const owner = ownerOf(news[OWNER_KEY]) ?? ownerOf(olds[OWNER_KEY]);
      try {
        const ctx = context();
        // The spec sees the owner its last write recorded beside the old outputs (to tell whether to write it again).
        const recorded = olds[OWNER_KEY] === undefined ? {} : { [OWNER_KEY]: olds[OWNER_KEY] };
        const computed = await spec.update(ctx, id, resolveReferences(inputs, ctx) as never, { ...withoutProvider(olds), ...recorded }, owner);
        return { outs: outputsOf(inputs, computed, owner) };
      } catch (e) {
        return fail(id, "update", withReferenceAdvice(spec, inputs, e));
      }
    },

    async delete(id, props) {
      // A delete at another cluster would find nothing there and report the object gone, left where it lives.
      refuseMoved(id, "delete", props);
      const state = withoutProvider(props);
      const builtIn = spec.builtIn?.(state as never);
      if (builtIn) {
        context().info(`${shortToken} "${id}": ${builtIn} is the service's own: left on the service, removed from the program`);
        return;
      }
      const owner = ownerOf(props[OWNER_KEY]);
      if (owner && spec.ownerRecord?.rewritable && recordsOwner(state)) {
        // An object another stack took over (which recorded it) is that stack's now: this stack forgets it, and leaves it.
        let found;
        try {
          found = await spec.read(context(), id, state);
        } catch (e) {
          return fail(id, "delete", e);
        }
        if (!found) {
          forgetSent(id, props);
          return;
        }
        if (found.owner && !sameStack(found.owner, owner)) {
          context().warn(`${shortToken} "${id}": left on the service, which records it as managed by ${ownerLabel(found.owner)} (it took the object over); removed from this stack`);
          return;
        }
      }
      try {
        await spec.delete(context(), id, state);
      } catch (e) {
        if (!isNotFound(e)) return fail(id, "delete", e);
      }
      forgetSent(id, props);
    },
  };
}
