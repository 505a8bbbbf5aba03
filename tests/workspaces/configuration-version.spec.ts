/** workspaces.ConfigurationVersion through the real provider host: streamed upload, replacement on a change of files, archive on destroy. */
import { randomBytes } from "node:crypto";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { workspaces } from "pulumi-keepstack";
import { Engine, EngineError, summarize } from "../../harness";
import { contextFor, makeTree, removeTree, startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";
import { definedOutputs } from "../support/outputs";

/** Every file under `root` (relative path → content), and the directories, for comparing trees. */
async function snapshotTree(root: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      out[`${relative}/`] = "<dir>";
      Object.assign(out, await snapshotTree(root, relative));
    } else out[relative] = (await readFile(path.join(root, relative))).toString("base64");
  }
  return out;
}

describe("workspaces.ConfigurationVersion", () => {
  let stack: WorkspacesStack;
  let tree: string;
  let workspaceId = "";
  let firstVersion = "";
  const binary = randomBytes(300 * 1024);

  beforeAll(async () => {
    stack = await startWorkspacesStack();
    tree = await makeTree({
      "main.tf": 'module "net" {\n  source = "./modules/net"\n}\n',
      "modules/net/main.tf": 'output "cidr" {\n  value = "10.0.0.0/16"\n}\n',
      "files/blob.bin": binary,
      "@weird-name.tf": "# a name node-tar would read as an archive\n",
      "debug.log": "left out\n",
      ".iac/providers/cache.bin": "left out\n",
    });
    const { mkdir } = await import("node:fs/promises");
    await mkdir(path.join(tree, "empty-dir"));
  });
  afterAll(async () => {
    await stack.close();
    await removeTree(tree);
  });

  const program = (extra: { speculative?: boolean } = {}) => () => {
    const ws = new workspaces.Workspace("app", { name: "app" });
    const cv = new workspaces.ConfigurationVersion("config", {
      workspaceId: ws.id,
      directory: tree,
      exclude: ["*.log", ".iac/"],
      ...extra,
    });
    return definedOutputs({ workspaceId: ws.id, id: cv.id, status: cv.status, hash: cv.contentHash, source: cv.source, links: cv.links, uploadedAt: cv.statusTimestamps });
  };

  test("preview plans the workspace and the version and sends no request", async () => {
    stack.emu.log.clear();
    const result = await stack.engine.preview(program());
    expect(summarize(result.steps)).toEqual({ create: 2 });
    expect(stack.emu.log.count).toBe(0);
  });

  test("up creates the version, streams the tree to the upload URL and waits until it is uploaded", async () => {
    stack.emu.log.clear();
    const result = await stack.engine.up(program());
    workspaceId = String(result.outputs.workspaceId);
    firstVersion = String(result.outputs.id);
    expect(firstVersion).toMatch(/^cv-/);
    expect(result.outputs).toMatchObject({
      status: "uploaded",
      hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      source: "workspaces-api",
      links: { self: `/api/v2/configuration-versions/${firstVersion}`, download: `/api/v2/configuration-versions/${firstVersion}/download` },
      uploadedAt: { pendingAt: expect.any(String), uploadedAt: expect.any(String) },
    });
    expect(stack.emu.getConfigurationVersion(firstVersion)?.status).toBe("uploaded");
    expect(stack.emu.uploadedBytes(firstVersion)).toBeGreaterThan(300 * 1024);

    const create = stack.emu.log.entries.find((e) => e.method === "POST" && e.path.endsWith("/configuration-versions"))!;
    expect(create.body).toEqual({
      data: { type: "configuration-versions", attributes: { "auto-queue-runs": true, speculative: false, provisional: false } },
    });
    const upload = stack.emu.log.entries.find((e) => e.method === "PUT")!;
    expect(upload.path).toMatch(/^\/_archivist\/v1\/object\//);
    expect(upload.headers["content-type"]).toBe("application/octet-stream");
    expect(upload.headers.authorization).toBeUndefined();
    // Streamed: no length known in advance.
    expect(upload.headers["transfer-encoding"]).toBe("chunked");
    // The upload URL is a credential: it never reaches the state.
    expect(JSON.stringify(stack.engine.exportState())).not.toContain("_archivist");
  });

  test("preview again: no change; a change of an excluded file is no change either", async () => {
    stack.emu.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 2 });
    await writeFile(path.join(tree, "debug.log"), "more noise\n");
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 2 });
    expect(stack.emu.log.count).toBe(0);
  });

  test("a change of one file plans a replacement: the new version is uploaded, then the old one archived", async () => {
    await writeFile(path.join(tree, "modules/net/main.tf"), 'output "cidr" {\n  value = "10.1.0.0/16"\n}\n');
    const preview = await stack.engine.preview(program());
    expect(summarize(preview.steps)).toEqual({ same: 1, replace: 1 });
    expect(preview.steps.find((s) => s.op === "replace")).toMatchObject({ replaces: ["contentHash"] });

    stack.emu.log.clear();
    const result = await stack.engine.up(program());
    const second = String(result.outputs.id);
    expect(second).not.toBe(firstVersion);
    expect(stack.emu.getConfigurationVersion(second)?.status).toBe("uploaded");
    expect(stack.emu.getConfigurationVersion(firstVersion)?.status).toBe("archived");
    const lines = stack.emu.log.lines();
    const archiveAt = lines.indexOf(`POST /api/v2/configuration-versions/${firstVersion}/actions/archive`);
    expect(archiveAt).toBeGreaterThan(lines.findIndex((l) => l.startsWith("PUT /_archivist/")));
  });

  test("functions: list the versions, read one, download it and get the same files back", async () => {
    const current = [...stack.engine.state.values()].find((r) => r.type.endsWith("ConfigurationVersion"))!.id;
    const target = await makeTree({});
    const reader = new Engine({ project: "ws-functions", config: stack.config, secretConfig: ["workspaces:token"] });
    try {
      const result = await reader.up(async () => {
        const versions = await workspaces.listConfigurationVersions({ workspaceId });
        const one = await workspaces.getConfigurationVersion({ configurationVersionId: current });
        const ingress = await workspaces.getIngressAttributes({ configurationVersionId: current });
        await workspaces.downloadConfigurationVersion({ configurationVersionId: current, directory: target });
        return { versions: versions.map((v) => `${v.id}:${v.status}`), one, ingress: ingress ?? "none" };
      });
      expect(result.outputs.versions).toEqual([`${current}:uploaded`, `${firstVersion}:archived`]);
      expect(result.outputs.one).toMatchObject({ id: current, status: "uploaded", source: "workspaces-api", autoQueueRuns: true, ingressAttributes: null });
      expect(result.outputs.ingress).toBe("none");
      const expected = await snapshotTree(tree);
      delete expected["debug.log"];
      for (const key of Object.keys(expected)) if (key.startsWith(".iac")) delete expected[key];
      expect(await snapshotTree(target)).toEqual(expected);
      expect(Object.keys(expected)).toEqual(expect.arrayContaining(["empty-dir/", "@weird-name.tf", "files/blob.bin"]));
      expect((await stat(path.join(target, "files/blob.bin"))).size).toBe(binary.length);

      // An archived version cannot be downloaded: the function says why.
      const error = await workspaces
        .downloadConfigurationVersion({ configurationVersionId: firstVersion, directory: target }, contextFor(stack.config))
        .catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(
        `configuration version ${firstVersion} is archived: only uploaded versions can be downloaded (its files were discarded when it was archived)`,
      );
    } finally {
      await reader.close();
      await removeTree(target);
    }
  });

  test("an upload the service cannot process is reported with its message; the next up uploads a new version", async () => {
    stack.emu.failNextUpload("archive rejected: checksum mismatch");
    await writeFile(path.join(tree, "main.tf"), "# changed again\n");
    const error = (await stack.engine.up(program()).catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/ConfigurationVersion .*create failed: configuration version cv-\S+ was created but the service could not process the upload: archive rejected: checksum mismatch/);
    // Kept in state as created-but-failed: the version exists on the service.
    const failed = [...stack.engine.state.values()].find((r) => r.type.endsWith("ConfigurationVersion"))!;
    expect(failed.initErrors?.[0]).toContain("archive rejected: checksum mismatch");
    expect(stack.emu.getConfigurationVersion(failed.id)?.status).toBe("errored");

    const preview = await stack.engine.preview(program());
    expect(preview.steps.find((s) => s.op === "replace")).toMatchObject({ replaces: ["contentHash"] });
    const result = await stack.engine.up(program());
    expect(result.outputs.status).toBe("uploaded");
    expect(result.outputs.id).not.toBe(failed.id);
    // The errored version cannot be archived: left as it is, and the log says why.
    expect(result.diagnostics.join("\n")).toContain(`configuration version ${failed.id} is left as it is: only uploaded versions can be archived, and this one is errored`);
  });

  test("a transfer cut off on the network is sent again from a fresh archive stream", async () => {
    await writeFile(path.join(tree, "main.tf"), "# retried upload\n");
    stack.emu.faults.inject({ times: 1, drop: true, match: /^PUT \/_archivist\// });
    stack.emu.log.clear();
    const result = await stack.engine.up(program());
    expect(result.outputs.status).toBe("uploaded");
    const puts = stack.emu.log.entries.filter((e) => e.method === "PUT").map((e) => e.fault ?? e.status);
    expect(puts).toEqual(["drop", 200]);
  });

  test("a speculative version does not become the workspace's current version", async () => {
    const current = stack.emu.getWorkspace(workspaceId)?.currentConfigurationVersionId;
    const result = await stack.engine.up(program({ speculative: true }));
    expect(summarize(result.steps)).toEqual({ same: 1, replace: 1 });
    expect(stack.emu.getConfigurationVersion(String(result.outputs.id))).toMatchObject({ speculative: true, status: "uploaded" });
    expect(stack.emu.getWorkspace(workspaceId)?.currentConfigurationVersionId).toBe(current);
  });

  test("a version with a run in progress is left on destroy with the reason in the log; a 409 is no failure", async () => {
    const id = [...stack.engine.state.values()].find((r) => r.type.endsWith("ConfigurationVersion"))!.id;
    stack.emu.addRun(id, { inProgress: true });
    await writeFile(path.join(tree, "main.tf"), "# one more\n");
    const replaced = await stack.engine.up(program());
    expect(replaced.diagnostics.join("\n")).toMatch(new RegExp(`configuration version ${id} is left as it is: run run-\\S+ using it is still in progress`));
    expect(stack.emu.getConfigurationVersion(id)?.status).toBe("uploaded");

    // The service may still refuse (a run started meanwhile): 409 leaves the version, destroy goes on.
    stack.emu.faults.inject({ times: 1, status: 409, match: /actions\/archive$/ });
    stack.emu.log.clear();
    const destroyed = await stack.engine.destroy();
    expect(summarize(destroyed.steps)).toEqual({ delete: 2 });
    expect(destroyed.diagnostics.join("\n")).toMatch(/is left as it is: the service refused to archive it/);
    expect(stack.emu.log.lines().at(-1)).toBe(`DELETE /api/v2/workspaces/${workspaceId}`);
    expect(stack.emu.getWorkspace(workspaceId)).toBeUndefined();
  });

  test("destroy archives an uploaded version", async () => {
    await stack.engine.up(program());
    const id = [...stack.engine.state.values()].find((r) => r.type.endsWith("ConfigurationVersion"))!.id;
    const ws = [...stack.engine.state.values()].find((r) => r.type.endsWith(":Workspace"))!.id;
    stack.emu.log.clear();
    await stack.engine.destroy();
    expect(stack.emu.log.lines()).toEqual([
      `GET /api/v2/configuration-versions/${id}?include=run`,
      `POST /api/v2/configuration-versions/${id}/actions/archive`,
      `DELETE /api/v2/workspaces/${ws}`,
    ]);
    expect(stack.emu.log.entries[1].status).toBe(202);
  });

  test("a workspace that does not exist fails naming workspaceId and the request; nothing is left in state", async () => {
    const engine = new Engine({ project: "ws-missing", config: stack.config, secretConfig: ["workspaces:token"] });
    const error = (await engine
      .up(() => {
        new workspaces.ConfigurationVersion("orphan", { workspaceId: "ws-0000000000000000", directory: tree });
      })
      .catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/GET \/api\/v2\/workspaces\/ws-0000000000000000\/configuration-versions\S* returned 404.*no workspace ws-0000000000000000 is visible to this token: check workspaceId/);
    expect(engine.state.size).toBe(0);
    await engine.close();
  });
});
