/**
 * The files of a configuration version: which files of a directory are taken (exclusion globs), their
 * content hash (computed in `check`, so a change of files plans a new version), the `.tar.gz` stream
 * built with node-tar and streamed to the upload URL, and extraction of a downloaded archive.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable } from "node:stream";
import { create as createTar, extract as extractTar } from "tar";
import type { UploadResult, WorkspacesClient } from "../../provider/workspaces-client";

export interface ArchiveEntry {
  /** Path relative to the directory, with `/` separators. */
  path: string;
  type: "file" | "directory" | "symlink";
  size: number;
  executable: boolean;
}

/**
 * Exclusion globs, matched against paths relative to the directory: `*` and `?` never cross a `/`,
 * `**` spans directories, `[abc]` is a class (`[!abc]` its complement). A pattern without `/` matches
 * a name at any depth (`*.log`, `.iac`); one with a `/` (a leading one included) matches from
 * the directory's root; a trailing `/` matches directories only; an excluded directory excludes
 * everything in it.
 */
export function compileExclusions(patterns: readonly string[]): (relativePath: string, isDirectory: boolean) => boolean {
  const matchers = patterns
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
    .map((pattern) => {
      const directoryOnly = pattern.endsWith("/");
      const body = pattern.replace(/\/+$/, "");
      const anchored = body.includes("/");
      const regex = globToRegExp(body.replace(/^\/+/, ""));
      return (relativePath: string, isDirectory: boolean) => {
        if (directoryOnly && !isDirectory) return false;
        return regex.test(anchored ? relativePath : relativePath.slice(relativePath.lastIndexOf("/") + 1));
      };
    });
  return (relativePath, isDirectory) => matchers.some((m) => m(relativePath, isDirectory));
}

export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        i++;
        source += "(?:.*/)?";
      } else source += ".*";
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "[" && glob.indexOf("]", i + 2) > i) {
      const end = glob.indexOf("]", i + 2);
      const members = glob.slice(i + 1, end).replace(/\\/g, "\\\\");
      source += members.startsWith("!") ? `[^${members.slice(1)}]` : `[${members}]`;
      i = end;
    } else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** The entries of `directory` that are not excluded, in a stable order (directories before their contents). */
export function listArchiveEntries(directory: string, exclude: readonly string[] = []): ArchiveEntry[] {
  const excluded = compileExclusions(exclude);
  const entries: ArchiveEntry[] = [];
  const walk = (relativeDirectory: string) => {
    const names = fs.readdirSync(path.join(directory, relativeDirectory)).sort();
    for (const name of names) {
      const relativePath = relativeDirectory ? `${relativeDirectory}/${name}` : name;
      const stat = fs.lstatSync(path.join(directory, relativePath));
      const type = stat.isDirectory() ? "directory" : stat.isFile() ? "file" : stat.isSymbolicLink() ? "symlink" : undefined;
      // Sockets, pipes and devices have no place in a configuration.
      if (!type || excluded(relativePath, type === "directory")) continue;
      entries.push({ path: relativePath, type, size: type === "file" ? stat.size : 0, executable: (stat.mode & 0o111) !== 0 });
      if (type === "directory") walk(relativePath);
    }
  };
  walk("");
  return entries;
}

const HASH_CHUNK = 1024 * 1024;

/**
 * SHA-256 over the entries' paths, kinds, executable bits and contents (symlinks by their target).
 * Files are read in chunks, never whole.
 */
export function contentHash(directory: string, exclude: readonly string[] = []): string {
  return contentHashOf(directory, listArchiveEntries(directory, exclude));
}

/** `contentHash` of entries already listed. */
export function contentHashOf(directory: string, entries: readonly ArchiveEntry[]): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(HASH_CHUNK);
  for (const entry of entries) {
    const absolute = path.join(directory, entry.path);
    hash.update(`${entry.type}\0${entry.path}\0${entry.executable ? "x" : "-"}\0`);
    if (entry.type === "symlink") hash.update(fs.readlinkSync(absolute));
    if (entry.type !== "file") continue;
    const fd = fs.openSync(absolute, "r");
    try {
      let read: number;
      while ((read = fs.readSync(fd, buffer, 0, HASH_CHUNK, null)) > 0) hash.update(buffer.subarray(0, read));
    } finally {
      fs.closeSync(fd);
    }
    hash.update("\0");
  }
  return `sha256:${hash.digest("hex")}`;
}

/** Reads at most this much of a file at once while archiving (node-tar reads up to 16 MB by default, which shows in RSS). */
const ARCHIVE_READ_SIZE = 256 * 1024;

/** A `.tar.gz` stream of the entries, produced as it is consumed. */
export function archiveStream(directory: string, entries: readonly ArchiveEntry[]): Readable {
  // node-tar reads a path starting with "@" as an archive to concatenate.
  const paths = entries.map((e) => (e.path.startsWith("@") ? `./${e.path}` : e.path));
  const pack = createTar(
    { gzip: true, cwd: directory, portable: true, noDirRecurse: true, strict: true, maxReadSize: ARCHIVE_READ_SIZE },
    paths,
  );
  return Readable.from(pack as AsyncIterable<Buffer>, { objectMode: false });
}

/**
 * Streams a `.tar.gz` of `directory` (less the exclusions) to an upload URL. Each attempt builds its
 * archive anew, so a retried transfer never reads a consumed stream.
 */
export async function uploadDirectory(
  client: WorkspacesClient,
  uploadUrl: string,
  directory: string,
  exclude: readonly string[] = [],
): Promise<UploadResult & { files: number }> {
  const entries = listArchiveEntries(directory, exclude);
  const result = await client.upload(uploadUrl, () => archiveStream(directory, entries));
  return { ...result, files: entries.filter((e) => e.type === "file").length };
}

/** Unpacks a `.tar.gz` stream into `directory` (created if needed); entries may not escape it. */
export async function extractArchive(archive: Readable, directory: string): Promise<void> {
  fs.mkdirSync(directory, { recursive: true });
  const unpack = extractTar({ cwd: directory, strict: true });
  await new Promise<void>((resolve, reject) => {
    unpack.on("close", () => resolve());
    unpack.on("error", reject);
    archive.on("error", reject);
    archive.pipe(unpack as unknown as NodeJS.WritableStream);
  });
}
