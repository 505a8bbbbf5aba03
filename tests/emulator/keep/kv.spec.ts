/**
 * The key-value engine on the emulator (spec, general conventions 5): version 2 at `secret/`
 * (versions, metadata, check-and-set, delete/undelete/destroy), version 1 on its own mount, answers
 * inside `data`, and the out-of-band reads, writes and version events that secret sync builds on.
 */
import type { KvVersionEvent } from "../../../emulator/keep";
import { call, expectEnvelope, expectErrors, keep, useKeepEmulator } from "./fixture";

useKeepEmulator();

describe("version 2", () => {
  test("writes add versions; reads answer data and metadata inside data", async () => {
    const first = await call("POST", "/v1/secret/data/app/db", { body: { data: { user: "a" } } });
    expect(first.status).toBe(200);
    expectEnvelope(first.body, "kv");
    expect(first.body.data).toEqual({ created_time: expect.any(String), custom_metadata: null, deletion_time: "", destroyed: false, version: 1 });
    const second = await call("PUT", "/v1/secret/data/app/db", { body: { data: { user: "b" } } });
    expect(second.body.data.version).toBe(2);

    const latest = await call("GET", "/v1/secret/data/app/db");
    expect(latest.status).toBe(200);
    expectEnvelope(latest.body, "kv");
    expect(latest.body.data).toEqual({
      data: { user: "b" },
      metadata: { created_time: second.body.data.created_time, custom_metadata: null, deletion_time: "", destroyed: false, version: 2 },
    });
    expect((await call("GET", "/v1/secret/data/app/db?version=1")).body.data.data).toEqual({ user: "a" });
    expectErrors(await call("GET", "/v1/secret/data/app/db?version=9"), 404);
  });

  test("metadata reads every version; lists are of directories; an empty list is 404", async () => {
    await call("POST", "/v1/secret/data/list/one", { body: { data: { a: 1 } } });
    await call("POST", "/v1/secret/data/list/sub/two", { body: { data: { a: 2 } } });
    const metadata = await call("GET", "/v1/secret/metadata/list/one");
    expect(metadata.body.data).toEqual(
      expect.objectContaining({ current_version: 1, oldest_version: 1, max_versions: 0, cas_required: false, versions: { "1": expect.objectContaining({ destroyed: false }) } }),
    );
    const listed = await call("GET", "/v1/secret/metadata/list?list=true");
    expect(listed.status).toBe(200);
    expectEnvelope(listed.body, "kv");
    expect(listed.body.data).toEqual({ keys: ["one", "sub/"] });
    expect((await call("GET", "/v1/secret/metadata/?list=true")).body.data.keys).toEqual(expect.arrayContaining(["list/"]));
    const empty = await call("GET", "/v1/secret/metadata/nothing/here?list=true");
    expect(empty.status).toBe(404);
    expect(empty.body).toEqual({ errors: [] });
  });

  test("check-and-set: cas must match the current version, 0 creates only; cas_required demands it", async () => {
    expect((await call("POST", "/v1/secret/data/cas", { body: { data: { v: 1 }, options: { cas: 0 } } })).status).toBe(200);
    expectErrors(await call("POST", "/v1/secret/data/cas", { body: { data: { v: 2 }, options: { cas: 0 } } }), 400);
    expectErrors(await call("POST", "/v1/secret/data/cas", { body: { data: { v: 2 }, options: { cas: 5 } } }), 400);
    expect((await call("POST", "/v1/secret/data/cas", { body: { data: { v: 2 }, options: { cas: 1 } } })).body.data.version).toBe(2);

    expect((await call("POST", "/v1/secret/metadata/cas", { body: { cas_required: true } })).status).toBe(204);
    const missing = expectErrors(await call("POST", "/v1/secret/data/cas", { body: { data: { v: 3 } } }), 400);
    expect(missing[0]).toContain("check-and-set");
    expect(keep().kv.read({ path: "cas" })?.data).toEqual({ v: 2 });
  });

  test("max_versions keeps the newest versions only", async () => {
    await call("POST", "/v1/secret/metadata/few", { body: { max_versions: 2 } });
    for (const v of [1, 2, 3]) await call("POST", "/v1/secret/data/few", { body: { data: { v } } });
    const metadata = (await call("GET", "/v1/secret/metadata/few")).body.data;
    expect(Object.keys(metadata.versions)).toEqual(["2", "3"]);
    expect(metadata.oldest_version).toBe(2);
    expectErrors(await call("GET", "/v1/secret/data/few?version=1"), 404);
  });

  test("delete, undelete and destroy act on versions; metadata delete removes the secret", async () => {
    await call("POST", "/v1/secret/data/life", { body: { data: { v: 1 } } });
    await call("POST", "/v1/secret/data/life", { body: { data: { v: 2 } } });
    expect((await call("DELETE", "/v1/secret/data/life")).status).toBe(204);
    expectErrors(await call("GET", "/v1/secret/data/life"), 404);
    expect((await call("GET", "/v1/secret/data/life?version=1")).body.data.data).toEqual({ v: 1 });
    expect((await call("POST", "/v1/secret/undelete/life", { body: { versions: [2] } })).status).toBe(204);
    expect((await call("GET", "/v1/secret/data/life")).body.data.data).toEqual({ v: 2 });
    await call("POST", "/v1/secret/destroy/life", { body: { versions: [1] } });
    expectErrors(await call("GET", "/v1/secret/data/life?version=1"), 404);
    expect((await call("GET", "/v1/secret/metadata/life")).body.data.versions["1"].destroyed).toBe(true);
    expectErrors(await call("POST", "/v1/secret/delete/life", { body: {} }), 400);
    expect((await call("DELETE", "/v1/secret/metadata/life")).status).toBe(204);
    expectErrors(await call("GET", "/v1/secret/metadata/life"), 404);
  });

  test("PATCH merges into the latest version with a merge-patch body", async () => {
    await call("POST", "/v1/secret/data/patched", { body: { data: { a: "1", b: "2" } } });
    expectErrors(await call("PATCH", "/v1/secret/data/patched", { body: { data: { a: "x" } } }), 415);
    const patched = await call("PATCH", "/v1/secret/data/patched", {
      body: { data: { a: "x", b: null } },
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patched.body.data.version).toBe(2);
    expect(keep().kv.read({ path: "patched" })?.data).toEqual({ a: "x" });
  });

  test("a write needs data as an object; the version 1 paths do not exist on version 2", async () => {
    expectErrors(await call("POST", "/v1/secret/data/bad", { body: { user: "u" } }), 400);
    expectErrors(await call("POST", "/v1/secret/data/bad", { body: { data: "text" } }), 400);
    expect(keep().kv.read({ path: "bad" })).toBeUndefined();
    expectErrors(await call("POST", "/v1/secret/plain", { body: { user: "u" } }), 404);
  });

  test("the mount's config sets defaults", async () => {
    expect((await call("POST", "/v1/secret/config", { body: { max_versions: 4 } })).status).toBe(204);
    expect((await call("GET", "/v1/secret/config")).body.data).toEqual({ max_versions: 4, cas_required: false, delete_version_after: "0s" });
  });
});

describe("version 1", () => {
  beforeAll(() => {
    keep().mount("old", "kv", { options: { version: "1" } });
  });

  test("write, read, list directories, delete; a read carries the engine's lease", async () => {
    expect((await call("POST", "/v1/old/team/app", { body: { password: "p" } })).status).toBe(204);
    await call("POST", "/v1/old/team/sub/deep", { body: { k: "v" } });
    // `data/` is an ordinary path on version 1.
    await call("POST", "/v1/old/data/x", { body: { k: "v" } });
    const read = await call("GET", "/v1/old/team/app");
    expectEnvelope(read.body, "kv");
    expect(read.body.data).toEqual({ password: "p" });
    expect(read.body.lease_duration).toBe(2764800);
    expect((await call("GET", "/v1/old/team?list=true")).body.data).toEqual({ keys: ["app", "sub/"] });
    expect((await call("GET", "/v1/old?list=true")).body.data.keys).toEqual(["data/", "team/"]);
    expect((await call("DELETE", "/v1/old/team/app")).status).toBe(204);
    expectErrors(await call("GET", "/v1/old/team/app"), 404);
    expectErrors(await call("GET", "/v1/old/empty-dir?list=true"), 404);
    expectErrors(await call("POST", "/v1/old/nothing", { body: {} }), 400);
  });
});

describe("out-of-band access and version events", () => {
  test("kv.write makes a new version the API answers; kv.read gives the latest", async () => {
    await call("POST", "/v1/secret/data/oob", { body: { data: { v: "api" } } });
    expect(keep().kv.write({ path: "oob" }, { v: "behind" })?.version).toBe(2);
    expect((await call("GET", "/v1/secret/data/oob")).body.data.data).toEqual({ v: "behind" });
    expect(keep().kv.read({ mount: "secret", path: "oob" })).toEqual({ data: { v: "behind" }, metadata: expect.objectContaining({ version: 2 }) });
    expect(keep().kv.read({ path: "oob", version: 1 })?.data).toEqual({ v: "api" });
    expect(keep().kv.delete({ path: "oob" })).toBe(true);
    expect(keep().kv.read({ path: "oob" })).toBeUndefined();
  });

  test("each new version of a version 2 secret is announced with its mount, path, version and data", async () => {
    const events: KvVersionEvent[] = [];
    const stop = keep().kv.onVersion((event) => events.push(event));
    try {
      await call("POST", "/v1/secret/data/watched", { body: { data: { n: 1 } } });
      keep().kv.write({ path: "watched" }, { n: 2 });
      // Metadata changes and deletes are not new versions.
      await call("POST", "/v1/secret/metadata/watched", { body: { max_versions: 5 } });
      await call("DELETE", "/v1/secret/data/watched");
      await call("POST", "/v1/old/ignored", { body: { n: 0 } });
    } finally {
      stop();
    }
    await call("POST", "/v1/secret/data/watched", { body: { data: { n: 3 } } });
    expect(events.map((e) => [e.mount.path, e.mount.accessor, e.path, e.version, e.data, e.source])).toEqual([
      ["secret", keep().mounts().find((m) => m.path === "secret/")!.accessor, "watched", 1, { n: 1 }, "api"],
      ["secret", keep().mounts().find((m) => m.path === "secret/")!.accessor, "watched", 2, { n: 2 }, "out-of-band"],
    ]);
  });
});
