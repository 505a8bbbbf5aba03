/** Input validation for `check`: zod issues become `CheckFailure{property, reason}`, unknown values pass. */
import { z } from "zod";
import { isUnknown } from "./unknowns";

export interface CheckFailure {
  property: string;
  reason: string;
}

/** `paths[0]`, `vcsRepo.identifier`: the property path the engine shows next to the reason. */
export function propertyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === "number") return `${acc}[${key}]`;
    return acc ? `${acc}.${String(key)}` : String(key);
  }, "");
}

/** Whether the value at `path`, or a value on the way to it, is unknown. */
function touchesUnknown(root: unknown, path: readonly PropertyKey[]): boolean {
  let value: unknown = root;
  for (const key of path) {
    if (isUnknown(value)) return true;
    if (value === null || typeof value !== "object") return false;
    value = (value as Record<PropertyKey, unknown>)[key as string];
  }
  return isUnknown(value);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key as string];
  }
  return value;
}

function reasonOf(issue: z.core.$ZodIssue, root: unknown): string {
  const missing = valueAt(root, issue.path) === undefined;
  if (missing && issue.code === "invalid_type") return `is required (${issue.expected})`;
  if (missing && issue.code === "invalid_union") return "is required";
  if (issue.code === "invalid_union") return "has none of the accepted forms";
  return issue.message;
}

export interface ValidationResult<T> {
  /** Parsed inputs with defaults applied; undefined when unknown values prevented a full parse. */
  value?: T;
  failures: CheckFailure[];
}

/**
 * Validates `inputs` against `schema`. Issues about unknown values are dropped: those values are
 * checked again once known. Unknown keys are named as such.
 */
export function validateInputs<T>(schema: z.ZodType<T>, inputs: Record<string, unknown>): ValidationResult<T> {
  const result = schema.safeParse(inputs);
  if (result.success) return { value: result.data, failures: [] };
  const failures: CheckFailure[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        // An empty key still needs a name the engine can show.
        failures.push({ property: propertyPath([...issue.path, key || '""']), reason: "is not a property of this resource" });
      }
      continue;
    }
    if (touchesUnknown(inputs, issue.path)) continue;
    failures.push({ property: propertyPath(issue.path) || "(inputs)", reason: reasonOf(issue, inputs) });
  }
  return { failures };
}
