/** Which inputs of a spec the secrets-by-reference rule applies to: read from the schemas, not a list. */
import { z } from "zod";
import { takesSecretReference } from "../provider/secret-ref";
import { AnySpec, isOperationSpec } from "../provider/spec";

export { takesSecretReference };

/**
 * Credential inputs of a spec that take a secret either as a value or as a reference (ARCHITECTURE.md, "Secrets by reference");
 * secret data (a value to encode, `secretData`) is left to the program.
 */
export function referenceableSecretInputs(spec: AnySpec): string[] {
  const shape = spec.inputs.shape as Record<string, z.ZodType>;
  const data = new Set<string>(isOperationSpec(spec) ? spec.secretData ?? [] : []);
  return (spec.secretInputs ?? []).filter((key) => takesSecretReference(shape[key]) && !data.has(key));
}
