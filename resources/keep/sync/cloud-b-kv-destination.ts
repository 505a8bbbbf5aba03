/** Sync destination of type `cloudB-kv` (a cloud key vault): `sys/sync/destinations/cloudB-kv/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { customTagsInput, granularityInput } from "./common";
import { destinationSpec } from "./destination";
import { nth } from "../../../provider/spec";

export const cloudBKvDestinationSpec = destinationSpec({
  type: "SyncCloudBKvDestination",
  destinationType: "cloudB-kv",
  description: "A sync destination of type cloudB-kv",
  parameters: {
    /** URI of the key vault, `https://<vault>.vault.<cloud>/`. */
    keyVaultUri: z.url({ error: "must be the key vault's URI, such as https://my-vault.vault.example.net/" }),
    /** Client (application) ID of the service principal. */
    clientId: z.string().min(1, "must not be empty"),
    /** Client secret of the service principal (a value or a reference). Write-only. */
    clientSecret: secretInput("client secret"),
    /** Tenant (directory) ID. */
    tenantId: z.string().min(1, "must not be empty"),
    /** Cloud environment; the public cloud when absent. */
    cloud: z.string().optional(),
    /** Tags added to each external secret, besides the built-in ones. */
    customTags: customTagsInput,
    /** `secret-path` (default: one external secret per secret) or `secret-key` (one per key). */
    granularity: granularityInput("secret-path"),
  },
  sensitive: ["clientSecret"],
  example: {
    inputs: (n) => ({ name: nth("cloud-b", n), keyVaultUri: "https://vault.example.net", clientId: "client", clientSecret: { fromEnv: "APP_SECRET" }, tenantId: "tenant" }),
    change: { clientId: "client-2" },
  },
});

/** A sync destination of type cloudB-kv. ID: `cloudB-kv/<name>`, or `<namespace>:cloudB-kv/<name>`. */
export const CloudBKvDestination = defineResource(cloudBKvDestinationSpec);
export type CloudBKvDestination = InstanceType<typeof CloudBKvDestination>;
export type CloudBKvDestinationArgs = ResourceArgs<typeof cloudBKvDestinationSpec.inputs>;
