/**
 * Transformation: written at `<mount>/transformations/<type>/:name`, read at
 * `<mount>/transformation/:name`. The type is immutable: changing it replaces the transformation.
 */
import { z } from "zod";
import { transformObjects } from "../../../provider/contracts/keep";
import { keepId, keepObject, pathSegment } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { isUnknown } from "../../../provider/unknowns";
import { duration, normalizeDuration, transformMount } from "./common";
import { nth } from "../../../provider/spec";

export const TRANSFORMATION_TYPES = ["fpe", "masking", "tokenization"] as const;
export type TransformationType = (typeof TRANSFORMATION_TYPES)[number];

/** The parameters each type takes besides `allowedRoles`. */
const PARAMETERS: Record<TransformationType, readonly string[]> = {
  fpe: ["template", "tweakSource"],
  masking: ["template", "maskingCharacter"],
  tokenization: ["mappingMode", "maxTtl", "stores"],
};

/** The types each parameter belongs to. */
const OWNERS: Record<string, TransformationType[]> = {};
for (const type of TRANSFORMATION_TYPES) for (const key of PARAMETERS[type]) (OWNERS[key] ??= []).push(type);

/** What the service fills in when a parameter is left out, by type. */
const DEFAULTS: Record<TransformationType, Record<string, unknown>> = {
  fpe: { tweakSource: "supplied", allowedRoles: [] },
  masking: { maskingCharacter: "*", allowedRoles: [] },
  tokenization: { mappingMode: "default", maxTtl: 0, stores: ["builtin/internal"], allowedRoles: [] },
};

const EXPORTABLE_WARNING =
  "mapping mode `exportable` lets anyone allowed to export decode every value the transformation ever tokenized; `default` is strongly recommended";

const inputs = z
  .object({
    /** Where the transform engine is mounted (default `transform`). Changing it replaces the transformation. */
    mount: transformMount,
    /** Transformation name. Changing it replaces the transformation. */
    name: pathSegment("transformation name"),
    /** `fpe`, `masking` or `tokenization`; immutable on the service, so changing it replaces the transformation. */
    type: z.enum(TRANSFORMATION_TYPES, { error: "must be fpe, masking or tokenization" }),
    /** FPE and masking (required): the template whose capture groups are transformed. */
    template: z.string().min(1, "must name a template").optional(),
    /**
     * FPE: where the 7-byte tweak comes from: `supplied` (default; the caller gives one on encode and
     * decode), `generated` (returned by encode, needed to decode) or `internal` (the service's own).
     */
    tweakSource: z.enum(["supplied", "generated", "internal"], { error: "must be supplied, generated or internal" }).optional(),
    /** Masking: the one character captured characters become (default `*`). */
    maskingCharacter: z
      .string()
      .refine((s) => isUnknown(s) || Array.from(s).length === 1, "must be exactly one character")
      .optional(),
    /**
     * Tokenization: `default` (strongly recommended) or `exportable`, which lets every tokenized value
     * be decoded in bulk through an export endpoint in an emergency.
     */
    mappingMode: z.enum(["default", "exportable"], { error: "must be default or exportable" }).optional(),
    /** Tokenization: longest life of a token, as seconds or a duration ("24h"); 0 or absent: tokens never expire. */
    maxTtl: duration.optional(),
    /** Tokenization: stores that keep the tokens, the first one used (default `["builtin/internal"]`). */
    stores: z.array(z.string().min(1, "must name a store")).min(1, "must name at least one store").optional(),
    /** Roles that may use this transformation (globs allowed: `payments-*`); each role must list it too. */
    allowedRoles: z.array(z.string().min(1, "must name a role or a glob")).default([]),
  })
  .superRefine((values, ctx) => {
    const type = values.type;
    if (isUnknown(type) || !PARAMETERS[type]) return;
    for (const [key, owners] of Object.entries(OWNERS)) {
      if (values[key as keyof typeof values] !== undefined && !owners.includes(type)) {
        ctx.addIssue({ code: "custom", path: [key], message: `is a parameter of ${owners.join(" and ")} transformations, not of a ${type} one` });
      }
    }
    if ((type === "fpe" || type === "masking") && values.template === undefined) {
      ctx.addIssue({ code: "custom", path: ["template"], message: `is required for a ${type} transformation` });
    }
  });

export const transformationSpec = keepObject({
  type: "TransformTransformation",
  description: "A transformation of the transform engine (FPE, masking or tokenization)",
  rows: transformObjects.transformation,
  id: "{mount*}/transformation/{name}",
  inputs,
  computed: z.object({
    /** The templates the service reports for the transformation (the written `template`, as a list). */
    templates: z.array(z.string()).default([]),
  }),
  computedOf: (answer) => ({ templates: Array.isArray(answer.templates) ? answer.templates.map(String) : [] }),
  normalize: {
    maxTtl: normalizeDuration,
    allowedRoles: (roles) => [...roles].sort(),
  },
  // allowedRoles is left out: roles name their transformations, and a reference each way would be a cycle.
  references: {
    template: { types: ["keep:TransformTemplate"], id: (name, v) => keepId(v, `${v.mount}/template/${name}`) },
    stores: { types: ["keep:TransformStore"], id: (name, v) => keepId(v, `${v.mount}/stores/${name}`) },
  },
  inputsOf: (answer) => inputsOfAnswer(answer) as never,
  serviceDefaults: (read) => DEFAULTS[read.type as TransformationType] ?? {},
  keepDeclaredForm: true,
  onWrite(ctx, values, olds) {
    if (values.mappingMode === "exportable" && olds?.mappingMode !== "exportable") ctx.warn(`keep:TransformTransformation "${values.name}": ${EXPORTABLE_WARNING}`);
  },
  example: { inputs: (n) => ({ name: nth("card-fpe", n), type: "fpe" as const, template: "builtin/creditcardnumber" }), change: { allowedRoles: ["payments"] } },
});

/** The read answers `templates` (a list) for the written `template`; only the type's own parameters are part of it. */
function inputsOfAnswer(answer: Record<string, unknown> & { type: string; templates?: string[] | null }): Record<string, unknown> {
  const type = answer.type as TransformationType;
  const read: Record<string, unknown> = {
    type,
    template: answer.templates?.[0],
    tweakSource: answer.tweak_source,
    maskingCharacter: answer.masking_character,
    mappingMode: answer.mapping_mode,
    maxTtl: answer.max_ttl,
    stores: answer.stores,
    allowedRoles: answer.allowed_roles ?? [],
  };
  // The service may report the other types' parameters empty.
  for (const key of Object.values(PARAMETERS).flat()) if (!PARAMETERS[type]?.includes(key) || read[key] === null || read[key] === "") delete read[key];
  for (const key of Object.keys(read)) if (read[key] === undefined) delete read[key];
  return read;
}

/**
 * A transformation of the transform engine: format-preserving encryption (`fpe`), `masking` or
 * `tokenization`. ID: `<mount>/transformation/<name>`.
 */
export const Transformation = defineResource(transformationSpec);
export type Transformation = InstanceType<typeof Transformation>;
export type TransformationArgs = ResourceArgs<typeof transformationSpec.inputs>;
