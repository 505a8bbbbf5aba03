/** What the transform engine's resources share: the mount, object names, built-ins, defaults the service fills in. */
import { z } from "zod";
import { mountInput, pathSegment } from "../../../provider/keep-object";
import { isUnknown } from "../../../provider/unknowns";
import { durationSeconds } from "../duration";

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

