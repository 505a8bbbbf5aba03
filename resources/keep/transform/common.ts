/** What the transform engine's resources share: the mount, object names, built-ins, defaults the service fills in. */
import { z } from "zod";
import { mountInput, pathSegment } from "../../../provider/keep-object";
import { isUnknown } from "../../../provider/unknowns";
import { durationSeconds } from "./duration";

/** Where the transform engine is mounted; `transform` by default. Part of the ID; changing it replaces the object. */
export const transformMount = mountInput("transform");

/** Names the service gives its own objects: `builtin/numeric`, `builtin/creditcardnumber`. */
export const BUILTIN_NAME = /^builtin\/[^/]+$/;

/**
 * An object name: one path segment, or a built-in's `builtin/<name>` (which can only be adopted or
 * read with `get`). Changing it replaces the object.
 */
export const objectName = (what: string) =>
  z.string().superRefine((name, ctx) => {
    if (isUnknown(name) || BUILTIN_NAME.test(name)) return;
    const parsed = pathSegment(what).safeParse(name);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message });
  });

/** `builtIn` of a kind with built-ins: what a `builtin/...` name is, for messages. */
export const builtInOf = (kind: string) => (inputs: { name?: string }) =>
  inputs.name !== undefined && BUILTIN_NAME.test(inputs.name) ? `the built-in ${kind} ${inputs.name}` : undefined;

/** A duration: seconds, a Go duration string such as "24h" or "90m", or days such as "365d". */
export const duration = z.union([z.number().int().min(0), z.string()]).superRefine((value, ctx) => {
  if (isUnknown(value)) return;
  if (durationSeconds(value) === undefined) ctx.addIssue({ code: "custom", message: 'must be a number of seconds, a duration such as "24h" or "90m", or days such as "365d"' });
});

/** Durations compare by their length: "1h", "60m" and 3600 are the same. */
export const normalizeDuration = (value: string | number | undefined) => (value === undefined ? value : durationSeconds(value) ?? value);

/** Path of the object a keep ID names, with its read answer's fields. */
export type Answer = Record<string, unknown>;

/**
 * Read inputs without the values the service fills in by default, where the program left them out:
 * a default the service reports is not drift.
 */
export function withoutDefaults(inputs: Record<string, unknown>, state: Record<string, unknown> | undefined, defaults: Record<string, unknown>): Record<string, unknown> {
  const result = { ...inputs };
  for (const [key, fallback] of Object.entries(defaults)) {
    if (state?.[key] === undefined && JSON.stringify(result[key]) === JSON.stringify(fallback)) delete result[key];
  }
  return result;
}

/**
 * Read values that equal the state's under a normalisation (a duration as "24h" or 86400, a list in
 * another order) keep the state's form, so a refresh reports only real drift.
 */
export function inDeclaredForm(
  inputs: Record<string, unknown>,
  state: Record<string, unknown> | undefined,
  normalizers: Record<string, ((value: never) => unknown) | undefined>,
): Record<string, unknown> {
  const result = { ...inputs };
  for (const [key, normalize] of Object.entries(normalizers)) {
    const declared = state?.[key];
    if (!normalize || declared === undefined || result[key] === undefined) continue;
    if (JSON.stringify(normalize(result[key] as never)) === JSON.stringify(normalize(declared as never))) result[key] = declared;
  }
  return result;
}
