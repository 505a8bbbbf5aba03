/**
 * A resource is declared once as a `ResourceSpec`: its input schema, its computed outputs, its ID and
 * the service calls behind each operation. The machine (object-machine.ts, operation-machine.ts) derives the dynamic provider and
 * resource.ts derives the `Resource` class from it.
 */
import { z } from "zod";
import { PLUGIN_PACKAGE, type ServiceModule } from "./config";
import type { OperationContext } from "./context";
import type { ApiError } from "./errors";
import type { Owner } from "./owner";

export type { ServiceModule };

export type InputShape = z.ZodObject<z.ZodRawShape>;

/** What a read of the service says about an object: its inputs as declared, and computed values. */
export interface ReadResult<I, C> {
  inputs: Partial<I>;
  computed: C;
  /**
   * The object's own ID, when it was read through another form of ID (a workspace adopted by
   * `<organization>/<name>` has the ID `ws-…`); state then keeps this one.
   */
  id?: string;
  /** The owner recorded with the object, where the spec keeps one (`ownerRecord`). */
  owner?: Owner;
}

export interface ResourceSpec<S extends InputShape = InputShape, O extends InputShape = InputShape> {
  /** A CRUD object (the default); operations are `OperationSpec`s. */
  kind?: "object";
  module: ServiceModule;
  /** Type name in the token `pulumi-nodejs:dynamic/<module>:<type>`. */
  type: string;
  /** One line for the documentation and the import command. */
  description?: string;
  /** Declared inputs; validation rules live here. An `adopt` input is added by the machine. */
  inputs: S;
  /** Example inputs (see `SpecExample`). */
  example?: SpecExample<S>;
  /** Values the service computes, merged into the outputs. Accepts earlier shapes of state. */
  computed: O;
  /** Inputs whose change replaces the object. */
  replaceOnChanges?: readonly (keyof z.output<S> & string)[];
  /** Inputs always stored as secrets (the class wraps them in `pulumi.secret`). */
  secretInputs?: readonly (keyof z.output<S> & string)[];
  /** Computed outputs marked secret through `additionalSecretOutputs`. */
  secretOutputs?: readonly (keyof z.output<O> & string)[];
  /** Inputs the service returns obfuscated or never returns: a read keeps the known value. */
  writeOnly?: readonly (keyof z.output<S> & string)[];
  /**
   * Inputs the service or the configuration fills in when the program leaves them out, each with the
   * computed output that reports the value in use. Leaving one out is not a change (the value in use
   * stands), and declaring the value already in use is not a change either.
   */
  effective?: { [K in keyof z.output<S>]?: keyof z.output<O> & string };
  /** Per-input normalisation applied before comparing old and new values. */
  normalize?: { [K in keyof z.output<S>]?: (value: z.output<S>[K]) => unknown };
  /** The natural ID of the object the inputs declare (for adoption and replacement planning). */
  naturalId(inputs: z.output<S>): string;
  /** The ID adoption reads, when the inputs name it otherwise than by the natural ID (a workspace's `adoptId`). */
  adoptionId?(inputs: z.output<S>): string | undefined;
  /** The inputs an ID determines (the name, the namespace...), for `get`, adoption and import. */
  fromId(id: string): Partial<z.output<S>>;
  /**
   * Objects the service makes itself (the `default` ACL policy): they can be adopted, never created,
   * and destroy leaves them on the service. Returns what the object is, for messages.
   */
  builtIn?(inputs: z.output<S>): string | undefined;
  /** Why the import command cannot print a program that adopts such an object, when it cannot. */
  notImportable?: string;
  /**
   * Whether a failed create says the object exists already. When an earlier attempt of the same
   * create may have reached the service, such an answer means the object is this program's own.
   * A spec that declares it creates atomically (the service refuses a taken name, or key-value's
   * `cas: 0`), so the machine reads nothing before the create (see `CreateGuard`).
   */
  isConflict?(error: ApiError): boolean;
  /**
   * Every create makes a new object under an ID the service generates (a configuration version):
   * there is nothing a create could write over, so nothing is read first.
   */
  alwaysNew?: boolean;
  /**
   * Whether an object a read found is someone's. A configuration endpoint always answers: it counts
   * as someone's only when it holds other than the service's defaults. Every object found, by default.
   */
  inUse?(found: ReadResult<z.output<S>, z.output<O>>): boolean;
  /** IDs of every object of this kind the configured scope holds (for the import command). */
  list?(ctx: OperationContext): Promise<string[]>;
  /**
   * Inputs that name other objects of the package (a role's transformations, an association's
   * destination): the import command declares them as the named object's output rather than a
   * repeated string, so the program orders and ties them together. A list input refers element by element.
   */
  references?: { [K in keyof z.output<S>]?: InputReference<z.output<S>> };
  /**
   * Where the service object keeps the record of which stack's resource made it (ARCHITECTURE.md, "One owner", one
   * owner), for the docs; `rewritable` when an update can write it again (an adoption that takes
   * the object over records its new owner). Types without it have no room for one in their API.
   * A spec that has it writes the owner its create and update are given, and its read returns it.
   */
  ownerRecord?: {
    where: string;
    rewritable: boolean;
    /** Whether an object of these inputs gets the record (not the service's own objects); all do by default. */
    appliesTo?(inputs: z.output<S>): boolean;
  };
  create(ctx: OperationContext, inputs: z.output<S>, owner?: Owner): Promise<{ id: string; computed: z.output<O> }>;
  /** Undefined when the object does not exist (any more). */
  read(ctx: OperationContext, id: string, state?: Record<string, unknown>): Promise<ReadResult<z.output<S>, z.output<O>> | undefined>;
  update(ctx: OperationContext, id: string, news: z.output<S>, olds: Record<string, unknown>, owner?: Owner): Promise<z.output<O>>;
  delete(ctx: OperationContext, id: string, state: Record<string, unknown>): Promise<void>;
}

/** How an input names another object (see `ResourceSpec.references`). */
export interface InputReference<I = Record<string, unknown>> {
  /** Short type tokens of the objects the value may name (`keep:TransformTemplate`). */
  types: readonly string[];
  /** The natural ID (scope included) of the object a value, or one element of a list, names. */
  id(value: string, inputs: I): string;
  /** The output of the named object that equals the value; `name` by default. */
  output?: string;
}

/** What every dynamic resource's type token starts with (the engine's module of dynamic providers). */
export const TOKEN_PREFIX = "pulumi-nodejs:dynamic/";

/** `pulumi-nodejs:dynamic/keep:AclPolicy` for the spec of `keep:AclPolicy`. */
export function tokenOf(spec: Pick<ResourceSpec, "module" | "type">): string {
  return `${TOKEN_PREFIX}${spec.module}:${spec.type}`;
}

/** What the plugin door's tokens start with: `keepstack:keep:AclPolicy`. */
export const PLUGIN_TOKEN_PREFIX = `${PLUGIN_PACKAGE}:`;

/** The plugin door's token of a spec: `keepstack:keep:AclPolicy`. */
export function pluginTokenOf(spec: Pick<ResourceSpec, "module" | "type">): string {
  return `${PLUGIN_TOKEN_PREFIX}${spec.module}:${spec.type}`;
}

/**
 * `keep:AclPolicy` for either door's token (`pulumi-nodejs:dynamic/keep:AclPolicy`,
 * `keepstack:keep:AclPolicy`); a short type stays as it is.
 */
export function shortTypeOf(token: string): string {
  if (token.startsWith(TOKEN_PREFIX)) return token.slice(TOKEN_PREFIX.length);
  return token.startsWith(PLUGIN_TOKEN_PREFIX) ? token.slice(PLUGIN_TOKEN_PREFIX.length) : token;
}

/** The token of a short type (`keep:AclPolicy`); a full token stays as it is. */
export function tokenOfShortType(type: string): string {
  return type.startsWith(TOKEN_PREFIX) ? type : `${TOKEN_PREFIX}${type}`;
}

/**
 * A one-shot operation declared as a resource (ARCHITECTURE.md, "Operations are resources"): `create` runs it, nothing runs in
 * preview, every input change and `triggers` run it again, refresh never drops or re-runs it, and
 * `delete` does nothing unless an undo is declared and asked for.
 */
export interface OperationSpec<S extends InputShape = InputShape, O extends InputShape = InputShape> {
  kind: "operation";
  module: ServiceModule;
  type: string;
  description?: string;
  /** Declared inputs; the machine adds `triggers`. */
  inputs: S;
  /** Example inputs (see `SpecExample`). */
  example?: SpecExample<S>;
  /** The result of a run, kept as outputs. */
  computed: O;
  secretInputs?: readonly (keyof z.output<S> & string)[];
  secretOutputs?: readonly (keyof z.output<O> & string)[];
  /**
   * Secret inputs that are data, not credentials (a value to encode): a Pulumi secret is the usual
   * way to give them, so the secrets-by-reference policy leaves them alone.
   */
  secretData?: readonly (keyof z.output<S> & string)[];
  /**
   * Inputs that must be `true` before an irreversible operation runs, each with what it accepts
   * ("every piece of data on the secondary is wiped"); `when` limits one to some inputs (a forced
   * promotion). Checked in preview.
   */
  acknowledgements?: readonly {
    input: keyof z.output<S> & string;
    accepts: string;
    when?(inputs: z.output<S>): boolean;
  }[];
  /** A short label of the run for its ID and messages; defaults to the type. */
  label?(inputs: z.output<S>): string;
  /**
   * Reads the current state before acting. A result means the target state already holds: the
   * operation succeeds without acting and `message` says so. Throws when the current state allows
   * no such operation (naming the state and what it allows).
   */
  current?(ctx: OperationContext, inputs: z.output<S>): Promise<{ computed: z.output<O>; message: string } | undefined>;
  run(ctx: OperationContext, inputs: z.output<S>): Promise<z.output<O>>;
  /** Informational outputs refresh may report (the service's current status); never re-runs. */
  status?(ctx: OperationContext, inputs: z.output<S>, state: Record<string, unknown>): Promise<Partial<z.output<O>>>;
  /** What destroy may undo, when the program asks for it with the boolean input `input`. */
  undo?: { input: keyof z.output<S> & string; run(ctx: OperationContext, state: Record<string, unknown>): Promise<void> };
}

/**
 * Inputs of a type as a program would declare them, kept beside its spec: the registry-wide tests,
 * the fault campaigns and the bench take their objects from here, so a new type brings its own.
 * Checked against the type's inputs by the compiler and by its schema in the tests.
 */
export interface SpecExample<S extends InputShape> {
  /** The n-th example (n = 0, 1, ...): where the service names objects, each n names another one (`nth`). */
  inputs(n: number): z.input<S>;
  /** The same object changed in place (no replacement), where the type has such a change. */
  change?: Partial<z.input<S>>;
}

/** The n-th of a name in examples: the name itself, then `name-1`, `name-2`, ... */
export const nth = (name: string, n: number): string => (n === 0 ? name : `${name}-${n}`);

/** Every kind of spec the registry holds. */
export type AnySpec = ResourceSpec | OperationSpec;

export function isOperationSpec(spec: { kind?: string }): spec is OperationSpec {
  return spec.kind === "operation";
}

/** Identity helper that keeps the literal types of an operation spec. */
export function operationSpec<S extends InputShape, O extends InputShape>(spec: Omit<OperationSpec<S, O>, "kind">): OperationSpec<S, O> {
  return { kind: "operation", ...spec };
}

/** Identity helper that keeps the literal types of a spec. */
export function resourceSpec<S extends InputShape, O extends InputShape>(spec: ResourceSpec<S, O>): ResourceSpec<S, O> {
  return spec;
}
