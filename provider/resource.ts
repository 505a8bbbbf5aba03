/**
 * Derives the `Resource` class of a spec: typed arguments and outputs from the zod schemas, a distinct
 * type token (also exposed as `static __pulumiType` for policy packs), secrets wrapped, and `get`.
 *
 * The class is what `pulumi.dynamic.Resource` is (a custom resource of a `pulumi-nodejs:dynamic`
 * token whose `__provider` input holds the provider's source), with the shim's text written out
 * instead of serialized from a closure (see shim.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
// Values from the SDK's own modules, not its index: the provider host and the plugin load this in
// every run, and the index brings the automation API and the closure serializer (TypeScript's
// compiler among them: half a second of CPU) that no provider uses.
import { getProject, getStack } from "@pulumi/pulumi/metadata";
import { output, Output, secret } from "@pulumi/pulumi/output";
import { CustomResource } from "@pulumi/pulumi/resource";
import { z } from "zod";
import { TRIGGERS_KEY } from "./operation-machine";
import { isSecretReference } from "./secret-ref";
import { ADOPT_KEY, PROVIDER_KEY, REPLACE_ON_CHANGES_KEY } from "./object-machine";
import { OWNER_KEY, TAKE_OVER_KEY } from "./owner";
import { shimText } from "./shim";
import { InputShape, isOperationSpec, OperationSpec, ResourceSpec, tokenOf } from "./spec";

/**
 * Every level of a value may be an Input (the SDK resolves nested outputs before sending).
 *
 * `Input` wraps the whole value once, never each member of a union: `Input<true> | Input<false>`
 * would refuse an `Output<boolean>`, and `Input<"a"> | Input<"b">` an `Output<"a" | "b">`. Only the
 * levels below are mapped member by member, so an array or object member of a union (EGP `paths`:
 * a list or a comma-separated string; an optional `vcsRepo`) takes Inputs inside as well.
 */
export type DeepInput<T> = pulumi.Input<InputLevels<T>>;

/** The members of a value with Inputs allowed below the top level (distributes over unions on purpose). */
type InputLevels<T> = 0 extends 1 & T
  ? T // any stays any
  : T extends readonly (infer U)[]
    ? DeepInput<U>[]
    : T extends Record<string, unknown>
      ? { [K in keyof T]: DeepInput<T[K]> }
      : T;

export interface AdoptionArgs {
  /**
   * Adopt an object that already exists on the service instead of refusing it: create reads it by its
   * natural ID and converges it to the declared inputs; when there is none, it creates it.
   */
  adopt?: pulumi.Input<boolean>;
  /**
   * With `adopt`: take over an object the service records as another stack's. Without it such an
   * adoption is refused, naming that stack (one owner: remove the object from that stack's state first).
   */
  takeOver?: pulumi.Input<boolean>;
}

export interface TriggerArgs {
  /**
   * Any values; a change runs the operation again (a date string gives a scheduled re-run). Every
   * other input change runs it again too.
   */
  triggers?: pulumi.Input<unknown[]>;
}

export type ResourceArgs<S extends InputShape> = { [K in keyof z.input<S>]: DeepInput<z.input<S>[K]> } & AdoptionArgs;

/** Arguments of an operation resource: its inputs and `triggers`. */
export type OperationArgs<S extends InputShape> = { [K in keyof z.input<S>]: DeepInput<z.input<S>[K]> } & TriggerArgs;

export type ResourceOutputs<S extends InputShape, O extends InputShape> = {
  readonly [K in keyof z.output<S>]-?: pulumi.Output<z.output<S>[K]>;
} & { readonly [K in keyof z.output<O>]-?: pulumi.Output<z.output<O>[K]> };

/**
 * What the public declarations are generated from (scripts/public-types.ts): the schemas of a class's
 * inputs and computed outputs. Type-level only: no class has this property at run time.
 */
export interface DeclarationSource<S extends InputShape, O extends InputShape, Extra> {
  inputs: S;
  computed: O;
  /** `adopt` of an object, `triggers` of an operation. */
  extra: Extra;
}

export interface ResourceClass<A, O, D = unknown> {
  new (name: string, args: A, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource & O;
  /** A read-only reference to an existing object, by its natural ID. */
  get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource & O;
  /** The type token, as `@pulumi/policy` expects it. */
  readonly __pulumiType: string;
  isInstance(obj: unknown): boolean;
  readonly __declarationSource?: D;
}

/** A secret input is wrapped as a Pulumi secret, unless it is a reference (ARCHITECTURE.md, "Secrets by reference"): that stays plain. */
function secretUnlessReference(value: unknown): unknown {
  if (isSecretReference(value)) return value;
  if (Output.isInstance(value) || value instanceof Promise) {
    return output(value).apply((v) => (v === undefined || isSecretReference(v) ? v : secret(v)));
  }
  return secret(value);
}

export function defineResource<S extends InputShape, O extends InputShape>(
  spec: OperationSpec<S, O>,
): ResourceClass<OperationArgs<S>, ResourceOutputs<S, O>, DeclarationSource<S, O, TriggerArgs>>;
export function defineResource<S extends InputShape, O extends InputShape>(
  spec: ResourceSpec<S, O>,
): ResourceClass<ResourceArgs<S>, ResourceOutputs<S, O>, DeclarationSource<S, O, AdoptionArgs>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function defineResource(spec: ResourceSpec | OperationSpec): ResourceClass<any, any> {
  const token = tokenOf(spec);
  const shim = shimText(token);
  const keys = [...Object.keys(spec.inputs.shape), ...(isOperationSpec(spec) ? [TRIGGERS_KEY] : [ADOPT_KEY, TAKE_OVER_KEY]), ...Object.keys(spec.computed.shape)];
  const secretInputs = new Set<string>(spec.secretInputs ?? []);
  const secretOutputs = [...(spec.secretOutputs ?? [])];

  class DynamicResource extends CustomResource {
    static readonly __pulumiType = token;

    static get(name: string, id: pulumi.Input<string>, opts: pulumi.CustomResourceOptions = {}) {
      return new DynamicResource(name, undefined, { ...opts, id });
    }

    static override isInstance(obj: unknown): obj is pulumi.CustomResource {
      return CustomResource.isInstance(obj) && (obj as unknown as { __pulumiType?: string }).__pulumiType === token;
    }

    constructor(name: string, args: Record<string, unknown> | undefined, opts: pulumi.CustomResourceOptions = {}) {
      // Every declared key is present so each output exists; unknown keys go on so check can name them.
      const props: Record<string, unknown> = {};
      for (const key of new Set([...keys, ...Object.keys(args ?? {})])) {
        const value = args?.[key];
        props[key] = value !== undefined && secretInputs.has(key) ? secretUnlessReference(value) : value;
      }
      props[PROVIDER_KEY] = shim;
      // Which stack's resource declares the object: the services that have room record it (one owner).
      if (!isOperationSpec(spec)) props[OWNER_KEY] = { project: getProject(), stack: getStack(), resource: name };
      if (opts.replaceOnChanges?.length) props[REPLACE_ON_CHANGES_KEY] = opts.replaceOnChanges;
      const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...secretOutputs];
      // The SDK gives each of the four promises of every output a stack trace, which it prints only with
      // PULUMI_DEBUG_PROMISE_LEAKS set, and a program's stack traces are source-mapped: without that
      // setting, those traces were most of a large program's CPU. The resource's source position keeps
      // its frames (the SDK lifts the limit for it).
      const stackTraceLimit = Error.stackTraceLimit;
      if (!process.env.PULUMI_DEBUG_PROMISE_LEAKS) Error.stackTraceLimit = 0;
      try {
        super(token, name, props, { ...opts, additionalSecretOutputs });
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
    }
  }
  Object.defineProperty(DynamicResource, "name", { value: spec.type });
  return DynamicResource as unknown as ResourceClass<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
