/**
 * What every function of the package shares (they run in the program's process, not the provider
 * host): arguments checked by their schema before any request, the program's stack configuration as
 * the default context, and a failure told as the family's error (`MeshFunctionError`, ...) naming
 * the call and what to do. A function is a declaration on its family (`family.define({...})`).
 */
import { z } from "zod";
import { AdviceOptions, failureMessage } from "./advice";
import { OperationContext, programContext } from "./context";
import { ApiError } from "./errors";
import { validateInputs } from "./validate";

/** The error of every function; each family's class (`MeshFunctionError`, ...) extends it and names itself. */
export class FunctionError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The error class of one family of functions; its instances name the family. */
export type FunctionErrorClass = new (message: string, options?: ErrorOptions) => Error;

/**
 * A function's arguments parsed by `schema`, or the family's error naming each argument:
 * `<call>: invalid arguments: a: ...; b: ...` (`heading` replaces `invalid arguments: `).
 */
export function functionArguments<S extends z.ZodType>(ErrorClass: FunctionErrorClass, call: string, schema: S, args: unknown, heading = "invalid arguments: "): z.output<S> {
  const result = validateInputs(schema as never, (args ?? {}) as Record<string, unknown>);
  if (result.failures.length || result.value === undefined) {
    // The shared validation speaks of resource properties; these are arguments.
    const reasons = result.failures.map((f) => `${f.property}: ${f.reason.replace("a property of this resource", `an argument of ${call}`)}`);
    throw new ErrorClass(`${call}: ${heading}${reasons.join("; ")}`);
  }
  return result.value as z.output<S>;
}

export interface FunctionCallOptions {
  /** Wrap only refused requests: the function's own errors already say what is wrong. */
  onlyApiErrors?: boolean;
  advice?: AdviceOptions;
}

/** Runs one call; a failure becomes the family's error: `<call> failed: <what went wrong>. <what to do>.` */
export async function functionCall<T>(ErrorClass: FunctionErrorClass, call: string, run: () => Promise<T>, options: FunctionCallOptions = {}): Promise<T> {
  try {
    return await run();
  } catch (e) {
    // The family's own errors already say what is wrong.
    if (e instanceof ErrorClass || (options.onlyApiErrors && !(e instanceof ApiError))) throw e;
    throw new ErrorClass(failureMessage(`${call} failed`, e, options.advice), { cause: e });
  }
}

/** One function of a family: arguments `A`, result `R`; `P` is what its schema gives (the arguments as given when it has none). */
export interface FunctionSpec<A, P, R> {
  /** The name after the family's prefix: `getCredentials`. */
  name: string;
  /** The arguments' schema; without one, the arguments go to `run` as given. */
  args?: z.ZodType<P, A>;
  /** What the call is about, inside its parentheses in errors: `role "web"`. */
  about?: (args: P) => string;
  /** Checks across arguments, before any request; `refuse` throws `<prefix>.<name>: <message>`. */
  check?: (args: P, refuse: (message: string) => never) => void;
  /** What the call needs, for the advice on a refusal. */
  advice?: (args: P) => AdviceOptions;
  /** The work: requests through `ctx`'s clients, the answer mapped to the result. */
  run: (args: P, ctx: OperationContext, fail: (message: string) => never) => Promise<R>;
}

export interface FunctionFamilyOptions {
  /** `keep.cloud`, `mesh`, ...: a call is named `<prefix>.<name>(<about>)`. */
  prefix: string;
  error: FunctionErrorClass;
  /** Wrap only refused requests: the family's own errors already say what is wrong. */
  onlyApiErrors?: boolean;
  /** Refused arguments read `<prefix>.<name>(): a: ...` instead of `<prefix>.<name>: invalid arguments: a: ...`. */
  bareRefusals?: boolean;
}

/**
 * A function as programs call it: its arguments may be left out when none is required. `ctx` is for
 * the package's own tests (default: the program's stack configuration).
 */
export type DeclaredFunction<A, R> = object extends A ? (args?: A, ctx?: OperationContext) => Promise<R> : (args: A, ctx?: OperationContext) => Promise<R>;

/** The functions of one family: each declared with `define`, all with the family's error and naming. */
export function functionFamily(family: FunctionFamilyOptions) {
  const { prefix, error: ErrorClass } = family;
  return {
    define<A, R, P = A>(spec: FunctionSpec<A, P, R>): DeclaredFunction<A, R> {
      const name = `${prefix}.${spec.name}`;
      return (async (args: A, ctx: OperationContext = programContext()) => {
        const parsed = spec.args
          ? family.bareRefusals
            ? functionArguments(ErrorClass, `${name}()`, spec.args, args, "")
            : functionArguments(ErrorClass, name, spec.args, args)
          : ((args ?? {}) as unknown as P);
        spec.check?.(parsed, (message) => {
          throw new ErrorClass(`${name}: ${message}`);
        });
        const call = `${name}(${spec.about?.(parsed) ?? ""})`;
        const fail = (message: string): never => {
          throw new ErrorClass(`${call}: ${message}`);
        };
        return functionCall(ErrorClass, call, () => spec.run(parsed, ctx, fail), { onlyApiErrors: family.onlyApiErrors, advice: spec.advice?.(parsed) });
      }) as DeclaredFunction<A, R>;
    },
  };
}
