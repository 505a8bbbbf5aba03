/**
 * Store schema: `<mount>/stores/:name/schema` as an operation. It creates the tables a store's
 * tokens need, with credentials used for this call only (they may hold DDL rights the store's own
 * user lacks). Runs at create, again when an input or `triggers` changes; destroy leaves the tables.
 */
import { z } from "zod";
import { transform } from "../../../provider/contracts/keep";
import { keepClientOf, keepCommonShape, pathSegment, scopeOptions } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { nth, operationSpec } from "../../../provider/spec";
import { transformMount } from "./common";

const inputs = z.object({
  /** Where the transform engine is mounted (default `transform`). */
  mount: transformMount,
  /** The store whose schema is created. */
  store: pathSegment("store name"),
  /** Database user for this call only; may hold DDL rights. */
  username: z.string().min(1, "must not be empty"),
  /**
   * Password of `username`: a string (kept in state as a secret) or a reference the provider host
   * resolves (`{ fromConfig }`, `{ fromEnv }`, `{ fromFile }`), which keeps it out of state.
   */
  password: secretInput("schema password"),
  /** Transformation type the tables serve (default `tokenization`). */
  transformationType: z.literal("tokenization", { error: "must be tokenization" }).default("tokenization"),
  ...keepCommonShape,
});

export const storeSchemaSpec = operationSpec({
  module: "keep",
  type: "TransformStoreSchema",
  description: "Creates the tables of a transform store (an operation)",
  inputs,
  computed: z.object({}),
  secretInputs: ["password"],
  label: (values) => `${values.mount}/stores/${values.store}/schema`,
  async run(ctx, values) {
    // A password given by reference reaches run resolved.
    const body = { username: values.username, password: values.password as string, transformation_type: values.transformationType };
    await keepClientOf(ctx, values).send(transform.storeSchema, { params: values, body, options: scopeOptions(values) });
    return {};
  },
  example: { inputs: (n) => ({ store: nth("tokens", n), username: "admin", password: { fromEnv: "APP_SECRET" } }) },
});

/** Creates a transform store's tables (`stores/<name>/schema`); `triggers` runs it again. */
export const StoreSchema = defineResource(storeSchemaSpec);
export type StoreSchema = InstanceType<typeof StoreSchema>;
export type StoreSchemaArgs = OperationArgs<typeof storeSchemaSpec.inputs>;
