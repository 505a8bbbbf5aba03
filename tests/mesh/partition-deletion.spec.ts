/**
 * mesh.Partition and the service's deletion rules: the built-in `default` partition, names still being
 * deleted, names that exist, the deletion timeout, and read-only references to a partition being deleted.
 */
import { mesh } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { createPartitionOutOfBand, MeshStack, startMeshStack, until } from "./mesh-stack";

describe("mesh.Partition deletion rules", () => {
  let stack: MeshStack;
  beforeAll(async () => {
    stack = await startMeshStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => {
    stack.mesh.setDeletionDelay(10);
    stack.mesh.log.clear();
  });

  test("the default partition can be adopted, but its delete fails saying why, without retries", async () => {
    const program = () => {
      new mesh.Partition("default", { name: "default", description: "Builtin Default Partition", adopt: true });
    };
    await stack.engine.up(program);
    expect(stack.mesh.log.lines()).toEqual(["GET /v1/partition/default?consistent"]);

    stack.mesh.log.clear();
    const error = (await stack.engine.destroy().catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/mesh:Partition "default": delete failed: the built-in partition "default" cannot be deleted/);
    expect(error.message).toMatch(/Cannot delete the default partition/);
    expect(error.message).toMatch(/pulumi state delete/);
    // A refusal the service decided is not retried.
    expect(stack.mesh.log.lines()).toEqual(["DELETE /v1/partition/default"]);
    expect(stack.mesh.getPartition("default")?.DeletedAt).toBeUndefined();
    stack.engine.state.clear();
  });

  test("creating a name that is still being deleted waits for the deletion to finish, then succeeds", async () => {
    await createPartitionOutOfBand(stack.mesh, "recycled", "old");
    // Marked for deletion with no removal scheduled: it stays "being deleted" until the test removes it.
    stack.mesh.markPartitionDeleted("recycled");
    stack.mesh.log.clear();
    const up = stack.engine.up(() => {
      const p = new mesh.Partition("recycled", { name: "recycled", description: "new" });
      return { createIndex: p.createIndex };
    });
    await until(
      () => stack.mesh.log.entries.some((e) => e.method === "GET" && e.path === "/v1/partition/recycled" && e.status === 200),
      "the create was refused and the provider polls the partition",
    );
    expect(stack.mesh.log.entries[0]).toMatchObject({ method: "PUT", url: "/v1/partition", status: 500 });
    stack.mesh.deletePartitionNow("recycled");
    const result = await up;
    expect(summarize(result.steps)).toEqual({ create: 1 });
    const created = stack.mesh.getPartition("recycled")!;
    expect(created).toMatchObject({ Description: "new\n\n(managed by Pulumi stack mesh-test/dev, resource recycled)" });
    expect(created.DeletedAt).toBeUndefined();
    expect(result.outputs.createIndex).toBe(created.CreateIndex);
    expect(stack.mesh.log.entries.filter((e) => e.method === "PUT").map((e) => e.status)).toEqual([500, 200]);
    expect(result.diagnostics.join("\n")).toMatch(/still being deleted on the service; waiting/);
    await stack.engine.destroy();
  });

  test("creating a name that exists fails at once, suggesting adoption", async () => {
    await createPartitionOutOfBand(stack.mesh, "taken", "someone else's");
    stack.mesh.log.clear();
    const error = (await stack.engine
      .up(() => {
        new mesh.Partition("taken", { name: "taken" });
      })
      .catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/mesh:Partition "taken": create failed: the service already holds mesh:Partition "taken" \(PUT \/v1\/partition answered 500: .*already exists.*declare it with `adopt: true`/);
    // The refusal reads the partition to tell whether its record names this very resource (a leftover it takes back).
    expect(stack.mesh.log.lines()).toEqual(["PUT /v1/partition", "GET /v1/partition/taken?consistent"]);
    expect(stack.mesh.getPartition("taken")?.Description).toBe("someone else's");
    expect(stack.engine.state.size).toBe(0);
  });

  test("a create whose answer was lost takes the partition the first attempt made into state: no orphan, no duplicate", async () => {
    stack.mesh.faults.inject({ times: 1, dropAfterHandling: true, match: /^PUT \/v1\/partition$/ });
    const program = () => {
      const p = new mesh.Partition("lost", { name: "lost", description: "declared" });
      return { createIndex: p.createIndex, description: p.description };
    };
    const result = await stack.engine.up(program);
    // The retry was told the name exists; the partition it found is this create's own.
    expect(stack.mesh.log.entries.filter((e) => e.method === "PUT").map((e) => (e.fault === "drop" ? "drop" : e.status))).toEqual(["drop", 500]);
    const made = stack.mesh.getPartition("lost")!;
    expect(result.outputs).toEqual({ createIndex: made.CreateIndex, description: "declared" });
    expect([...stack.engine.state.values()].map((r) => r.id)).toEqual(["lost"]);
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });
    await stack.engine.destroy();
    expect(stack.mesh.getPartition("lost")).toBeUndefined();
  });

  test("destroy gives up after deletionTimeoutSeconds, keeps the partition in state, and a later destroy finishes", async () => {
    const program = (deletionTimeoutSeconds: number) => () => {
      new mesh.Partition("slow", { name: "slow", deletionTimeoutSeconds });
    };
    await stack.engine.up(program(300));
    // Changing only the timeout is an update that sends nothing.
    stack.mesh.log.clear();
    const result = await stack.engine.up(program(0.05));
    expect(result.steps[0]).toMatchObject({ op: "update", diffs: ["deletionTimeoutSeconds"] });
    expect(stack.mesh.log.count).toBe(0);

    stack.mesh.setDeletionDelay(60 * 60_000);
    const error = (await stack.engine.destroy().catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/partition "slow" is marked for deletion, but the service had not finished deleting its data after 0.05 s/);
    expect(error.message).toMatch(/run destroy again later, or raise deletionTimeoutSeconds/);
    expect(stack.mesh.getPartition("slow")?.DeletedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(stack.engine.state.size).toBe(1);

    // The background deletion completes; destroying again finds nothing left to wait for.
    stack.mesh.deletePartitionNow("slow");
    await stack.engine.destroy();
    expect(stack.engine.state.size).toBe(0);
  });

  test("a read-only reference shows a partition being deleted with its deletedAt", async () => {
    await createPartitionOutOfBand(stack.mesh, "leaving", "on its way out");
    stack.mesh.markPartitionDeleted("leaving");
    const result = await stack.engine.up(() => {
      const ref = mesh.Partition.get("leaving", "leaving");
      return { description: ref.description, deletedAt: ref.deletedAt };
    });
    expect(result.outputs).toEqual({ description: "on its way out", deletedAt: stack.mesh.getPartition("leaving")!.DeletedAt });
    expect(result.outputs.deletedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    await stack.engine.destroy();
    // A reference is never deleted by the program.
    expect(stack.mesh.getPartition("leaving")?.Description).toBe("on its way out");
    stack.mesh.deletePartitionNow("leaving");
  });
});
