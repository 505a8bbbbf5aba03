/**
 * Configuration version: `POST /workspaces/:id/configuration-versions`, the streamed upload to its
 * `upload-url`, `GET /configuration-versions/:id`, and `POST .../actions/archive` on delete.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { failureMessage } from "../../provider/advice";
import { ApiError, isNotFound, PartialCreateError } from "../../provider/errors";
import type { OperationContext } from "../../provider/context";
import { backoffMs, retryPolicyOf } from "../../provider/http";
import { defineResource, ResourceArgs } from "../../provider/resource";
import { resourceSpec } from "../../provider/spec";
import { isUnknown, UNKNOWN } from "../../provider/unknowns";
import { sleep, WaitTimeoutError, waitFor } from "../../provider/wait";
import { configurationVersionAttributes, configurationVersions, JsonApiResourceObject } from "../../provider/contracts/workspaces";
import { MAX_PAGE_SIZE, relatedId, WorkspacesClient } from "../../provider/workspaces-client";
import { contentHashOf, listArchiveEntries, uploadDirectory } from "./configuration-archive";
import { camelKeys } from "./json-api-names";

const CONFIGURATION_VERSION_ID = /^cv-[A-Za-z0-9]+$/;
/**
 * The ID a create keeps in state when its answer was lost and no version it made is listed yet: the
 * service may still make one (a slow service acts after the client gave up). It names the workspace
 * and the newest version listed before the create, so a version that shows up later is recognised
 * (refresh takes it up; destroy and replacement account for it) instead of staying unseen.
 */
const LOST_CREATE_ID = /^lost-create:(ws-[A-Za-z0-9]+):after:(cv-[A-Za-z0-9]+|none)$/;
const lostCreateId = (workspaceId: string, newestKnown: string | undefined) => `lost-create:${workspaceId}:after:${newestKnown ?? "none"}`;
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
/** Marks a directory with no file to upload (empty, or every file excluded). */
const NO_FILES = "no-files:";

const inputs = z
  .object({
    /** Workspace (`ws-…`) the version belongs to. Changing it creates a new version. */
    workspaceId: z.string().regex(/^ws-[A-Za-z0-9]+$/, "must be a workspace ID (ws-…)"),
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
      const entries = listArchiveEntries(value.directory, value.exclude);
      if (!entries.some((e) => e.type === "file")) {
        const why = value.exclude.length > 0 && listArchiveEntries(value.directory).some((e) => e.type === "file") ? "every file in it is excluded by exclude" : "it holds no file";
        return { ...value, contentHash: `${NO_FILES}${why}` };
      }
      return { ...value, contentHash: contentHashOf(value.directory, entries) };
    } catch (e) {
      return { ...value, contentHash: `${UNREADABLE}${e instanceof Error ? e.message : String(e)}` };
    }
  })
  .superRefine((value, ctx) => {
    if (value.contentHash?.startsWith(UNREADABLE)) {
      ctx.addIssue({ code: "custom", path: ["directory"], message: `cannot be read: ${value.contentHash.slice(UNREADABLE.length)}` });
    }
    // An empty archive would be uploaded, and the service would fail the runs made from it.
    if (value.contentHash?.startsWith(NO_FILES)) {
      ctx.addIssue({ code: "custom", path: ["directory"], message: `has nothing to upload: ${value.contentHash.slice(NO_FILES.length)}` });
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
  /** The error code of an errored version, or null. */
  error: z.string().nullable(),
  /** What went wrong with an errored version, or null. */
  errorMessage: z.string().nullable(),
  /** Ingress attributes (commit information) of a VCS-created version, or null. */
  ingressAttributesId: z.string().nullable(),
  /** `self` and `download` API paths. */
  links: z.record(z.string(), z.string().nullable()),
});

type Computed = z.output<typeof computed>;
type Attributes = Record<string, unknown>;

/** A version's attributes, read leniently (`contracts/workspaces.ts`). */
const versionAttributes = (resource: JsonApiResourceObject) => configurationVersionAttributes.parse(resource.attributes);

export function configurationVersionComputed(resource: JsonApiResourceObject): Computed {
  const a = versionAttributes(resource);
  return {
    status: a.status,
    statusTimestamps: camelKeys(a["status-timestamps"]),
    source: a.source,
    error: a.error,
    errorMessage: a["error-message"],
    ingressAttributesId: relatedId(resource, "ingress-attributes"),
    links: { ...resource.links },
  };
}

const readVersion = async (client: WorkspacesClient, id: string) => (await client.send(configurationVersions.read, { params: { id } }))?.body;

/** Waits until the version leaves `pending`/`fetching`; `WaitTimeoutError` after the timeout. */
async function waitUntilProcessed(client: WorkspacesClient, id: string, timeoutSeconds: number): Promise<JsonApiResourceObject> {
  return waitFor({
    probe: async () => {
      const found = await readVersion(client, id);
      if (!found) throw new Error(`configuration version ${id} disappeared while its upload was processed`);
      return found;
    },
    done: (version) => !PROCESSING.has(versionAttributes(version).status),
    timeoutMs: timeoutSeconds * 1000,
    describe: `configuration version ${id} to be processed`,
    show: (version) => `status ${versionAttributes(version).status}`,
    policy: retryPolicyOf(client.config),
    // A processed upload is worth seeing soon: probes stay at most 5 s apart.
    maxIntervalMs: 5_000,
  });
}

const PROCESSING = new Set(["pending", "fetching"]);

async function newestVersions(client: WorkspacesClient, workspaceId: string): Promise<JsonApiResourceObject[]> {
  const query = { "page[number]": "1", "page[size]": String(MAX_PAGE_SIZE) };
  return (await client.send(configurationVersions.listPage, { params: { workspaceId }, options: { query } })).body;
}

/**
 * Versions a create whose answer was lost may have made: listed before `newestKnown` (the service
 * lists newest first), still pending, with the flags the create sent; oldest first.
 */
async function versionsMadeAfter(client: WorkspacesClient, workspaceId: string, newestKnown: string | undefined, flags: Attributes): Promise<JsonApiResourceObject[]> {
  const listed = await newestVersions(client, workspaceId);
  const known = newestKnown === undefined ? -1 : listed.findIndex((v) => v.id === newestKnown);
  return (known < 0 ? listed : listed.slice(0, known))
    .filter((v) => {
      const a = v.attributes;
      return a.status === "pending" && Object.entries(flags).every(([key, value]) => a[key] === undefined || a[key] === value);
    })
    .reverse();
}

/** Flags of a version as the create body and the answers name them. */
const wireFlags = (args: Pick<Inputs, "autoQueueRuns" | "speculative" | "provisional">): Attributes => ({
  "auto-queue-runs": args.autoQueueRuns,
  speculative: args.speculative,
  provisional: args.provisional,
});

/** Outputs of a lost create in state: nothing usable, an empty hash so the next up replaces it. */
const LOST_OUTPUTS = { status: "unknown", statusTimestamps: {}, source: null, error: null, errorMessage: null, ingressAttributesId: null, links: {}, contentHash: "" };

/** Outputs of a version whose files the service does not hold: the empty hash plans a new version next time. */
function unusable(resource: JsonApiResourceObject): Attributes {
  return { ...configurationVersionComputed(resource), contentHash: "" };
}

/** Whether the service may still act on a request it has not answered (the client gave up waiting). */
const mayStillAct = (e: ApiError) => e.status === 0 && (e.code === "ECONNABORTED" || e.code === "ETIMEDOUT");

/**
 * Sends the create, never repeated blindly: after a failure that may have acted (a 5xx, a reset, a
 * lost answer, an answer given after the client gave up), the workspace's versions made since show
 * what the attempt did. A version it made cannot be used (its upload URL came only in the lost
 * answer) nor archived (the service archives only uploaded versions): it is left pending, the run's
 * output says so, and a new version is made, within the retry policy's budget; once that is spent,
 * the last one made is kept in state as created-but-failed. When it made nothing the create is sent
 * again, within the same budget. When the client gave up waiting and nothing is listed yet, or the
 * lookup fails, a slow service may still act: the state keeps a marker that the next refresh, up or
 * destroy resolves.
 */
async function createVersion(ctx: OperationContext, client: WorkspacesClient, workspaceId: string, flags: Attributes, newestKnown: string | undefined): Promise<JsonApiResourceObject> {
  const policy = retryPolicyOf(client.config);
  /** The newest version not made by this create's attempts. */
  let known = newestKnown;
  for (let attempt = 1; ; attempt++) {
    try {
      const body = { type: "configuration-versions" as const, attributes: flags };
      return (await client.send(configurationVersions.create, { params: { workspaceId }, body })).body;
    } catch (e) {
      if (!(e instanceof ApiError && e.mayHaveActed)) throw e;
      const listed = await versionsMadeAfter(client, workspaceId, known, flags).catch(() => undefined);
      const made = listed?.[0];
      const lost = `the answer to its create was lost (${e.message}), and with it the upload URL, which the service gives only in that answer`;
      if (made && attempt <= policy.retries) {
        for (const left of listed!) {
          ctx.warn(`configuration version ${left.id} of ${workspaceId} is left pending: ${lost}; the service archives only uploaded versions. A new version is made and uploaded instead`);
        }
        known = listed![listed!.length - 1].id;
        await sleep(backoffMs(policy, attempt));
        continue;
      }
      if (made) {
        const reason = `${lost}: the version stays pending (the service archives only uploaded versions), and the retries are spent: run up again, which replaces it with a new one`;
        throw new PartialCreateError(`configuration version ${made.id} was created, but ${reason}`, made.id, unusable(made), [reason]);
      }
      if (listed && !mayStillAct(e) && attempt <= policy.retries) {
        await sleep(backoffMs(policy, attempt));
        continue;
      }
      const why = listed ? "no version it made is listed yet (a slow service may still make one)" : "the versions made since could not be listed";
      const reason = `the answer to its create was lost (${e.message}) and ${why}: run up again, which looks for that version once more, accounts for it, and uploads a new one`;
      throw new PartialCreateError(`configuration version of ${workspaceId}: ${reason}`, lostCreateId(workspaceId, newestKnown), LOST_OUTPUTS, [reason]);
    }
  }
}

export const configurationVersionSpec = resourceSpec({
  module: "workspaces",
  type: "ConfigurationVersion",
  inputs,
  computed,
  replaceOnChanges: ["workspaceId", "contentHash", "autoQueueRuns", "speculative", "provisional"],
  notImportable:
    "a version's content cannot be read back (the service gives its upload URL only once): declare a new workspaces.ConfigurationVersion of the directory to upload instead",
  normalize: { directory: (value) => path.normalize(value) },
  // Versions have no natural key: this names the resource in messages, and differs whenever a
  // replacement is planned, so the new version is uploaded before the old one is archived.
  naturalId: (args) => {
    const flags = [args.autoQueueRuns ? "" : "+manual-runs", args.speculative ? "+speculative" : "", args.provisional ? "+provisional" : ""];
    return `${args.workspaceId}:${args.directory}@${(args.contentHash ?? "").replace(/^sha256:/, "").slice(0, 12)}${flags.join("")}`;
  },
  fromId: () => ({}),
  // Every create uploads a new version under an ID the service makes: nothing to write over.
  alwaysNew: true,
  /**
   * One create makes at most one version, and every version it makes ends in the state: the POST is
   * not retried once it may have reached the service; a version found made by a lost answer, a
   * failed upload (400, 403 ... once the policy's retries of 412, 429, 5xx and resets are spent), a
   * failed status poll or a version still pending at the timeout are kept as created-but-failed
   * (their contentHash empty, so the next up replaces them, and destroy leaves what the service
   * cannot archive, saying so).
   */
  async create(ctx, args) {
    const client = ctx.workspaces();
    const flags = wireFlags(args);
    // Listed before the create, so a version made by an attempt whose answer was lost is recognised.
    const newestKnown = (
      await newestVersions(client, args.workspaceId).catch((e: unknown) => {
        if (!(e instanceof ApiError) || e.status !== 404) throw e;
        throw e.withAdvice(`no workspace ${args.workspaceId} is visible to this token: check workspaceId (a workspace's id output, ws-…)`);
      })
    )[0]?.id;
    const created = await createVersion(ctx, client, args.workspaceId, flags, newestKnown);
    const uploadUrl = versionAttributes(created)["upload-url"];
    if (!uploadUrl) {
      const reason = "the service did not answer with an upload-url";
      throw new PartialCreateError(`configuration version ${created.id}: ${reason}`, created.id, unusable(created), [reason]);
    }
    const failedAfterCreate = (what: string, e: unknown, state: JsonApiResourceObject): PartialCreateError => {
      const message = failureMessage(`configuration version ${created.id} was created but ${what}`, e);
      return new PartialCreateError(message, created.id, unusable(state), [message]);
    };
    try {
      await uploadDirectory(client, uploadUrl, args.directory, args.exclude);
    } catch (e) {
      throw failedAfterCreate(`the upload of ${args.directory} failed`, e, created);
    }
    let processed: JsonApiResourceObject;
    try {
      processed = await waitUntilProcessed(client, created.id, args.uploadTimeoutSeconds);
    } catch (e) {
      if (e instanceof WaitTimeoutError) {
        const last = e.lastState as JsonApiResourceObject;
        const reason = `the version is still ${versionAttributes(last).status} after ${args.uploadTimeoutSeconds} s (uploadTimeoutSeconds)`;
        throw new PartialCreateError(`configuration version ${created.id} was created but ${reason}`, created.id, unusable(last), [reason]);
      }
      throw failedAfterCreate("reading its status after the upload failed", e, created);
    }
    const a = versionAttributes(processed);
    if (a.status !== "uploaded") {
      const reason = `the service could not process the upload: ${a["error-message"] ?? a.error ?? "no message given"}`;
      throw new PartialCreateError(`configuration version ${created.id} was created but ${reason}`, created.id, unusable(processed), [reason]);
    }
    return { id: created.id, computed: configurationVersionComputed(processed) };
  },
  async read(ctx, id, state) {
    const lost = LOST_CREATE_ID.exec(id);
    if (lost) {
      // A version the lost create made after all is tracked from now on (and replaced by the next up).
      const flags = wireFlags({ autoQueueRuns: state?.autoQueueRuns !== false, speculative: state?.speculative === true, provisional: state?.provisional === true });
      const [made] = await versionsMadeAfter(ctx.workspaces(), lost[1], lost[2] === "none" ? undefined : lost[2], flags);
      if (made) return { id: made.id, inputs: { contentHash: "" }, computed: configurationVersionComputed(made) };
      return { inputs: { contentHash: "" }, computed: LOST_OUTPUTS };
    }
    if (!CONFIGURATION_VERSION_ID.test(id)) {
      throw new Error("configuration versions cannot be adopted (each one holds its own upload): remove `adopt`");
    }
    const found = await readVersion(ctx.workspaces(), id);
    if (!found) return undefined;
    const a = versionAttributes(found);
    const flags: Partial<Inputs> = {};
    if (a["auto-queue-runs"] !== undefined) flags.autoQueueRuns = a["auto-queue-runs"];
    if (a.speculative !== undefined) flags.speculative = a.speculative;
    if (a.provisional !== undefined) flags.provisional = a.provisional;
    // Files that are gone (archived) or never became usable (errored) are a difference: the next up uploads anew.
    if (a.status !== "uploaded" && a.status !== "pending" && a.status !== "fetching") flags.contentHash = "";
    return { inputs: flags, computed: configurationVersionComputed(found) };
  },
  // Only changes that leave the files as they are reach update (another path to the same files).
  async update(ctx, id) {
    if (LOST_CREATE_ID.test(id)) throw new Error(`configuration version ${id}: its create's answer was lost: run up again, which replaces it`);
    const found = await readVersion(ctx.workspaces(), id);
    if (!found) throw new Error(`configuration version ${id} no longer exists: run refresh, then up`);
    return configurationVersionComputed(found);
  },
  async delete(ctx, id, state) {
    const client = ctx.workspaces();
    const lost = LOST_CREATE_ID.exec(id);
    if (lost) {
      const flags = wireFlags({ autoQueueRuns: state.autoQueueRuns !== false, speculative: state.speculative === true, provisional: state.provisional === true });
      const made = await versionsMadeAfter(client, lost[1], lost[2] === "none" ? undefined : lost[2], flags);
      for (const version of made) {
        ctx.warn(`configuration version ${version.id} is left as it is: a create whose answer was lost made it, and the service archives only uploaded versions`);
      }
      return;
    }
    const found = await client.send(configurationVersions.read, { params: { id }, options: { query: { include: "run" } } });
    if (!found) return;
    const leave = (why: string) => ctx.warn(`configuration version ${id} is left as it is: ${why}`);
    const reason = whyNotArchivable(found);
    if (reason) return leave(reason);
    try {
      await client.send(configurationVersions.archive, { params: { id } });
    } catch (e) {
      // The service refuses what it cannot archive (409): that is not a failure of destroy.
      if (e instanceof ApiError && e.status === 409) return leave(`the service refused to archive it (${e.messages.join("; ") || "409"})`);
      if (isNotFound(e)) return;
      throw e;
    }
  },
  example: { inputs: () => ({ workspaceId: "ws-1234567890abcdef", directory: "." }) },
});

/** The spec's archive rule: API-created, `uploaded`, no run in progress. */
function whyNotArchivable(document: { body: JsonApiResourceObject; included: JsonApiResourceObject[] }): string | undefined {
  const a = versionAttributes(document.body);
  if (a.status === "archived") return "it is already archived";
  if (a.source !== null && !API_SOURCES.has(a.source)) {
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
