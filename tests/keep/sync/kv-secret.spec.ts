/** keep.kv.Secret through the provider host: versions, replacement, drift, adoption, destroy of every version. */
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";

describe("keep.kv.Secret", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());
  const read = (path: string) => stack.keep.kv.read({ path });
  const program = (path: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => () => {
    const s = new keep.kv.Secret("db", { path, data, ...extra });
    return { id: s.id, version: s.version };
  };

  test("preview sends nothing; bad inputs fail in preview naming the property", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("app/db", { password: "p1" }))).steps)).toEqual({ create: 1 });
    const empty = (await stack.engine.preview(program("app/db", {})).catch((e) => e)) as EngineError;
    expect(empty.message).toMatch(/data: must hold at least one key/);
    const dotted = (await stack.engine.preview(program("app/db.", { a: "b" })).catch((e) => e)) as EngineError;
    expect(dotted.message).toMatch(/path: must not have a segment ending in a period/);
    expect(stack.keep.log.count).toBe(0);
  });

  test("up writes version 1; preview again changes nothing; a change writes version 2 in place", async () => {
    expect((await stack.engine.up(program("app/db", { password: "p1" }))).outputs).toEqual({ id: "secret/app/db", version: 1 });
    expect(summarize((await stack.engine.preview(program("app/db", { password: "p1" }))).steps)).toEqual({ same: 1 });
    const changed = await stack.engine.up(program("app/db", { password: "p2" }));
    expect(changed.steps[0]).toMatchObject({ op: "update", diffs: ["data"] });
    expect(changed.outputs.version).toBe(2);
    expect(read("app/db")).toMatchObject({ data: { password: "p2" }, metadata: { version: 2 } });
  });

  test("a new path replaces it: the old secret goes with all its versions", async () => {
    const up = await stack.engine.up(program("app/db2", { password: "p2" }));
    expect(up.steps[0]).toMatchObject({ op: "replace", replaces: ["path"] });
    expect(stack.keep.objects.read({ mount: "secret", kind: "secret", name: "app/db" })).toBeUndefined();
    expect(read("app/db2")?.data).toEqual({ password: "p2" });
  });

  test("drift is seen on refresh and written back as a new version", async () => {
    stack.keep.kv.write({ path: "app/db2" }, { password: "changed" });
    expect((await stack.engine.refresh()).steps[0]).toMatchObject({ op: "update", diffs: ["data", "version"] });
    await stack.engine.up(program("app/db2", { password: "p2" }));
    expect(read("app/db2")).toMatchObject({ data: { password: "p2" }, metadata: { version: 3 } });
  });

  test("an update whose answer was lost writes one version; one over a version written since the last refresh writes over it once", async () => {
    // The client sends the write again; the version it names (`cas`) is no longer the current one.
    stack.keep.faults.inject({ times: 1, match: /^POST \/v1\/secret\/data\/app\/db2$/, dropAfterHandling: true });
    expect((await stack.engine.up(program("app/db2", { password: "p3" }))).outputs.version).toBe(4);
    expect(read("app/db2")).toMatchObject({ data: { password: "p3" }, metadata: { version: 4 } });
    stack.keep.kv.write({ path: "app/db2" }, { password: "by hand" });
    expect((await stack.engine.up(program("app/db2", { password: "p2" }))).outputs.version).toBe(6);
    expect(read("app/db2")).toMatchObject({ data: { password: "p2" }, metadata: { version: 6 } });
  });

  test("adoption reads the existing secret and writes it only when it differs; destroy deletes every version", async () => {
    stack.engine.state.clear();
    stack.keep.log.clear();
    await stack.engine.up(program("app/db2", { password: "p2" }, { adopt: true }));
    expect(stack.keep.log.lines()).toEqual(["GET /v1/secret/data/app/db2"]);
    stack.keep.log.clear();
    await stack.engine.destroy();
    expect(stack.keep.log.lines()).toEqual(["DELETE /v1/secret/metadata/app/db2"]);
    expect(stack.keep.objects.read({ mount: "secret", kind: "secret", name: "app/db2" })).toBeUndefined();
  });

  test("a path with characters a URL encodes (a space, %, #) is encoded once: no drift, and destroy removes it", async () => {
    const odd = "app/db %#x ";
    stack.engine.state.clear();
    stack.keep.log.clear();
    const up = await stack.engine.up(program(odd, { a: "b" }));
    expect(up.outputs.id).toBe(`secret/${odd}`);
    expect(stack.keep.log.lines()).toContain("POST /v1/secret/data/app/db%20%25%23x%20");
    expect(read(odd)?.data).toEqual({ a: "b" });
    expect((await stack.engine.refresh()).steps.filter((s) => s.diffs?.length)).toEqual([]);
    expect(summarize((await stack.engine.preview(program(odd, { a: "b" }))).steps)).toEqual({ same: 1 });
    await stack.engine.destroy();
    expect(stack.keep.objects.read({ mount: "secret", kind: "secret", name: odd })).toBeUndefined();
  });
});
