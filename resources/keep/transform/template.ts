/** Transform template: `<mount>/template/:name`, the pattern whose capture groups are transformed. */
import { z } from "zod";
import { transformObjects } from "../../../provider/contracts/keep";
import { keepId, keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { isUnknown } from "../../../provider/unknowns";
import { builtInOf, objectName, transformMount } from "./common";
import { compilePattern, CompiledPattern, missingGroups } from "./pattern";
import { nth } from "../../../provider/spec";

function compiles(pattern: unknown): CompiledPattern | undefined {
  if (typeof pattern !== "string" || isUnknown(pattern)) return undefined;
  try {
    return compilePattern(pattern);
  } catch {
    return undefined;
  }
}

const inputs = z
  .object({
    /** Where the transform engine is mounted (default `transform`). Changing it replaces the template. */
    mount: transformMount,
    /** Template name; `builtin/<name>` names a built-in one (adopt or `get` only). Changing it replaces the template. */
    name: objectName("template name"),
    /** Template type; only `regex`. */
    type: z.literal("regex", { error: "must be regex (the only template type)" }).default("regex"),
    /**
     * Regular expression of the service's dialect (RE2-like: no lookaround, no backreferences) with at
     * least one capture group. Captured characters are transformed; the rest of a value is kept.
     */
    pattern: z.string().superRefine((pattern, ctx) => {
      if (isUnknown(pattern)) return;
      try {
        const compiled = compilePattern(pattern);
        if (compiled.groups === 0) ctx.addIssue({ code: "custom", message: "must have at least one capture group: the groups mark what is transformed" });
      } catch (e) {
        ctx.addIssue({ code: "custom", message: `is not a regular expression of the service's dialect: ${(e as Error).message}` });
      }
    }),
    /** Alphabet name (FPE): the characters the captured text is made of and encodes to, e.g. `builtin/numeric`. */
    alphabet: z.string().optional(),
    /** FPE only: how encoded values are written, e.g. `$1-$2-$3-$4`; by default the input's own format is kept. */
    encodeFormat: z.string().optional(),
    /** FPE only: named formats a decode may ask for, e.g. `{ "last-four": "$4" }`. */
    decodeFormats: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((values, ctx) => {
    const compiled = compiles(values.pattern);
    if (!compiled) return;
    const formats: [string[], unknown][] = [[["encodeFormat"], values.encodeFormat], ...Object.entries(values.decodeFormats ?? {}).map(([k, v]): [string[], unknown] => [["decodeFormats", k], v])];
    for (const [path, format] of formats) {
      if (typeof format !== "string" || isUnknown(format)) continue;
      const missing = missingGroups(compiled, format);
      if (missing.length) {
        ctx.addIssue({ code: "custom", path, message: `refers to ${missing.map((g) => `$${g}`).join(", ")}, which the pattern has no group for (it has ${compiled.groups}${compiled.names.length ? `: ${compiled.names.join(", ")} by name` : ""})` });
      }
    }
  });

export const templateSpec = keepObject({
  type: "TransformTemplate",
  description: "A template of the transform engine",
  rows: transformObjects.template,
  id: "{mount*}/template/{name*}",
  inputs,
  builtIn: builtInOf("template"),
  references: { alphabet: { types: ["keep:TransformAlphabet"], id: (name, v) => keepId(v, `${v.mount}/alphabet/${name}`) } },
  // The service reports an empty alphabet and formats where none were declared.
  serviceDefaults: { alphabet: "", encodeFormat: "", decodeFormats: {} },
  example: {
    inputs: (n) => ({ name: nth("card", n), pattern: "(\\d{4})-(\\d{4})-(\\d{4})-(\\d{4})", alphabet: "builtin/numeric" }),
    change: { pattern: "(\\d{4})[- ](\\d{4})[- ](\\d{4})[- ](\\d{4})" },
  },
});

/** A template of the transform engine. ID: `<mount>/template/<name>`. */
export const Template = defineResource(templateSpec);
export type Template = InstanceType<typeof Template>;
export type TemplateArgs = ResourceArgs<typeof templateSpec.inputs>;
