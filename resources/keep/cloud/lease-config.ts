/**
 * Lease configuration of the cloud-credentials engine: `<mount>/config/lease`, the lease and the
 * longest lease of generated IAM users. Durations compare by length (`1h` = `60m` = `3600s`): the
 * service answers them normalised (`1h0m0s`), which is no change.
 */
import { z } from "zod";
import { cloudObjects } from "../../../provider/contracts/keep";
import { keepObject } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { cloudMount, leaseDuration, normalizeDuration, secondsOf } from "./common";

const inputs = z
  .object({
    /** Where the engine is mounted (default `cloudA`). Part of the ID; changing it replaces the configuration. */
    mount: cloudMount,
    /** Lease of generated IAM users: seconds or a duration such as "30m" or "12h" (`h` is the largest unit). */
    lease: leaseDuration,
    /** Longest lease of generated IAM users, renewals included; at least `lease`. */
    leaseMax: leaseDuration,
  })
  .superRefine((values, ctx) => {
    const lease = secondsOf(values.lease);
    const max = secondsOf(values.leaseMax);
    if (lease !== undefined && max !== undefined && lease > max) {
      ctx.addIssue({ code: "custom", path: ["lease"], message: `must not exceed leaseMax (${values.lease} is longer than ${values.leaseMax})` });
    }
  });

export const leaseConfigSpec = keepObject({
  type: "CloudLeaseConfig",
  description: "The lease settings of the cloud-credentials engine",
  rows: cloudObjects.leaseConfig,
  id: "{mount*}",
  inputs,
  normalize: { lease: normalizeDuration, leaseMax: normalizeDuration },
  keepDeclaredForm: true,
  singleton: { leave: "the engine has no delete for its lease configuration; these leases stay in force until written again or the engine is unmounted" },
  example: { inputs: () => ({ lease: "1h", leaseMax: "24h" }), change: { leaseMax: "48h" } },
});

/**
 * The lease settings of a cloud-credentials engine (`<mount>/config/lease`). Destroy leaves them on
 * the service. ID: `<mount>`.
 */
export const LeaseConfig = defineResource(leaseConfigSpec);
export type LeaseConfig = InstanceType<typeof LeaseConfig>;
export type LeaseConfigArgs = ResourceArgs<typeof leaseConfigSpec.inputs>;
