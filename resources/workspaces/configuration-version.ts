/**
 * Configuration version: `POST /workspaces/:id/configuration-versions`, the streamed upload to its
 * `upload-url`, `GET /configuration-versions/:id`, and `POST .../actions/archive` on delete.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import type { OperationContext } from "../../provider/context";
import { ApiError, PartialCreateError } from "../../provider/errors";
import { defineResource, ResourceArgs } from "../../provider/resource";
import { resourceSpec } from "../../provider/spec";
import { isUnknown, UNKNOWN } from "../../provider/unknowns";
import { JsonApiDocument, JsonApiResource, relatedId } from "../../provider/workspaces-client";
import { contentHash, uploadDirectory } from "./configuration-archive";
import { camelKeys } from "./json-api-names";

const CONFIGURATION_VERSION_ID = /^cv-[A-Za-z0-9]+$/;
/** Sources of versions created through the API or the command line, the only ones the service archives on request. */
const API_SOURCES = new Set(["workspaces-api", "workspaces-cli", "iac-cli", "iac-cli+cloud", "cli"]);
/** Run statuses after which a run is no longer in progress. */
const FINISHED_RUN_STATUSES = new Set([
  "applied",
  "planned_and_finished",
  "planned_and_saved",
  "discarded",
  "errored",
  "canceled",
  "force_canceled",
  "policy_soft_failed",
]);

const isDirectory = (value: string) => {
  try {
    return fs.statSync(value).isDirectory();
  } catch {
    return false;
  }
};

/** Marks a hash that could not be computed, so the rule after it can name the directory. */
const UNREADABLE = "unreadable:";

const inputs = z
  .object({
    /** Workspace (`ws-…`) the version belongs to. Changing it creates a new version. */
    workspaceId: z.string().min(1, "must not be empty"),
    /** Directory whose files are uploaded (relative paths are resolved from the project directory). */
    directory: z.string().refine(isDirectory, "must be an existing directory"),
    /** Globs of files left out (`*.log`, `.iac/`, `tests/**`); see the README for the rules. */
    exclude: z.array(z.string().min(1, "must not be empty")).default([]),
    /** Queue a run once the files are uploaded. Default true. Changing it creates a new version. */
    autoQueueRuns: z.boolean().default(true),
    /** Only speculative runs (neither confirmable nor applicable) may use it. Default false. Changing it creates a new version. */
    speculative: z.boolean().default(false),
    /** Does not become the workspace's current version at once. Default false. Changing it creates a new version. */
    provisional: z.boolean().default(false),
    /** How long create waits for the service to process the upload (status `uploaded`). Default 600. */
    uploadTimeoutSeconds: z.number().positive("must be greater than 0").default(600),
    /**
     * SHA-256 of the uploaded files, computed by preview from `directory` and `exclude` (a value given
     * here is replaced). A change of files changes it and plans a new version; it is empty when the
     * service no longer holds usable files (errored or archived version).
     */
    contentHash: z.string().optional(),
  })
  .overwrite((value) => {
    if (isUnknown(value.directory) || value.exclude.some(isUnknown)) return { ...value, contentHash: UNKNOWN };
    // A missing directory is reported by its own rule.
    if (!isDirectory(value.directory)) return value;
    try {
      return { ...value, contentHash: contentHash(value.directory, value.exclude) };
    } catch (e) {
      return { ...value, contentHash: `${UNREADABLE}${e instanceof Error ? e.message : String(e)}` };
    }
  })
  .superRefine((value, ctx) => {
    if (value.contentHash?.startsWith(UNREADABLE)) {
      ctx.addIssue({ code: "custom", path: ["directory"], message: `cannot be read: ${value.contentHash.slice(UNREADABLE.length)}` });
    }
  });

type Inputs = z.output<typeof inputs>;

const computed = z.object({
  /** `pending`, `fetching`, `uploaded`, `archived` or `errored`. */
  status: z.string(),
  /** When each status was reached (`pendingAt`, `uploadedAt`, ...). */
  statusTimestamps: z.record(z.string(), z.string()),
  /** Origin of the version (`workspaces-api` for versions created through the API). */
  source: z.string().nullable(),
  error: z.string().nullable(),
  errorMessage: z.string().nullable(),
  /** Ingress attributes (commit information) of a VCS-created version, or null. */
  ingressAttributesId: z.string().nullable(),
  /** `self` and `download` API paths. */
  links: z.record(z.string(), z.string().nullable()),
});

type Computed = z.output<typeof computed>;
type Attributes = Record<string, unknown>;

export function configurationVersionComputed(resource: JsonApiResource): Computed {
  const a = resource.attributes as Attributes;
  const str = (key: string) => (typeof a[key] === "string" ? (a[key] as string) : null);
  return {
    status: str("status") ?? "",
    statusTimestamps: camelKeys(a["status-timestamps"] ?? {}),
    source: str("source"),
    error: str("error"),
    errorMessage: str("error-message"),
    ingressAttributesId: relatedId(resource, "ingress-attributes"),
    links: { ...(resource.links ?? {}) } as Record<string, string | null>,
  };
}

export const configurationVersionPath = (id: string) => `/configuration-versions/${encodeURIComponent(id)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the version with backoff until it leaves `pending`/`fetching`, or the timeout passes. */
async function waitUntilProcessed(ctx: OperationContext, id: string, timeoutSeconds: number): Promise<JsonApiResource> {
  const client = ctx.workspaces();
  const deadline = Date.now() + timeoutSeconds * 1000;
  let delay = Math.max(10, Math.min(client.config.retryBaseDelayMs, 1000));
  for (;;) {
    const found = await client.read(configurationVersionPath(id));
    if (!found) throw new Error(`configuration version ${id} disappeared while its upload was processed`);
    const status = (found.data.attributes as Attributes).status;
    if (status !== "pending" && status !== "fetching") return found.data;
    if (Date.now() >= deadline) return found.data;
    await sleep(Math.min(delay / 2 + (Math.random() * delay) / 2, Math.max(0, deadline - Date.now())));
    delay = Math.min(delay * 2, 5000);
  }
}

/** Outputs of a version whose files the service does not hold: the empty hash plans a new version next time. */
function unusable(resource: JsonApiResource): Attributes {
  return { ...configurationVersionComputed(resource), contentHash: "" };
}

export const configurationVersionSpec = resourceSpec({
  module: "workspaces",
  type: "ConfigurationVersion",
  inputs,
  computed,
  replaceOnChanges: ["workspaceId", "contentHash", "autoQueueRuns", "speculative", "provisional"],
  normalize: { directory: (value) => path.normalize(value) },
  // Versions have no natural key: this names the resource in messages, and differs whenever a
  // replacement is planned, so the new version is uploaded before the old one is archived.
  naturalId: (args) => {
    const flags = [args.autoQueueRuns ? "" : "+manual-runs", args.speculative ? "+speculative" : "", args.provisional ? "+provisional" : ""];
    return `${args.workspaceId}:${args.directory}@${(args.contentHash ?? "").replace(/^sha256:/, "").slice(0, 12)}${flags.join("")}`;
  },
  fromId: () => ({}),
  async create(ctx, args) {
    const client = ctx.workspaces();
    const created = await client.write("POST", `/workspaces/${encodeURIComponent(args.workspaceId)}/configuration-versions`, "configuration-versions", {
      "auto-queue-runs": args.autoQueueRuns,
      speculative: args.speculative,
      provisional: args.provisional,
    });
    const uploadUrl = (created.attributes as Attributes)["upload-url"];
    if (typeof uploadUrl !== "string" || !uploadUrl) {
      const reason = "the service did not answer with an upload-url";
      throw new PartialCreateError(`configuration version ${created.id}: ${reason}`, created.id, unusable(created), [reason]);
    }
    try {
      await uploadDirectory(client, uploadUrl, args.directory, args.exclude);
    } catch (e) {
      const reason = `the upload of ${args.directory} failed: ${e instanceof Error ? e.message : String(e)}`;
      throw new PartialCreateError(`configuration version ${created.id} was created but ${reason}`, created.id, unusable(created), [reason]);
    }
    const processed = await waitUntilProcessed(ctx, created.id, args.uploadTimeoutSeconds);
    const a = processed.attributes as Attributes;
    if (a.status !== "uploaded") {
      const reason =
        a.status === "errored"
          ? `the service could not process the upload: ${a["error-message"] ?? a.error ?? "no message given"}`
          : `the version is still ${a.status} after ${args.uploadTimeoutSeconds} s (uploadTimeoutSeconds)`;
      throw new PartialCreateError(`configuration version ${created.id} was created but ${reason}`, created.id, unusable(processed), [reason]);
    }
    return { id: created.id, computed: configurationVersionComputed(processed) };
  },
  async read(ctx, id) {
    if (!CONFIGURATION_VERSION_ID.test(id)) {
      throw new Error("configuration versions cannot be adopted (each one holds its own upload): remove `adopt`");
    }
    const found = await ctx.workspaces().read(configurationVersionPath(id));
    if (!found) return undefined;
    const a = found.data.attributes as Attributes;
    const flags: Partial<Inputs> = {};
    if (typeof a["auto-queue-runs"] === "boolean") flags.autoQueueRuns = a["auto-queue-runs"];
    if (typeof a.speculative === "boolean") flags.speculative = a.speculative;
    if (typeof a.provisional === "boolean") flags.provisional = a.provisional;
    // Files that are gone (archived) or never became usable (errored) are a difference: the next up uploads anew.
    if (a.status !== "uploaded" && a.status !== "pending" && a.status !== "fetching") flags.contentHash = "";
    return { inputs: flags, computed: configurationVersionComputed(found.data) };
  },
  // Only changes that leave the files as they are reach update (another path to the same files).
  async update(ctx, id) {
    const found = await ctx.workspaces().read(configurationVersionPath(id));
    if (!found) throw new Error(`configuration version ${id} no longer exists: run refresh, then up`);
    return configurationVersionComputed(found.data);
  },
  async delete(ctx, id) {
    const client = ctx.workspaces();
    const found = await client.read<Attributes>(configurationVersionPath(id), { query: { include: "run" } });
    if (!found) return;
    const leave = (why: string) => ctx.warn(`configuration version ${id} is left as it is: ${why}`);
    const reason = whyNotArchivable(found);
    if (reason) return leave(reason);
    try {
      await client.action(`${configurationVersionPath(id)}/actions/archive`);
    } catch (e) {
      // The service refuses what it cannot archive (409): that is not a failure of destroy.
      if (e instanceof ApiError && e.status === 409) return leave(`the service refused to archive it (${e.messages.join("; ") || "409"})`);
      if (e instanceof ApiError && e.status === 404) return;
      throw e;
    }
  },
});

/** The spec's archive rule: API-created, `uploaded`, no run in progress. */
function whyNotArchivable(document: JsonApiDocument<Attributes>): string | undefined {
  const a = document.data.attributes;
  if (a.status === "archived") return "it is already archived";
  if (typeof a.source === "string" && !API_SOURCES.has(a.source)) {
    return `it was created from a VCS repository (source ${a.source}), and the service archives those itself`;
  }
  if (a.status !== "uploaded") return `only uploaded versions can be archived, and this one is ${a.status}`;
  const running = (document.included ?? []).filter(
    (r) => r.type === "runs" && !FINISHED_RUN_STATUSES.has(String((r.attributes as Attributes).status)),
  );
  if (running.length > 0) return `run ${running.map((r) => r.id).join(", ")} using it is still in progress`;
  return undefined;
}

/**
 * A configuration version: the files of a directory uploaded to a workspace. ID: `cv-…`. A change of
 * the files (their content hash) creates a new version; destroy archives the version when the service allows it.
 */
export const ConfigurationVersion = defineResource(configurationVersionSpec);
export type ConfigurationVersion = InstanceType<typeof ConfigurationVersion>;
export type ConfigurationVersionArgs = ResourceArgs<typeof inputs>;
