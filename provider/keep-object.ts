/**
 * One builder for the secrets service's objects at a path (ts-rest's `paths.ts` idea): a path
 * template gives the routes, the natural ID and the parsing of that ID back; a field table maps
 * input names to wire names both ways; an optional zod schema checks the answer. Singletons
 * (configuration endpoints) declare what destroy does. A resource of this shape is a short file that
 * reads like the spec's table.
 *
 * Every object gets `namespace` and `cluster` inputs; both are part of its ID:
 * `[<cluster>@][<namespace>:]<id>`.
 */
import { z } from "zod";
import type { OperationContext } from "./context";
import { snakeCase } from "./names";
import type { ObjectRows } from "./contracts/keep";
import { pathTemplate } from "./paths";
import type { KeepClient, KeepRequestOptions } from "./keep-client";
import { InputReference, InputShape, resourceSpec, ResourceSpec, SpecExample } from "./spec";
import { failureMessage } from "./advice";
import { PartialCreateError } from "./errors";
import { CLUSTER_NAME } from "./config";

// ---------------------------------------------------------------------------------------------
// Inputs and IDs every secrets-service object shares.

/** A path parameter of the service must not end in a period (it would answer 404). */
export const pathSegment = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .refine((s) => !s.endsWith("."), `${what} must not end in a period (the service answers 404 for such paths)`)
    .refine((s) => !s.includes("/"), `${what} must not contain '/'`);

/** Namespace of the object, overriding `keep:namespace`; part of the ID; changing it replaces the object. */
export const namespaceInput = z
  .string()
  .regex(/^[^:@]+$/, "must not contain ':' or '@' (they separate the cluster and namespace from the rest of the ID)")
  .transform((ns) => ns.replace(/^\/+|\/+$/g, ""))
  .refine((ns) => ns.length > 0, "must name a namespace such as `team-a` or `team-a/dev`; leave it out for the configured one (`keep:namespace`)")
  .optional();

/**
 * Named cluster of the object: its connection is `keep-<cluster>:address`, `keep-<cluster>:token`
 * (or `KEEP_<CLUSTER>_ADDR`, ...) instead of `keep:`; part of the ID; changing it replaces the object.
 */
export const clusterInput = z
  .string()
  .regex(CLUSTER_NAME, "must be a cluster name: lower-case letters, digits and dashes, starting with a letter")
  .optional();

/** Mount path of an engine, without surrounding slashes; `fallback` is where it is mounted by default. */
export const mountInput = (fallback: string) =>
  z
    .string()
    .transform((m) => m.replace(/^\/+|\/+$/g, ""))
    .refine((m) => m.length > 0, "must be a mount path such as `transform` or `teams/transform`")
    .refine((m) => !m.split("/").some((s) => s.endsWith(".")), "must not have a segment ending in a period (the service answers 404 for such paths)")
    .default(fallback);

/** The inputs every secrets-service object takes. */
export const keepCommonShape = {
  /** Namespace of the object, overriding `keep:namespace`; part of the ID; changing it replaces the object. */
  namespace: namespaceInput,
  /**
   * Named cluster of the object: its connection is `keep-<cluster>:address`, `keep-<cluster>:token`
   * (or `KEEP_<CLUSTER>_ADDR`, ...) instead of `keep:`; part of the ID; changing it replaces the object.
   */
  cluster: clusterInput,
};

export interface KeepScope {
  cluster?: string;
  namespace?: string;
}

/** `[<cluster>@][<namespace>:]<id>`. */
export function keepId(scope: KeepScope, id: string): string {
  const withNamespace = scope.namespace ? `${scope.namespace}:${id}` : id;
  return scope.cluster ? `${scope.cluster}@${withNamespace}` : withNamespace;
}

/** The scope and local part of an ID written by `keepId`. */
export function splitKeepId(id: string): KeepScope & { id: string } {
  const scope: KeepScope & { id: string } = { id };
  const at = /^([a-z][a-z0-9-]*)@/.exec(scope.id);
  if (at) {
    scope.cluster = at[1];
    scope.id = scope.id.slice(at[0].length);
  }
  const colon = scope.id.indexOf(":");
  if (colon >= 0) {
    scope.namespace = scope.id.slice(0, colon);
    scope.id = scope.id.slice(colon + 1);
  }
  return scope;
}

/** Request options of an object's scope. */
export function scopeOptions(scope: KeepScope): KeepRequestOptions {
  return scope.namespace ? { namespace: scope.namespace } : {};
}

/** The client of an object's cluster. */
export function keepClientOf(ctx: OperationContext, scope: KeepScope): KeepClient {
  return ctx.keep(scope.cluster);
}

// ---------------------------------------------------------------------------------------------
// The builder.

/** How one input travels: its wire name, its conversions, whether the service returns it. */
export interface Field<T = unknown> {
  /** Name in request and answer bodies; defaults to the input's name in snake_case. */
  wire?: string;
  /** The value sent; defaults to the input value. */
  toWire?(value: T): unknown;
  /** The input value an answer's value stands for; defaults to the value itself (null as absent). */
  fromWire?(value: unknown): T | undefined;
  /**
   * The service never returns it, or returns it obfuscated: a read keeps the value in state and it
   * is never compared with what the service shows.
   */
  writeOnly?: boolean;
}

/** An object as its own requests reach it: the client of its cluster, its rows, the values of their paths. */
export interface ObjectTarget {
  client: KeepClient;
  options: KeepRequestOptions;
  rows: ObjectRows;
  params: Record<string, unknown>;
}

/** What destroy does to a configuration endpoint, which has no delete. */
export type SingletonDestroy = { restore: Record<string, unknown> } | { leave: string };

type Out<S extends InputShape> = z.output<S>;

/** `F`: the fields of a read answer its row declares (`objectAt`'s `answer`), as the row reads them. */
export interface KeepObjectDeclaration<S extends InputShape, O extends InputShape, F extends object = {}> {
  /** Type name in the token `pulumi-nodejs:dynamic/keep:<type>`. */
  type: string;
  /** One line for the documentation and the import command. */
  description: string;
  /** Example inputs (see `SpecExample`). */
  example?: SpecExample<S>;
  /**
   * Its requests, declared in the contract (`provider/contracts/keep.ts`): routes under `/v1/`,
   * `{input}` for one segment, `{input*}` for several (a mount path).
   */
  rows: ObjectRows<string, string, F>;
  /** Natural ID (before the scope); defaults to `{name}`. */
  id?: string;
  /** An ID as written by hand in another form (a destination's bare name), in the form of `id`; undefined when it is none. */
  completeId?(local: string): string | undefined;
  /** Declared inputs; `namespace` and `cluster` are added. */
  inputs: S;
  /** Per input: the wire name (a string) or a Field. Path parameters are never sent. */
  fields?: { [K in keyof Out<S>]?: Field<Out<S>[K]> | string };
  /** Values the service computes, and how an answer gives them. */
  computed?: O;
  computedOf?(answer: Record<string, unknown>): z.output<O>;
  /** Whether a write the service answers without a body is followed by a read for the computed values (default: when any are declared). */
  readAfterWrite?: boolean;
  /** A request body the field mapping cannot give (a role's legacy parameter sent alone). */
  bodyOf?(values: Out<S>): Record<string, unknown>;
  /** The declared form of an answer, where the field mapping cannot give it; `state` is what the program declared. */
  inputsOf?(answer: Record<string, unknown> & F, state: Record<string, unknown> | undefined): Partial<Out<S>>;
  /**
   * Read values equal to the declared ones under `normalize` keep the declared form, so a refresh
   * reports only real drift (a duration read back as seconds, a list in another order).
   */
  keepDeclaredForm?: boolean;
  /**
   * Values the service reports by default where the program declares nothing (an empty alphabet),
   * by input; a function gives them from the read (defaults that depend on a type). Not drift.
   */
  serviceDefaults?: Partial<Record<keyof Out<S>, unknown>> | ((read: Record<string, unknown>) => Record<string, unknown>);
  /** Inputs whose value the service chooses when the program leaves them out: reported only when declared. */
  serviceChosen?: readonly (keyof Out<S> & string)[];
  /** What a write says before it is made: a warning about what the declared values allow. `olds` on update. */
  onWrite?(ctx: OperationContext, values: Out<S>, olds?: Out<S>): void;
  /** What a read says besides the inputs: a warning about the object as the service holds it. */
  onRead?(ctx: OperationContext, id: string, answer: Record<string, unknown> & F): void;
  /** A configuration endpoint without delete: what destroy does, said in the log. */
  singleton?: SingletonDestroy;
  /** Destroy where one DELETE of the path does not do it (a purge, then a wait until it is gone). */
  deleteWith?(ctx: OperationContext, target: ObjectTarget, state: Record<string, unknown>): Promise<void>;
  /** Objects the service makes itself: what such an object is, for messages. */
  builtIn?(inputs: Out<S>): string | undefined;
  /** Inputs whose change replaces the object, besides the path parameters, `namespace` and `cluster`. */
  replaceOnChanges?: readonly (keyof Out<S> & string)[];
  secretInputs?: readonly (keyof Out<S> & string)[];
  secretOutputs?: readonly (keyof z.output<O> & string)[];
  normalize?: { [K in keyof Out<S>]?: (value: Out<S>[K]) => unknown };
  /** IDs of listed keys, when a key is not the last path parameter. */
  idsOfKeys?(keys: string[]): string[];
  /** Inputs naming other objects, for the import command (ResourceSpec.references). */
  references?: { [K in keyof Out<S>]?: InputReference<Out<S> & KeepScope> };
}

const SCOPE_KEYS = ["namespace", "cluster"] as const;

/**
 * Read values that equal the declared ones under a normalisation (a duration as "1h" or 3600, a
 * list in another order, a policy with other whitespace, an empty list for none) keep the declared
 * form, so a refresh reports only real drift.
 */
function keepDeclaredForm(
  read: Record<string, unknown>,
  state: Record<string, unknown> | undefined,
  normalizers: Record<string, ((value: never) => unknown) | undefined>,
): Record<string, unknown> {
  if (!state) return read;
  const result = { ...read };
  for (const [key, normalize] of Object.entries(normalizers)) {
    if (!normalize || !(key in result)) continue;
    const norm = (v: unknown) => JSON.stringify(v === undefined ? null : normalize(v as never) ?? null);
    if (norm(result[key]) === norm(state[key])) result[key] = state[key];
  }
  return result;
}

/**
 * Read inputs without the values the service fills in by default, where the program left them out:
 * a default the service reports is not drift.
 */
function withoutDefaults(inputs: Record<string, unknown>, state: Record<string, unknown> | undefined, defaults: Record<string, unknown>): Record<string, unknown> {
  const result = { ...inputs };
  for (const [key, fallback] of Object.entries(defaults)) {
    if (state?.[key] === undefined && JSON.stringify(result[key]) === JSON.stringify(fallback)) delete result[key];
  }
  return result;
}

/** Builds the spec of an object at a path. */
export function keepObject<S extends InputShape, O extends InputShape = z.ZodObject<{}>, F extends object = {}>(declaration: KeepObjectDeclaration<S, O, F>) {
  // `extend` on a generic schema types the result by the constraint, which would lose every declared input.
  const inputs = declaration.inputs.extend(keepCommonShape) as unknown as z.ZodObject<S["shape"] & typeof keepCommonShape, z.core.$strip>;
  type I = z.output<typeof inputs>;
  const computed = (declaration.computed ?? z.object({})) as O;
  /** The object's rows: every request it sends is one of them. */
  const rows = declaration.rows;
  const listRow = rows.list;
  const idTemplate = pathTemplate(declaration.id ?? "{name}");
  const pathParams = new Set([...pathTemplate(rows.read.path).params, ...pathTemplate(rows.write.path).params, ...idTemplate.params]);

  const fields = Object.keys(declaration.inputs.shape)
    .filter((key) => !pathParams.has(key))
    .map((key) => {
      const given = (declaration.fields as Record<string, Field | string | undefined> | undefined)?.[key];
      const field: Field = typeof given === "string" ? { wire: given } : given ?? {};
      return { key, wire: field.wire ?? snakeCase(key), ...field };
    });
  const writeOnly = fields.filter((f) => f.writeOnly).map((f) => f.key);

  const scopeOf = (values: Record<string, unknown>): KeepScope => ({
    cluster: values.cluster as string | undefined,
    namespace: values.namespace as string | undefined,
  });
  /** The ID's parameters and scope back as inputs. */
  const fromId = (id: string): Partial<I> => {
    const { id: local, ...scope } = splitKeepId(id);
    const completed = idTemplate.parse(local) ? undefined : declaration.completeId?.(local);
    const params = idTemplate.parse(completed ?? local) ?? {};
    const result: Record<string, unknown> = { ...params };
    for (const key of SCOPE_KEYS) if (scope[key]) result[key] = scope[key];
    return result as Partial<I>;
  };
  // IDs hold the values as declared; routes encode them.
  const naturalId = (values: I) => keepId(scopeOf(values), idTemplate.render(values, true));
  /** Where the object of an ID lives; the ID holds every path parameter. */
  const locate = (ctx: OperationContext, id: string, extra: Record<string, unknown> = {}) => {
    const values = { ...extra, ...fromId(id) } as Record<string, unknown>;
    const scope = scopeOf(values);
    return { client: keepClientOf(ctx, scope), options: scopeOptions(scope), values };
  };

  const bodyOf = (values: Record<string, unknown>): Record<string, unknown> => {
    const body: Record<string, unknown> = {};
    for (const f of fields) {
      const value = values[f.key];
      if (value === undefined) continue;
      body[f.wire] = f.toWire ? f.toWire(value) : value;
    }
    return body;
  };

  const inputsOf = (answer: Record<string, unknown>): Partial<I> => {
    const result: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.writeOnly || !(f.wire in answer)) continue;
      const raw = answer[f.wire];
      const value = f.fromWire ? f.fromWire(raw) : raw === null ? undefined : raw;
      if (value !== undefined) result[f.key] = value;
    }
    return result as Partial<I>;
  };

  const computedOf = (answer: Record<string, unknown> | undefined): z.output<O> =>
    (answer && declaration.computedOf ? declaration.computedOf(answer) : {}) as z.output<O>;
  const readAfterWrite = declaration.readAfterWrite ?? declaration.computed !== undefined;

  const write = async (ctx: OperationContext, id: string, values: Record<string, unknown>) => {
    const { client, options } = locate(ctx, id, values);
    const body = declaration.bodyOf ? declaration.bodyOf(values as Out<S>) : bodyOf(values);
    const patch = rows.write.method === "PATCH" ? { contentType: "application/merge-patch+json" } : {};
    return (await client.send(rows.write, { params: { ...values, ...fromId(id) }, body, options: { ...options, ...patch } })).body;
  };

  const read = async (ctx: OperationContext, id: string) => {
    const { client, options, values } = locate(ctx, id);
    return (await client.send(rows.read, { params: values, options }))?.body;
  };

  const mountDefault = (): string | undefined => {
    const mount = (declaration.inputs.shape as Record<string, z.ZodType>).mount;
    const parsed = mount?.safeParse(undefined);
    return parsed?.success ? (parsed.data as string) : undefined;
  };

  const restored = declaration.singleton && "restore" in declaration.singleton ? declaration.singleton.restore : undefined;

  const spec: ResourceSpec<typeof inputs, O> = resourceSpec({
    module: "keep",
    type: declaration.type,
    description: declaration.description,
    example: declaration.example as SpecExample<typeof inputs> | undefined,
    inputs,
    computed,
    replaceOnChanges: [...new Set([...pathParams, ...SCOPE_KEYS, ...(declaration.replaceOnChanges ?? [])])].filter((k) => k in inputs.shape) as never,
    secretInputs: declaration.secretInputs as never,
    secretOutputs: declaration.secretOutputs as never,
    writeOnly: writeOnly as never,
    normalize: declaration.normalize as never,
    references: declaration.references as never,
    builtIn: declaration.builtIn as never,
    naturalId,
    fromId,
    // A configuration endpoint always answers: it is someone's once it holds other than the defaults.
    inUse: restored ? (found) => Object.entries(restored).some(([key, value]) => JSON.stringify((found.inputs as Record<string, unknown>)[key] ?? null) !== JSON.stringify(value)) : undefined,
    async create(ctx, values) {
      const id = naturalId(values);
      declaration.onWrite?.(ctx, values as Out<S>);
      const answer = await write(ctx, id, values);
      if (!readAfterWrite || answer) return { id, computed: computedOf(answer ?? {}) };
      try {
        return { id, computed: computedOf(await read(ctx, id)) };
      } catch (e) {
        // Written, and so this program's: it stays in state (created-but-failed), and the next up
        // writes it again and reads what it could not read now.
        const message = failureMessage(`keep:${declaration.type} "${id}" was written, but reading it back failed`, e);
        throw new PartialCreateError(message, id, {}, [message]);
      }
    },
    async read(ctx, id, state) {
      const found = await read(ctx, id);
      if (!found) return undefined;
      declaration.onRead?.(ctx, id, found);
      const given = (declaration.inputsOf ? declaration.inputsOf(found, state) : inputsOf(found)) as Record<string, unknown>;
      const defaults = typeof declaration.serviceDefaults === "function" ? declaration.serviceDefaults(given) : declaration.serviceDefaults;
      const reported = withoutDefaults(given, state, { ...defaults });
      if (state) for (const key of declaration.serviceChosen ?? []) if (state[key] === undefined) delete reported[key];
      const inputs = declaration.keepDeclaredForm ? keepDeclaredForm(reported, state, (declaration.normalize ?? {}) as never) : reported;
      return { inputs: inputs as never, computed: computedOf(found) };
    },
    async update(ctx, id, values, olds) {
      declaration.onWrite?.(ctx, values as Out<S>, olds as Out<S>);
      // An input the program stopped declaring: a write that leaves it out keeps the service's value,
      // so the write sends the value the service reports by default instead (a perpetual diff otherwise).
      const defaults = (typeof declaration.serviceDefaults === "function" ? declaration.serviceDefaults(olds) : declaration.serviceDefaults ?? {}) as Record<string, unknown>;
      const cleared = Object.fromEntries(Object.entries(defaults).filter(([key]) => (values as Record<string, unknown>)[key] === undefined && olds[key] !== undefined));
      const answer = await write(ctx, id, { ...values, ...cleared });
      return readAfterWrite && !answer ? computedOf(await read(ctx, id)) : computedOf(answer ?? {});
    },
    async delete(ctx, id, state) {
      const singleton = declaration.singleton;
      if (singleton && "leave" in singleton) {
        ctx.info(`keep:${declaration.type} "${id}": left on the service: ${singleton.leave}`);
        return;
      }
      if (singleton) {
        await write(ctx, id, { ...state, ...Object.fromEntries(fields.map((f) => [f.key, undefined])), ...singleton.restore });
        ctx.info(`keep:${declaration.type} "${id}": the service's defaults restored (${JSON.stringify(singleton.restore)})`);
        return;
      }
      const { client, options, values } = locate(ctx, id);
      if (declaration.deleteWith) await declaration.deleteWith(ctx, { client, options, rows, params: values }, state);
      else await client.send(rows.delete, { params: values, options });
    },
    list: listRow
      ? async (ctx) => {
          const template = pathTemplate(listRow.path);
          const mount = mountDefault();
          if (template.params.some((p) => p !== "mount") || (template.params.includes("mount") && !mount)) return [];
          const keys = ((await ctx.keep().send(listRow, { params: { mount } }))?.body ?? []).filter((k) => !k.endsWith("/"));
          const ids = declaration.idsOfKeys ? declaration.idsOfKeys(keys) : keys.map((name) => idTemplate.render({ mount, name }, true));
          return ids.filter((id) => !spec.builtIn?.({ ...fromId(id) } as never));
        }
      : undefined,
  });
  return spec;
}
