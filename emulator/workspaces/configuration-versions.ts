/**
 * Configuration version lifecycle of the workspace service emulator: creation with a single-use
 * upload URL, the streamed upload and its pending → uploaded/errored transition, runs, archiving
 * and temporary download URLs. Archives live in a temporary directory, never in memory.
 */
import { randomBytes } from "node:crypto";
import { createWriteStream, rmSync, statSync } from "node:fs";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ApiError, notFound } from "./json-api";
import {
  API_SOURCE,
  ConfigurationVersionState,
  RunState,
  Store,
  WorkspaceState,
  isApiCreated,
  newId,
  now,
} from "./store";

/** How long a download URL stays valid; the real service hands out short-lived URLs too. */
const DOWNLOAD_URL_LIFETIME_MS = 5 * 60 * 1000;

interface UploadObject {
  kind: "upload";
  configurationVersionId: string;
  /** An upload URL takes one complete upload; a failed transfer may be retried. */
  state: "open" | "receiving" | "used";
}

interface DownloadObject {
  kind: "download";
  configurationVersionId: string;
  expiresAt: number;
}

export interface ConfigurationVersionOptions {
  autoQueueRuns: boolean;
  speculative: boolean;
  provisional: boolean;
}

export class ConfigurationVersions {
  uploadDelayMs: number;
  private nextUploadFailure: string | undefined;
  private readonly objects = new Map<string, UploadObject | DownloadObject>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: Store,
    /** Directory holding uploaded archives. */
    private readonly directory: string,
    private readonly objectUrl: (objectId: string) => string,
    uploadDelayMs: number,
  ) {
    this.uploadDelayMs = uploadDelayMs;
  }

  create(ws: WorkspaceState, options: ConfigurationVersionOptions): { cv: ConfigurationVersionState; uploadUrl: string } {
    const at = now();
    const cv: ConfigurationVersionState = {
      id: newId("cv"),
      workspaceId: ws.id,
      source: API_SOURCE,
      autoQueueRuns: options.autoQueueRuns,
      speculative: options.speculative,
      provisional: options.provisional,
      status: "pending",
      error: null,
      errorMessage: null,
      statusTimestamps: { "pending-at": at },
      ingressAttributesId: null,
      createdAt: at,
      uploadedBytes: null,
      filePath: null,
    };
    this.store.configurationVersions.set(cv.id, cv);
    const objectId = newObjectId();
    this.objects.set(objectId, { kind: "upload", configurationVersionId: cv.id, state: "open" });
    return { cv, uploadUrl: this.objectUrl(objectId) };
  }

  failNextUpload(message: string): void {
    this.nextUploadFailure = message;
  }

  /**
   * Streams an upload to a file, counting bytes and checking only the gzip magic number. The status
   * changes `uploadDelayMs` later, like the real service, which processes the archive after the
   * transfer.
   */
  async receive(objectId: string, body: Readable, declaredLength: number | undefined, limit: number): Promise<void> {
    const object = this.objects.get(objectId);
    if (!object || object.kind !== "upload" || object.state !== "open") throw notFound();
    const cv = this.store.configurationVersions.get(object.configurationVersionId);
    if (!cv || cv.status !== "pending") throw notFound();
    if (declaredLength !== undefined && declaredLength > limit) {
      throw ApiError.of(413, `uploads are limited to ${limit} bytes`);
    }

    object.state = "receiving";
    const file = path.join(this.directory, `${cv.id}-${randomBytes(6).toString("hex")}.tar.gz`);
    let bytes = 0;
    let head = Buffer.alloc(0);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (head.length < 2) head = Buffer.concat([head, chunk.subarray(0, 2 - head.length)]);
        if (bytes > limit) callback(ApiError.of(413, `uploads are limited to ${limit} bytes`));
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(file));
    } catch (error) {
      object.state = "open";
      removeFile(file);
      throw error instanceof ApiError ? error : ApiError.of(400, "the upload was interrupted");
    }

    object.state = "used";
    cv.uploadedBytes = bytes;
    const injectedFailure = this.nextUploadFailure;
    this.nextUploadFailure = undefined;
    const isGzip = head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
    this.later(() => this.finishUpload(cv.id, file, isGzip, injectedFailure));
  }

  private finishUpload(cvId: string, file: string, isGzip: boolean, injectedFailure: string | undefined): void {
    const cv = this.store.configurationVersions.get(cvId);
    if (!cv || cv.status !== "pending") {
      removeFile(file);
      return;
    }
    if (injectedFailure !== undefined || !isGzip) {
      removeFile(file);
      cv.status = "errored";
      cv.error = injectedFailure !== undefined ? "upload-failed" : "invalid-archive";
      cv.errorMessage = injectedFailure ?? "the uploaded configuration is not a gzip-compressed tar archive";
      cv.statusTimestamps["errored-at"] = now();
      return;
    }
    cv.status = "uploaded";
    cv.filePath = file;
    cv.statusTimestamps["uploaded-at"] = now();
    const ws = this.store.workspaces.get(cv.workspaceId);
    if (!ws) return;
    // Speculative and provisional versions do not become the workspace's current version on upload.
    if (!cv.speculative && !cv.provisional) ws.currentConfigurationVersionId = cv.id;
    if (cv.autoQueueRuns) {
      // The double never plans real changes, so a queued run finishes at once with nothing to apply.
      this.store.addRun(cv, "planned_and_finished", false);
    }
  }

  /** Spec rule 5 and the archive row of the error table. */
  archive(cv: ConfigurationVersionState): void {
    if (!isApiCreated(cv)) {
      throw ApiError.of(409, "configuration versions created from a VCS repository are archived automatically");
    }
    if (cv.status !== "uploaded") {
      throw ApiError.of(409, `configuration version is ${cv.status}; only uploaded versions can be archived`);
    }
    if (this.store.runsOf(cv.id).some((run) => run.inProgress)) {
      throw ApiError.of(409, "a run using this configuration version is still in progress");
    }
    this.discard(cv);
  }

  /** A temporary URL for the stored archive; spec rule 6: only `uploaded` versions can be downloaded. */
  downloadUrl(cv: ConfigurationVersionState): string {
    if (cv.status !== "uploaded" || !cv.filePath) {
      throw ApiError.of(404, `configuration version is ${cv.status}; only uploaded versions can be downloaded`);
    }
    const objectId = newObjectId();
    this.objects.set(objectId, {
      kind: "download",
      configurationVersionId: cv.id,
      expiresAt: Date.now() + DOWNLOAD_URL_LIFETIME_MS,
    });
    return this.objectUrl(objectId);
  }

  /** The file behind a download URL, or 404 when the URL expired or the archive is gone. */
  openDownload(objectId: string): { file: string; size: number } {
    const object = this.objects.get(objectId);
    if (!object || object.kind !== "download") throw notFound();
    if (object.expiresAt < Date.now()) {
      this.objects.delete(objectId);
      throw notFound();
    }
    const cv = this.store.configurationVersions.get(object.configurationVersionId);
    if (!cv || cv.status !== "uploaded" || !cv.filePath) throw notFound();
    return { file: cv.filePath, size: statSync(cv.filePath).size };
  }

  /**
   * Records a run on a usable version (uploaded, or archived when VCS-created). A VCS-created version
   * whose runs are all complete is archived automatically.
   */
  addRun(cvId: string, options: { inProgress: boolean }): RunState {
    const cv = this.store.configurationVersions.get(cvId);
    if (!cv) throw new Error(`no configuration version ${cvId}`);
    const usable = cv.status === "uploaded" || (!isApiCreated(cv) && cv.status === "archived");
    if (!usable) throw new Error(`configuration version ${cvId} is ${cv.status} and cannot be used for runs`);
    const run = this.store.addRun(cv, options.inProgress ? "planning" : "applied", options.inProgress);
    this.archiveIfVcsRunsDone(cv);
    return run;
  }

  finishRun(runId: string): void {
    const run = this.store.runs.get(runId);
    if (!run) throw new Error(`no run ${runId}`);
    run.inProgress = false;
    run.status = "applied";
    const cv = this.store.configurationVersions.get(run.configurationVersionId);
    if (cv) this.archiveIfVcsRunsDone(cv);
  }

  private archiveIfVcsRunsDone(cv: ConfigurationVersionState): void {
    const runs = this.store.runsOf(cv.id);
    if (isApiCreated(cv) || cv.status !== "uploaded" || runs.length === 0) return;
    if (runs.every((run) => !run.inProgress)) this.discard(cv);
  }

  /** Drops the stored archive of a version that is going away with its workspace. */
  forget(cv: ConfigurationVersionState): void {
    if (cv.filePath) removeFile(cv.filePath);
    cv.filePath = null;
  }

  private discard(cv: ConfigurationVersionState): void {
    this.forget(cv);
    cv.status = "archived";
    cv.statusTimestamps["archived-at"] = now();
  }

  /** Runs `action` once `uploadDelayMs` has passed; at 0, at once, so no test depends on the clock. */
  private later(action: () => void): void {
    if (this.uploadDelayMs === 0) return action();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, this.uploadDelayMs);
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/** The object id is the whole credential of an upload URL, so it carries 256 random bits. */
function newObjectId(): string {
  return randomBytes(32).toString("base64url");
}

function removeFile(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // The temporary directory is removed on close anyway.
  }
}
