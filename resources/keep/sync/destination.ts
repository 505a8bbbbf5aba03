/**
 * One builder for the five sync destination types (`sys/sync/destinations/<type>/:name`): each
 * type declares its parameters from the spec's table, which are sensitive, and its rules between
 * parameters; the builder gives the routes, the ID `<type>/<name>`, the wire names, the read of
 * `connection_details` and `options`, and destroy with or without `purge`.
 *
 * Sensitive parameters are write-only secrets (a value or a reference): the service shows them
 * obfuscated, so they are never compared. The others are compared on refresh: drift is seen and
 * the next `up` writes the declared value back.
 */
import { z } from "zod";
import { syncObjects } from "../../../provider/contracts/keep";
import { ApiError } from "../../../provider/errors";
import { keepObject, pathSegment } from "../../../provider/keep-object";
import { snakeCase } from "../../../provider/names";
import { isUnknown } from "../../../provider/unknowns";
import { DestinationType, pollStatus, secretNameTemplateInput, templateFields } from "./common";

/** A rule between parameters, broken: the property to name and why. */
export interface DestinationIssue {
  path: string[];
  message: string;
}

export interface DestinationDeclaration<T extends DestinationType, P extends z.ZodRawShape> {
  /** Type name in the token `keep:<type>`. */
  type: string;
  /** The destination type in the API's paths. */
  destinationType: T;
  description: string;
  /** Example inputs: a name and the type's parameters (see `SpecExample`). */
  example: { inputs(n: number): { name: string } & z.input<z.ZodObject<P>>; change: Partial<z.input<z.ZodObject<P>>> };
  /** The type's parameters, in camel case; wire names are their snake case. */
  parameters: P;
  /** Parameters the service obfuscates on read: write-only secrets. */
  sensitive: readonly (keyof P & string)[];
  /** Rules between parameters, run in preview; values may be unknown there. */
  rules?(inputs: Record<string, unknown>): DestinationIssue[];
}

/** `{ name, purgeOnDestroy, secretNameTemplate, namespace, cluster }` and the type's parameters. */
const commonShape = {
  /** Name of the destination; changing it replaces the destination. */
  name: pathSegment("destination name"),
  /** Name template of the external secrets (`{{ .SecretPath }}`, `{{ .SecretKey }}`, ...); the type's default when absent. */
  secretNameTemplate: secretNameTemplateInput,
  /**
   * Destroy with `purge`: the service unsyncs and removes every association of the destination
   * first (in the background; destroy waits until the destination is gone). Without it, the
   * service refuses to delete a destination that still manages associations.
   */
  purgeOnDestroy: z.boolean().optional(),
};

const NOT_SENT = new Set(["name", "purgeOnDestroy", "namespace", "cluster"]);
const WIRE: Record<string, string> = { granularity: "granularity", customTags: "custom_tags", secretNameTemplate: "secret_name_template" };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Builds the spec of one destination type: an object at `sys/sync/destinations/<type>/{name}`. */
export function destinationSpec<T extends DestinationType, P extends z.ZodRawShape>(declaration: DestinationDeclaration<T, P>) {
  const { destinationType } = declaration;
  const shape = { ...commonShape, ...declaration.parameters } as typeof commonShape & P;
  const inputs = z.object(shape).superRefine(
    (values, ctx) => {
      const given = values as Record<string, unknown>;
      const issues = [...(declaration.rules?.(given) ?? [])];
      const template = given.secretNameTemplate;
      if (typeof template === "string" && template !== "" && !isUnknown(template) && given.granularity === "secret-key") {
        const checked = templateFields(template);
        if ("fields" in checked && !checked.fields.includes("SecretKey")) {
          issues.push({ path: ["secretNameTemplate"], message: "must use {{ .SecretKey }} with granularity secret-key: each key becomes its own external secret" });
        }
      }
      for (const issue of issues) ctx.addIssue({ code: "custom", ...issue });
    },
    { when: () => true },
  );
  const sensitive = new Set<string>(declaration.sensitive);
  const sent = Object.keys(shape).filter((k) => !NOT_SENT.has(k));
  const wireOf = (key: string) => WIRE[key] ?? snakeCase(key);

  /**
   * Every parameter is sent: one left out is sent empty, so a value set behind the program's back
   * is put back to what the program declares (nothing).
   */
  const bodyOf = (values: Record<string, unknown>) => {
    const body: Record<string, unknown> = {};
    for (const key of sent) {
      const value = values[key];
      if (value !== undefined) body[wireOf(key)] = value;
      else body[wireOf(key)] = key === "customTags" ? {} : "";
    }
    return body;
  };

  /** The declared form of a read: non-sensitive parameters and options; empty values are absent. */
  const inputsOf = (data: Record<string, unknown>) => {
    const connection = isObject(data.connection_details) ? data.connection_details : {};
    const options = isObject(data.options) ? data.options : {};
    const out: Record<string, unknown> = {};
    for (const key of sent) {
      if (sensitive.has(key)) continue;
      const value =
        key === "granularity" ? options.granularity_level : key === "customTags" ? options.custom_tags : key === "secretNameTemplate" ? options.secret_name_template : connection[wireOf(key)];
      const empty = value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
      if (!empty) out[key] = value;
    }
    return out;
  };

  const typeOutput = { destinationType };
  return keepObject({
    type: declaration.type,
    description: declaration.description,
    example: declaration.example as never,
    rows: syncObjects.destinations[destinationType],
    id: `${destinationType}/{name}`,
    // A bare name given by hand is a destination of this type.
    completeId: (local) => `${destinationType}/${local}`,
    inputs,
    fields: Object.fromEntries(declaration.sensitive.map((key) => [key, { writeOnly: true }])) as never,
    secretInputs: declaration.sensitive as never,
    computed: z.object({
      /** The destination's type, for associations (`destinationType: dest.destinationType`). */
      destinationType: z.literal(destinationType),
    }),
    computedOf: () => typeOutput,
    readAfterWrite: false,
    bodyOf: (values) => bodyOf(values as Record<string, unknown>),
    inputsOf: (answer) => inputsOf(answer) as never,
    async deleteWith(_ctx, { client, options, rows, params }, state) {
      if (state.purgeOnDestroy === true) {
        await client.send(rows.delete, { params, options: { ...options, query: { purge: "true" } } });
        // The service unsyncs the associations in the background and then deletes the destination.
        await pollStatus(
          client,
          `destination ${destinationType}/${state.name} to be purged and deleted`,
          async () => (await client.send(rows.read, { params, options }))?.body,
          (answer) => answer === undefined,
          () => "still there (associations are being unsynced)",
        );
        return;
      }
      try {
        await client.send(rows.delete, { params, options });
      } catch (e) {
        if (e instanceof ApiError && e.status === 400 && /associations/.test(e.message)) {
          throw new Error(`${e.message}. Remove those associations first, or set \`purgeOnDestroy: true\` so destroy has the service unsync and remove them`);
        }
        throw e;
      }
    },
  });
}
