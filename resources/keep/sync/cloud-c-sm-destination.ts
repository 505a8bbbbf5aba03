/** Sync destination of type `cloudC-sm` (a cloud secret manager): `sys/sync/destinations/cloudC-sm/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { isUnknown } from "../../../provider/unknowns";
import { customTagsInput, granularityInput } from "./common";
import { destinationSpec } from "./destination";
import { nth } from "../../../provider/spec";

/** JSON credentials content, or `@<path>` of a file holding it where the service runs. */
function credentialsProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || isUnknown(value) || value.startsWith("@")) return undefined;
  try {
    const parsed = JSON.parse(value);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? undefined : "must be a JSON object (the credentials file's content) or @<path>";
  } catch {
    return "must be JSON credentials content or @<path> of a file holding it";
  }
}

export const cloudCSmDestinationSpec = destinationSpec({
  type: "SyncCloudCSmDestination",
  destinationType: "cloudC-sm",
  description: "A sync destination of type cloudC-sm",
  parameters: {
    /**
     * Service account credentials: the JSON content, `@<path>` of a file where the service runs,
     * or a reference (`{ fromFile: "./sa.json" }` reads the file where Pulumi runs). Write-only.
     */
    credentials: secretInput("credentials"),
    /** Project of the secrets; overrides the project of the credentials. */
    projectId: z.string().optional(),
    /** Tags (labels) added to each external secret, besides the built-in ones. */
    customTags: customTagsInput,
    /** `secret-path` (default: one external secret per secret) or `secret-key` (one per key). */
    granularity: granularityInput("secret-path"),
  },
  sensitive: ["credentials"],
  rules(inputs) {
    const problem = credentialsProblem(inputs.credentials);
    return problem ? [{ path: ["credentials"], message: problem }] : [];
  },
  example: { inputs: (n) => ({ name: nth("cloud-c", n), credentials: { fromConfig: "app:secret" }, projectId: "project-1" }), change: { projectId: "project-2" } },
});

/** A sync destination of type cloudC-sm. ID: `cloudC-sm/<name>`, or `<namespace>:cloudC-sm/<name>`. */
export const CloudCSmDestination = defineResource(cloudCSmDestinationSpec);
export type CloudCSmDestination = InstanceType<typeof CloudCSmDestination>;
export type CloudCSmDestinationArgs = ResourceArgs<typeof cloudCSmDestinationSpec.inputs>;
