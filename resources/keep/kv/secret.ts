/**
 * Key-value version 2 secret: `<mount>/data/<path>` (writes a new version), deleted with every
 * version through `<mount>/metadata/<path>`. A program declares here what it syncs.
 */
import { z } from "zod";
import { kv, kvSecret } from "../../../provider/contracts/keep";
import { keepClientOf, keepObject, mountInput, scopeOptions, splitKeepId } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import type { OperationContext } from "../../../provider/context";
import { ApiError } from "../../../provider/errors";
import { canonical } from "../../../provider/object-machine";
import { nth } from "../../../provider/spec";

const inputs = z.object({
  /** Mount path of the key-value version 2 engine; `secret` by default. Changing it replaces the secret. */
  mount: mountInput("secret"),
  /** Path of the secret inside the mount (`app/db`); changing it replaces the secret. */
  path: z
    .string()
    .transform((s) => s.replace(/^\/+|\/+$/g, ""))
    .refine((s) => s.length > 0, "must be the path of the secret, such as app/db")
    .refine((s) => !s.split("/").some((part) => part.endsWith(".")), "must not have a segment ending in a period (the service answers 404 for such paths)"),
  /** The secret's keys and values; each change writes a new version. Stored as a Pulumi secret. */
  data: z.record(z.string(), z.string()).refine((d) => Object.keys(d).length > 0, "must hold at least one key"),
});

const base = keepObject({
  type: "KvSecret",
  description: "A key-value version 2 secret",
  rows: kvSecret,
  id: "{mount*}/{path*}",
  inputs,
  secretInputs: ["data"],
  computed: z.object({
    /** The version the last write made (or the latest one, after a refresh). */
    version: z.number(),
  }),
  computedOf: (answer) => {
    const metadata = (answer.metadata ?? answer) as { version?: unknown };
    return { version: Number(metadata.version ?? 0) };
  },
  example: { inputs: (n) => ({ path: nth("app/db", n), data: { user: "app", password: "pw" } }), change: { data: { user: "app", password: "pw2" } } },
});

/** Where a secret's metadata lives: `<mount>/metadata/<path>`. */
function metadataPath(id: string, state: Record<string, unknown> = {}) {
  const { id: local, ...scope } = splitKeepId(id);
  const parsed = base.fromId(id);
  const mount = typeof state.mount === "string" ? state.mount : String(parsed.mount);
  const path = typeof state.path === "string" && local === `${mount}/${state.path}` ? state.path : String(parsed.path);
  return { scope, mount, path };
}

/** Writes a new version of the secret named by `values`, if `cas` is its current version (0: if it does not exist). */
async function writeVersion(ctx: OperationContext, id: string, values: { mount: string; path: string; data: Record<string, string> }, cas: number): Promise<{ version: number }> {
  const { id: _local, ...scope } = splitKeepId(id);
  const written = await keepClientOf(ctx, scope).send(kvSecret.write, {
    params: { mount: values.mount, path: values.path },
    body: { data: values.data, options: { cas } },
    options: scopeOptions(scope),
  });
  return { version: Number(written.body?.version ?? 0) };
}

/** The service's answer to a write whose `cas` names another version than the current one. */
const isCasMismatch = (error: ApiError) => error.status === 400 && error.messages.some((m) => /check-and-set/i.test(m));

export const kvSecretSpec: typeof base = {
  ...base,
  // A create writes with `cas: 0`, which the service refuses when the secret exists: nothing is
  // written over, and no read is needed first (ARCHITECTURE.md, "One owner").
  isConflict: isCasMismatch,
  async create(ctx, values) {
    const id = base.naturalId(values);
    return { id, computed: await writeVersion(ctx, id, values, 0) };
  },
  // Each update writes with `cas` set to the version the state knows, so an attempt the client sends
  // again (its answer lost, or given after the client gave up) writes no further version: the
  // service refuses it, and the read that follows finds the data written. Someone else's version
  // since (drift not yet refreshed) is written over once, as any update of a declared value is.
  async update(ctx, id, values, olds) {
    try {
      return await writeVersion(ctx, id, values, Number(olds.version ?? 0));
    } catch (e) {
      if (!(e instanceof ApiError) || !isCasMismatch(e)) throw e;
      const { id: _local, ...scope } = splitKeepId(id);
      const current = (await keepClientOf(ctx, scope).send(kvSecret.read, { params: { mount: values.mount, path: values.path }, options: scopeOptions(scope) }))?.body;
      const version = Number((current?.metadata as { version?: unknown } | undefined)?.version ?? 0);
      if (current && canonical(current.data) === canonical(values.data)) return { version };
      return writeVersion(ctx, id, values, version);
    }
  },
  async delete(ctx, id, state) {
    const { scope, mount, path } = metadataPath(id, state);
    await keepClientOf(ctx, scope).send(kv.deleteMetadata, { params: { mount, path }, options: scopeOptions(scope) });
  },
  async list(ctx) {
    // Directories end in `/`: walk them (the `secret` mount, in the configured namespace).
    const ids: string[] = [];
    const walk = async (prefix: string): Promise<void> => {
      const listed = prefix
        ? await ctx.keep().send(kv.listMetadata, { params: { mount: "secret", prefix } })
        : await ctx.keep().send(kv.listMetadataRoot, { params: { mount: "secret" } });
      for (const key of listed?.body ?? []) {
        if (key.endsWith("/")) await walk(`${prefix}${key}`);
        else ids.push(`secret/${prefix}${key}`);
      }
    };
    await walk("");
    return ids;
  },
};

/** A key-value version 2 secret. ID: `<mount>/<path>`, or `<namespace>:<mount>/<path>`. */
export const Secret = defineResource(kvSecretSpec);
export type Secret = InstanceType<typeof Secret>;
export type SecretArgs = ResourceArgs<typeof kvSecretSpec.inputs>;
