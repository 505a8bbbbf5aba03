/** Transform alphabet: `<mount>/alphabet/:name`, the characters FPE may produce. */
import { z } from "zod";
import { transformObjects } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { isUnknown } from "../../../provider/unknowns";
import { builtInOf, objectName, transformMount } from "./common";
import { nth } from "../../../provider/spec";

const inputs = z.object({
  /** Where the transform engine is mounted (default `transform`). Changing it replaces the alphabet. */
  mount: transformMount,
  /** Alphabet name; `builtin/<name>` names a built-in one (adopt or `get` only). Changing it replaces the alphabet. */
  name: objectName("alphabet name"),
  /** The characters, at least two, none repeated; FPE output uses only these. */
  alphabet: z.string().superRefine((text, ctx) => {
    if (isUnknown(text)) return;
    const characters = Array.from(text);
    if (characters.length < 2) ctx.addIssue({ code: "custom", message: "must have at least two characters" });
    const repeated = characters.filter((c, i) => characters.indexOf(c) !== i);
    if (repeated.length) ctx.addIssue({ code: "custom", message: `must not repeat a character: ${JSON.stringify([...new Set(repeated)].join(""))} appears more than once` });
  }),
});

export const alphabetSpec = keepObject({
  type: "TransformAlphabet",
  description: "An alphabet of the transform engine",
  rows: transformObjects.alphabet,
  id: "{mount*}/alphabet/{name*}",
  inputs,
  builtIn: builtInOf("alphabet"),
  example: { inputs: (n) => ({ name: nth("hex", n), alphabet: "0123456789abcdef" }), change: { alphabet: "0123456789ABCDEF" } },
});

/** An alphabet of the transform engine. ID: `<mount>/alphabet/<name>`, or `<namespace>:<mount>/alphabet/<name>`. */
export const Alphabet = defineResource(alphabetSpec);
export type Alphabet = InstanceType<typeof Alphabet>;
export type AlphabetArgs = ResourceArgs<typeof alphabetSpec.inputs>;
