/** Sync destination of type `cloudA-sm` (a cloud secrets manager): `sys/sync/destinations/cloudA-sm/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { customTagsInput, granularityInput } from "./common";
import { destinationSpec } from "./destination";
import { nth } from "../../../provider/spec";

export const cloudASmDestinationSpec = destinationSpec({
  type: "SyncCloudASmDestination",
  destinationType: "cloudA-sm",
  description: "A sync destination of type cloudA-sm",
  parameters: {
    /** Access key ID; with the secret access key left out too, the service's credential chain is used. Write-only. */
    accessKeyId: secretInput("access key ID").optional(),
    /** Secret access key (a value or a reference such as `{ fromEnv: "CLOUDA_SECRET_KEY" }`). Write-only. */
    secretAccessKey: secretInput("secret access key").optional(),
    /** Role to assume with temporary credentials. */
    roleArn: z.string().optional(),
    /** External ID matching the role's trust policy. */
    externalId: z.string().optional(),
    /** Region of the secrets manager; the service's environment decides when absent. */
    region: z.string().optional(),
    /** Tags added to each external secret, besides the built-in ones. */
    customTags: customTagsInput,
    /** `secret-path` (default: one external secret per secret) or `secret-key` (one per key). */
    granularity: granularityInput("secret-path"),
  },
  sensitive: ["accessKeyId", "secretAccessKey"],
  example: {
    inputs: (n) => ({ name: nth("cloud-a", n), region: "us-east-1", accessKeyId: "AKIAEXAMPLE", secretAccessKey: { fromConfig: "app:secret" } }),
    change: { region: "eu-west-1" },
  },
});

/** A sync destination of type cloudA-sm. ID: `cloudA-sm/<name>`, or `<namespace>:cloudA-sm/<name>`. */
export const CloudASmDestination = defineResource(cloudASmDestinationSpec);
export type CloudASmDestination = InstanceType<typeof CloudASmDestination>;
export type CloudASmDestinationArgs = ResourceArgs<typeof cloudASmDestinationSpec.inputs>;
