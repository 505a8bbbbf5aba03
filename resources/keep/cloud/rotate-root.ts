/**
 * Root rotation: `<mount>/config/rotate-root` as an operation (ARCHITECTURE.md, "Operations are resources"). The service makes a new
 * access key for its provider user, keeps its secret to itself, and deletes the old key. Runs at
 * create; a change of `triggers` (a date string gives scheduled rotation) or of another input runs
 * it again; refresh and destroy never rotate.
 *
 * The provider makes a new key usable everywhere only after a few seconds. A rotation right after
 * another one is refused meanwhile, and is tried again with the retry policy's backoff; so are the
 * credentials requests of this package.
 */
import { z } from "zod";
import { cloud } from "../../../provider/contracts/keep";
import { ApiError } from "../../../provider/errors";
import { keepClientOf, keepCommonShape, scopeOptions } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { operationSpec } from "../../../provider/spec";
import { cloudMount, rideOutConsistency } from "./common";

const inputs = z.object({
  /** Where the engine is mounted (default `cloudA`). */
  mount: cloudMount,
  ...keepCommonShape,
});

export const rotateRootSpec = operationSpec({
  module: "keep",
  type: "CloudRotateRoot",
  description: "Rotates the root access key of the cloud-credentials engine (an operation)",
  inputs,
  computed: z.object({
    /** The access key ID the rotation made; only the service knows its secret. */
    accessKey: z.string(),
    /** The access key ID the rotation replaced; the provider has deleted it. */
    previousAccessKey: z.string(),
  }),
  label: (values) => `${values.mount}/config/rotate-root`,
  async run(ctx, values) {
    const client = keepClientOf(ctx, values);
    const options = scopeOptions(values);
    const config = (await client.send(cloud.rootConfig, { params: values, options }))?.body;
    const previous = config?.access_key ?? "";
    if (!previous) {
      throw new Error(
        `GET /v1/${values.mount}/config/root found no root access key to rotate: check that mount names where the engine is mounted, and declare a keep.cloud.RootConfig with static credentials that the rotation depends on`,
      );
    }
    try {
      // A 5xx answer may come after the key was made: sending again would rotate twice, so only
      // the provider's refusal of a fresh key is tried again.
      const answer = await rideOutConsistency(client, "rotate-root", () => client.send(cloud.rotateRoot, { params: values, body: {}, options }));
      return { accessKey: answer.body.access_key, previousAccessKey: previous };
    } catch (e) {
      if (e instanceof ApiError && /LimitExceeded/.test(e.message)) {
        throw new Error(`${e.message}. The provider user holds two access keys and may hold no more: delete the one the engine does not use (${previous} is the engine's), then run again`);
      }
      throw e;
    }
  },
  example: { inputs: () => ({}) },
});

/**
 * Rotates the engine's root access key (`<mount>/config/rotate-root`); `accessKey` is the new key's
 * ID. `triggers` rotates again. Make it depend on the `RootConfig` it rotates.
 */
export const RotateRoot = defineResource(rotateRootSpec);
export type RotateRoot = InstanceType<typeof RotateRoot>;
export type RotateRootArgs = OperationArgs<typeof rotateRootSpec.inputs>;
