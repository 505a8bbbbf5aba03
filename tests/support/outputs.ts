/** Stack outputs of the tests' programs. */
import * as pulumi from "@pulumi/pulumi";

/**
 * A program's outputs without those that resolve to nothing: the SDK warns of each undefined stack
 * output ("will not show as a stack output"), which an optional output of a resource may well be.
 */
export function definedOutputs(outputs: Record<string, unknown>): pulumi.Output<Record<string, unknown>> {
  return pulumi.output(outputs).apply((values) => Object.fromEntries(Object.entries(values as Record<string, unknown>).filter(([, v]) => v !== undefined)));
}
