/** Sync configuration: `sys/sync/config`, written with a JSON merge patch; root and administrative namespaces only. */
import { z } from "zod";
import { syncObjects } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";

/** The service's defaults, which destroy restores. */
export const SYNC_CONFIG_DEFAULTS = { disabled: false, queueCapacity: 1000000 } as const;

const inputs = z.object({
  /** Stop sending sync operations: they queue (status `PENDING`) until this is false again. */
  disabled: z.boolean().default(SYNC_CONFIG_DEFAULTS.disabled),
  /** Most operations the queue holds while syncing is disabled; beyond it the service refuses them. */
  queueCapacity: z.number().int().positive("must be a positive number of operations").default(SYNC_CONFIG_DEFAULTS.queueCapacity),
});

export const configSpec = keepObject({
  type: "SyncConfig",
  description: "The secret sync configuration",
  rows: syncObjects.config,
  id: "sync-config",
  inputs,
  singleton: { restore: { ...SYNC_CONFIG_DEFAULTS } },
  example: { inputs: () => ({ disabled: false, queueCapacity: 5000 }), change: { queueCapacity: 6000 } },
});

/**
 * The cluster-wide secret sync configuration; allowed from the root and from administrative
 * namespaces only. Destroy restores the service's defaults. ID: `sync-config`, or `<namespace>:sync-config`.
 */
export const Config = defineResource(configSpec);
export type Config = InstanceType<typeof Config>;
export type ConfigArgs = ResourceArgs<typeof configSpec.inputs>;
