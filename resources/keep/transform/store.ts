/** Transform store: `<mount>/stores/:name`, a SQL database that keeps tokenization's tokens. */
import { z } from "zod";
import { transformObjects } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { isUnknown } from "../../../provider/unknowns";
import { builtInOf, duration, normalizeDuration, objectName, transformMount } from "./common";
import { nth } from "../../../provider/spec";

const inputs = z
  .object({
    /** Where the transform engine is mounted (default `transform`). Changing it replaces the store. */
    mount: transformMount,
    /** Store name, listed in a tokenization transformation's `stores`. Changing it replaces the store. */
    name: objectName("store name"),
    /** Store type; only `sql`. */
    type: z.literal("sql", { error: "must be sql (the only store type)" }).default("sql"),
    /** Database driver: `postgres` or `mysql`. */
    driver: z.enum(["postgres", "mysql"], { error: "must be postgres or mysql" }),
    /**
     * Connection string with `{{username}}` and `{{password}}` slots the service fills in, e.g.
     * `postgresql://{{username}}:{{password}}@db:5432/tokens`; a MySQL one must set `parseTime=true`.
     */
    connectionString: z.string().superRefine((text, ctx) => {
      if (isUnknown(text)) return;
      const missing = ["{{username}}", "{{password}}"].filter((slot) => !text.includes(slot));
      if (missing.length) ctx.addIssue({ code: "custom", message: `must contain the ${missing.join(" and ")} slot${missing.length > 1 ? "s" : ""}: the service fills in the credentials there` });
    }),
    /** Database user the service connects as. */
    username: z.string().min(1, "must not be empty"),
    /**
     * Database password: a string (kept in state as a secret) or a reference the provider host
     * resolves (`{ fromConfig: "app:dbPassword" }`, `{ fromEnv: "DB_PASSWORD" }`, `{ fromFile: "..." }`),
     * which keeps it out of state. Write-only: the service never returns it.
     */
    password: secretInput("store password"),
    /** Transformation types the store serves (default `["tokenization"]`). */
    supportedTransformations: z.array(z.literal("tokenization", { error: "must be tokenization" })).default(["tokenization"]),
    /** Database schema of the tables (default `public`). */
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a plain SQL identifier").optional(),
    /** Most open connections (default 4). */
    maxOpenConnections: z.number().int().min(1).optional(),
    /** Most idle connections kept (default 4). */
    maxIdleConnections: z.number().int().min(0).optional(),
    /** Longest life of a connection, as seconds or a duration; 0 (default) means no limit. */
    maxConnectionLifetime: duration.optional(),
  })
  .superRefine((values, ctx) => {
    if (values.driver === "mysql" && typeof values.connectionString === "string" && !isUnknown(values.connectionString) && !/[?&]parseTime=true(&|$)/.test(values.connectionString)) {
      ctx.addIssue({ code: "custom", path: ["connectionString"], message: "must set parseTime=true for a mysql store (e.g. `...@tcp(db:3306)/tokens?parseTime=true`)" });
    }
  });

export const storeSpec = keepObject({
  type: "TransformStore",
  description: "A SQL store of the transform engine's tokens",
  rows: transformObjects.store,
  id: "{mount*}/stores/{name*}",
  inputs,
  // The service answers only the type, connection string and supported transformations.
  fields: {
    driver: { writeOnly: true },
    username: { writeOnly: true },
    password: { writeOnly: true },
    schema: { writeOnly: true },
    maxOpenConnections: { writeOnly: true },
    maxIdleConnections: { writeOnly: true },
    maxConnectionLifetime: { writeOnly: true },
  },
  secretInputs: ["password"],
  normalize: { maxConnectionLifetime: normalizeDuration },
  builtIn: builtInOf("store"),
  example: {
    inputs: (n) => ({
      name: nth("tokens", n),
      driver: "postgres" as const,
      connectionString: "postgresql://{{username}}:{{password}}@127.0.0.1:5432/tokens",
      username: "store",
      password: { fromConfig: "app:secret" },
    }),
    change: { maxOpenConnections: 8 },
  },
});

/** A SQL store of the transform engine. ID: `<mount>/stores/<name>`. */
export const Store = defineResource(storeSpec);
export type Store = InstanceType<typeof Store>;
export type StoreArgs = ResourceArgs<typeof storeSpec.inputs>;
