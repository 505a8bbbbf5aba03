/** Sync destination of type `webhost-project` (a web host's project): `sys/sync/destinations/webhost-project/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { granularityInput } from "./common";
import { destinationSpec } from "./destination";
import { nth } from "../../../provider/spec";

export const DEPLOYMENT_ENVIRONMENTS = ["development", "preview", "production"] as const;

export const webHostProjectDestinationSpec = destinationSpec({
  type: "SyncWebHostProjectDestination",
  destinationType: "webhost-project",
  description: "A sync destination of type webhost-project",
  parameters: {
    /** Access token of the web host. Write-only. */
    accessToken: secretInput("access token"),
    /** Project whose environment variables receive the secrets. */
    projectId: z.string().min(1, "must not be empty"),
    /** Team owning the project. */
    teamId: z.string().optional(),
    /** Environments the variables apply to: `development`, `preview`, `production`. */
    deploymentEnvironments: z
      .array(z.enum(DEPLOYMENT_ENVIRONMENTS, { error: `must be one of ${DEPLOYMENT_ENVIRONMENTS.join(", ")}` }))
      .min(1, "must name at least one environment"),
    /** `secret-key` (default: one variable per key) or `secret-path`. */
    granularity: granularityInput("secret-key"),
  },
  sensitive: ["accessToken"],
  example: {
    inputs: (n) => ({ name: nth("web", n), accessToken: { fromConfig: "app:secret" }, projectId: nth("prj_1", n), deploymentEnvironments: ["production" as const] }),
    change: { deploymentEnvironments: ["production", "preview"] },
  },
});

/** A sync destination of type webhost-project. ID: `webhost-project/<name>`, or `<namespace>:webhost-project/<name>`. */
export const WebHostProjectDestination = defineResource(webHostProjectDestinationSpec);
export type WebHostProjectDestination = InstanceType<typeof WebHostProjectDestination>;
export type WebHostProjectDestinationArgs = ResourceArgs<typeof webHostProjectDestinationSpec.inputs>;
