/** Which inputs of a spec the secrets-by-reference rule applies to: read from the schemas, not a list. */
import { z } from "zod";
import { AnySpec, isOperationSpec } from "../provider/spec";

/**
 * Whether an input's schema takes a secret reference (provider/secret-ref.ts): it accepts one and
 * refuses one with an unknown key, as the strict reference schema does (a map of strings takes both).
 */
export function takesSecretReference(schema: z.ZodType | undefined): boolean {
  if (!schema) return false;
  return schema.safeParse({ fromConfig: "project:key" }).success && !schema.safeParse({ fromConfig: "project:key", unknownKey: "x" }).success;
}

/**
 * Credential inputs of a spec that take a secret either as a value or as a reference (design §8);
 * secret data (a value to encode, `secretData`) is left to the program.
 */
export function referenceableSecretInputs(spec: AnySpec): string[] {
  const shape = spec.inputs.shape as Record<string, z.ZodType>;
  const data = new Set<string>(isOperationSpec(spec) ? spec.secretData ?? [] : []);
  return (spec.secretInputs ?? []).filter((key) => takesSecretReference(shape[key]) && !data.has(key));
}
