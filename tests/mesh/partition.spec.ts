/** mesh.Partition lifecycle through the real provider host against the emulator. */
import { mesh } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { createPartitionOutOfBand, MeshStack, startMeshStack } from "./mesh-stack";

describe("mesh.Partition", () => {
  let stack: MeshStack;
  beforeAll(async () => {
    stack = await startMeshStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.mesh.setDeletionDelay(10));

  /** What the service holds: the declared description, and the owner recorded on its last line. */
  const recorded = (description: string, resource = "team") => `${description}\n\n(managed by Pulumi stack mesh-test/dev, resource ${resource})`;

  const program = (name: string, description?: string) => () => {
    const p = new mesh.Partition("team", { name, description });
    return { id: p.id, name: p.name, description: p.description, createIndex: p.createIndex, modifyIndex: p.modifyIndex };
  };

  test("preview of a new stack plans a create and sends no request", async () => {
    stack.mesh.log.clear();
    const result = await stack.engine.preview(program("na-west", "North America West"));
    expect(summarize(result.steps)).toEqual({ create: 1 });
    expect(stack.mesh.log.count).toBe(0);
  });

  test("an invalid name fails in preview, naming the property, without a request", async () => {
    stack.mesh.log.clear();
    for (const bad of ["under_score", "-leading", "a".repeat(64)]) {
      const error = await stack.engine.preview(program(bad)).catch((e: EngineError) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).message).toMatch(/invalid inputs:\n\s+name: must be a DNS hostname label/);
    }
    expect(stack.mesh.log.count).toBe(0);
  });

  test("up creates the partition; the outputs carry the indexes", async () => {
    const result = await stack.engine.up(program("na-west", "North America West"));
    expect(summarize(result.steps)).toEqual({ create: 1 });
    const created = stack.mesh.getPartition("na-west")!;
    expect(created.Description).toBe(recorded("North America West"));
    expect(result.outputs).toEqual({
      id: "na-west",
      name: "na-west",
      description: "North America West",
      createIndex: created.CreateIndex,
      modifyIndex: created.ModifyIndex,
    });
    expect(stack.mesh.log.lines()).toContain("PUT /v1/partition");
  });

  test("preview and up again: no changes, no request in preview", async () => {
    stack.mesh.log.clear();
    expect(summarize((await stack.engine.preview(program("na-west", "North America West"))).steps)).toEqual({ same: 1 });
    expect(stack.mesh.log.count).toBe(0);
    expect(summarize((await stack.engine.up(program("na-west", "North America West"))).steps)).toEqual({ same: 1 });
    expect(stack.mesh.log.count).toBe(0);
  });

  test("a description change is applied in place, sending Name equal to the path name", async () => {
    const before = stack.mesh.getPartition("na-west")!;
    const preview = await stack.engine.preview(program("na-west", "NA West, production"));
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: ["description"] });
    stack.mesh.log.clear();
    const result = await stack.engine.up(program("na-west", "NA West, production"));
    expect(result.steps[0]).toMatchObject({ op: "update" });
    const put = stack.mesh.log.entries.find((e) => e.method === "PUT")!;
    expect(put.url).toBe("/v1/partition/na-west");
    expect(put.body).toEqual({ Name: "na-west", Description: recorded("NA West, production") });
    const after = stack.mesh.getPartition("na-west")!;
    expect(after.CreateIndex).toBe(before.CreateIndex);
    expect(result.outputs.modifyIndex).toBe(after.ModifyIndex);
    expect(after.ModifyIndex).toBeGreaterThan(before.ModifyIndex);
  });

  test("a rename replaces the partition and waits for the old one's deletion", async () => {
    stack.mesh.setDeletionDelay(30);
    const preview = await stack.engine.preview(program("na-east", "NA West, production"));
    expect(preview.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    const result = await stack.engine.up(program("na-east", "NA West, production"));
    expect(result.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    expect(result.outputs.id).toBe("na-east");
    expect(stack.mesh.getPartition("na-east")?.Description).toBe(recorded("NA West, production"));
    // Gone, not merely marked for deletion.
    expect(stack.mesh.getPartition("na-west")).toBeUndefined();
  });

  test("refresh after an out-of-band deletion drops the partition; the next up creates it again", async () => {
    expect(stack.mesh.deletePartitionNow("na-east")).toBe(true);
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps).toEqual([expect.objectContaining({ op: "delete", name: "team" })]);
    expect(stack.engine.state.size).toBe(0);
    const result = await stack.engine.up(program("na-east", "NA West, production"));
    expect(summarize(result.steps)).toEqual({ create: 1 });
    expect(stack.mesh.getPartition("na-east")?.Description).toBe(recorded("NA West, production"));
  });

  test("a partition found marked for deletion on refresh counts as gone", async () => {
    stack.mesh.markPartitionDeleted("na-east");
    stack.mesh.log.clear();
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps).toEqual([expect.objectContaining({ op: "delete", name: "team" })]);
    // Refresh reads in the consistent mode.
    expect(stack.mesh.log.lines()).toEqual(["GET /v1/partition/na-east?consistent"]);
    expect(stack.engine.state.size).toBe(0);
    stack.mesh.deletePartitionNow("na-east");
  });

  test("drift of the description is seen on refresh and the next up restores it", async () => {
    await stack.engine.up(program("drifty", "declared"));
    await fetch(`${stack.mesh.url}/v1/partition/drifty`, {
      method: "PUT",
      headers: { "X-Mesh-Token": stack.mesh.rootToken },
      body: JSON.stringify({ Description: "changed elsewhere" }),
    });
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps[0]).toMatchObject({ op: "update" });
    expect(refreshed.steps[0].diffs).toEqual(expect.arrayContaining(["description", "modifyIndex"]));
    const preview = await stack.engine.preview(program("drifty", "declared"));
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: ["description"] });
    await stack.engine.up(program("drifty", "declared"));
    expect(stack.mesh.getPartition("drifty")?.Description).toBe(recorded("declared"));
  });

  test("destroy marks the partition for deletion and waits until the background deletion removed it", async () => {
    stack.mesh.setDeletionDelay(40);
    stack.mesh.log.clear();
    const result = await stack.engine.destroy();
    expect(summarize(result.steps)).toEqual({ delete: 1 });
    expect(stack.mesh.getPartition("drifty")).toBeUndefined();
    const lines = stack.mesh.log.lines();
    // First the owner's record is read: an object another stack took over is left to it.
    expect(lines.slice(0, 2)).toEqual(["GET /v1/partition/drifty?consistent", "DELETE /v1/partition/drifty"]);
    lines.shift();
    // Polled until the partition answered 404.
    expect(lines.slice(1).every((l) => l === "GET /v1/partition/drifty?consistent")).toBe(true);
    expect(stack.mesh.log.entries.at(-1)?.status).toBe(404);
  });

  test("adoption by name converges an existing partition's description, then manages it", async () => {
    await createPartitionOutOfBand(stack.mesh, "legacy", "made by hand");
    await createPartitionOutOfBand(stack.mesh, "as-declared", "already right");
    const adopt = () => {
      new mesh.Partition("legacy", { name: "legacy", description: "managed now", adopt: true });
      new mesh.Partition("as-declared", { name: "as-declared", description: "already right", adopt: true });
    };
    stack.mesh.log.clear();
    expect(summarize((await stack.engine.preview(adopt)).steps)).toEqual({ create: 2 });
    expect(stack.mesh.log.count).toBe(0);

    await stack.engine.up(adopt);
    expect(stack.mesh.getPartition("legacy")?.Description).toBe(recorded("managed now", "legacy"));
    // An adopted partition records its new owner, even when it was as declared.
    expect(stack.mesh.log.lines().filter((l) => l.includes("as-declared"))).toEqual(["GET /v1/partition/as-declared?consistent", "PUT /v1/partition/as-declared"]);
    const puts = stack.mesh.log.entries.filter((e) => e.method === "PUT").map((e) => [e.url, e.body]);
    expect(puts.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ["/v1/partition/as-declared", { Name: "as-declared", Description: recorded("already right", "as-declared") }],
      ["/v1/partition/legacy", { Name: "legacy", Description: recorded("managed now", "legacy") }],
    ]);
    expect(summarize((await stack.engine.preview(adopt)).steps)).toEqual({ same: 2 });

    await stack.engine.destroy();
    expect(stack.mesh.getPartition("legacy")).toBeUndefined();
    expect(stack.mesh.getPartition("as-declared")).toBeUndefined();
  });

  test("adopting a partition that does not exist creates it", async () => {
    await stack.engine.up(() => {
      new mesh.Partition("ghost", { name: "ghost", adopt: true });
    });
    expect(stack.mesh.getPartition("ghost")).toBeDefined();
    await stack.engine.destroy();
  });
});
