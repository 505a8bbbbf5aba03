/**
 * What every function of the package shares (they run in the program's process, not the provider
 * host): arguments checked by their schema before any request, and a failure told as the family's
 * error (`MeshFunctionError`, ...) naming the call and what to do.
 */
import { z } from "zod";
import { AdviceOptions, failureMessage } from "./advice";
import { ApiError } from "./errors";
import { validateInputs } from "./validate";

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
    if (options.onlyApiErrors && !(e instanceof ApiError)) throw e;
    throw new ErrorClass(failureMessage(`${call} failed`, e, options.advice), { cause: e });
  }
}
