/** Sync destination of type `repohost` (a repository host's secrets): `sys/sync/destinations/repohost/:name`. */
import { z } from "zod";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { secretInput } from "../../../provider/secret-ref";
import { isUnknown } from "../../../provider/unknowns";
import { granularityInput } from "./common";
import { destinationSpec, DestinationIssue } from "./destination";
import { nth } from "../../../provider/spec";

export const repoHostDestinationSpec = destinationSpec({
  type: "SyncRepoHostDestination",
  destinationType: "repohost",
  description: "A sync destination of type repohost",
  parameters: {
    /** Access token with rights on the repository's secrets; or use `appName`. Write-only. */
    accessToken: secretInput("access token").optional(),
    /** Name of a custom application (`keep.sync.RepoHostApp`) used instead of a token. */
    appName: z.string().min(1, "must not be empty").optional(),
    /** Installation of the application on the repository owner; required with `appName`. */
    installationId: z.union([z.string().regex(/^\d+$/, "must be a number"), z.number().int().positive()]).transform(String).optional(),
    /** Owner (user or organization) of the repository. */
    repositoryOwner: z.string().min(1, "must not be empty"),
    /** Name of the repository. */
    repositoryName: z.string().min(1, "must not be empty"),
    /** `secret-key` (default: one repository secret per key) or `secret-path`. */
    granularity: granularityInput("secret-key"),
  },
  sensitive: ["accessToken"],
  rules(inputs) {
    const issues: DestinationIssue[] = [];
    const given = (k: string) => inputs[k] !== undefined;
    if (!given("accessToken") && !given("appName")) issues.push({ path: ["accessToken"], message: "or appName is required: the destination needs a token or a custom application" });
    if (given("appName") && !isUnknown(inputs.appName) && !given("installationId")) issues.push({ path: ["installationId"], message: "is required when appName is used" });
    return issues;
  },
  example: {
    inputs: (n) => ({ name: nth("repo", n), accessToken: { fromConfig: "app:secret" }, repositoryOwner: "acme", repositoryName: nth("app", n) }),
    change: { repositoryName: "app-renamed" },
  },
});

/** A sync destination of type repohost. ID: `repohost/<name>`, or `<namespace>:repohost/<name>`. */
export const RepoHostDestination = defineResource(repoHostDestinationSpec);
export type RepoHostDestination = InstanceType<typeof RepoHostDestination>;
export type RepoHostDestinationArgs = ResourceArgs<typeof repoHostDestinationSpec.inputs>;
