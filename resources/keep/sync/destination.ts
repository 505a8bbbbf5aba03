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
import type { OperationContext } from "../../../provider/context";
import { ApiError } from "../../../provider/errors";
import { keepClientOf, keepCommonShape, keepId, pathSegment, scopeOptions, splitKeepId } from "../../../provider/keep-object";
import { answerFields } from "../../../provider/keep-client";
import { resourceSpec, ResourceSpec } from "../../../provider/spec";
import { isUnknown } from "../../../provider/unknowns";
import { DestinationType, pollStatus, secretNameTemplateInput, templateFields } from "./common";
import { route } from "../../../provider/paths";

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
  ...keepCommonShape,
};

const NOT_SENT = new Set(["name", "purgeOnDestroy", "namespace", "cluster"]);
const WIRE: Record<string, string> = { granularity: "granularity", customTags: "custom_tags", secretNameTemplate: "secret_name_template" };
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Builds the spec of one destination type. */
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
  type I = z.output<typeof inputs>;
  const sensitive = new Set<string>(declaration.sensitive);
  const sent = Object.keys(shape).filter((k) => !NOT_SENT.has(k));
  const wireOf = (key: string) => WIRE[key] ?? snakeCase(key);
  const idPrefix = `${destinationType}/`;

  const locate = (ctx: OperationContext, id: string) => {
    const { id: local, ...scope } = splitKeepId(id);
    const name = local.startsWith(idPrefix) ? local.slice(idPrefix.length) : local;
    return { client: keepClientOf(ctx, scope), options: scopeOptions(scope), path: route("sys/sync/destinations/{type}/{name}", { type: destinationType, name }) };
  };

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

  const write = async (ctx: OperationContext, id: string, values: Record<string, unknown>) => {
    const { client, options, path } = locate(ctx, id);
    await client.write(path, bodyOf(values), options);
  };

  /** The declared form of a read: non-sensitive parameters and options; empty values are absent. */
  const inputsOf = (data: Record<string, unknown>): Partial<I> => {
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
    return out as Partial<I>;
  };

  const computed = z.object({
    /** The destination's type, for associations (`destinationType: dest.destinationType`). */
    destinationType: z.literal(destinationType),
  });
  const typeOutput = { destinationType };

  const spec: ResourceSpec<typeof inputs, typeof computed> = resourceSpec({
    module: "keep",
    type: declaration.type,
    description: declaration.description,
    inputs,
    computed,
    replaceOnChanges: ["name", "namespace", "cluster"] as never,
    secretInputs: declaration.sensitive as never,
    writeOnly: declaration.sensitive as never,
    naturalId: (values) => {
      const v = values as { name: string; namespace?: string; cluster?: string };
      return keepId(v, `${idPrefix}${v.name}`);
    },
    fromId(id) {
      const { id: local, ...scope } = splitKeepId(id);
      return { ...scope, name: local.startsWith(idPrefix) ? local.slice(idPrefix.length) : local } as unknown as Partial<I>;
    },
    async create(ctx, values) {
      const id = spec.naturalId(values);
      await write(ctx, id, values as Record<string, unknown>);
      return { id, computed: typeOutput };
    },
    async read(ctx, id) {
      const { client, options, path } = locate(ctx, id);
      const data = answerFields(await client.read(path, options));
      return data && { inputs: inputsOf(data), computed: typeOutput };
    },
    async update(ctx, id, values) {
      await write(ctx, id, values as Record<string, unknown>);
      return typeOutput;
    },
    async delete(ctx, id, state) {
      const { client, options, path } = locate(ctx, id);
      if (state.purgeOnDestroy === true) {
        await client.delete(path, { ...options, query: { purge: "true" } });
        // The service unsyncs the associations in the background and then deletes the destination.
        await pollStatus(
          client,
          `destination ${destinationType}/${state.name} to be purged and deleted`,
          () => client.read(path, options),
          (answer) => answer === undefined,
          () => "still there (associations are being unsynced)",
        );
        return;
      }
      try {
        await client.delete(path, options);
      } catch (e) {
        if (e instanceof ApiError && e.status === 400 && /associations/.test(e.message)) {
          throw new Error(`${e.message}. Remove those associations first, or set \`purgeOnDestroy: true\` so destroy has the service unsync and remove them`);
        }
        throw e;
      }
    },
    async list(ctx) {
      const names = await ctx.keep().list(`sys/sync/destinations/${destinationType}`);
      return names.map((name) => `${idPrefix}${name}`);
    },
  });
  return spec;
}
