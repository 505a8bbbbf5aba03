/**
 * A resource is declared once as a `ResourceSpec`: its input schema, its computed outputs, its ID and
 * the service calls behind each operation. The machine (machine.ts) derives the dynamic provider and
 * resource.ts derives the `Resource` class from it.
 */
import { z } from "zod";
import type { OperationContext } from "./context";

export type ServiceModule = "keep" | "workspaces" | "mesh";

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
}

export interface ResourceSpec<S extends InputShape = InputShape, O extends InputShape = InputShape> {
  module: ServiceModule;
  /** Type name in the token `pulumi-nodejs:dynamic/<module>:<type>`. */
  type: string;
  /** Declared inputs; validation rules live here. An `adopt` input is added by the machine. */
  inputs: S;
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
  /** IDs of every object of this kind the configured scope holds (for the import command). */
  list?(ctx: OperationContext): Promise<string[]>;
  create(ctx: OperationContext, inputs: z.output<S>): Promise<{ id: string; computed: z.output<O> }>;
  /** Undefined when the object does not exist (any more). */
  read(ctx: OperationContext, id: string, state?: Record<string, unknown>): Promise<ReadResult<z.output<S>, z.output<O>> | undefined>;
  update(ctx: OperationContext, id: string, news: z.output<S>, olds: Record<string, unknown>): Promise<z.output<O>>;
  delete(ctx: OperationContext, id: string, state: Record<string, unknown>): Promise<void>;
}

export function tokenOf(spec: Pick<ResourceSpec, "module" | "type">): string {
  return `pulumi-nodejs:dynamic/${spec.module}:${spec.type}`;
}

/** Identity helper that keeps the literal types of a spec. */
export function resourceSpec<S extends InputShape, O extends InputShape>(spec: ResourceSpec<S, O>): ResourceSpec<S, O> {
  return spec;
}
