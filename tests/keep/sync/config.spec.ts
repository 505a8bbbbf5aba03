/** keep.sync.Config through the provider host: PATCH, read back, namespaces, drift, adoption, defaults restored. */
import { keep } from "pulumi-keepstack";
import { syncOf } from "../../../emulator/keep/sync";
import { EngineError, summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";

describe("keep.sync.Config", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
    syncOf(stack.keep).addAdministrativeNamespace("admin");
    stack.keep.addNamespace("team-a");
  });
  afterAll(() => stack.close());
  const config = () => syncOf(stack.keep).config();
  const program = (args: { disabled?: boolean; queueCapacity?: number; namespace?: string }, opts: { deleteBeforeReplace?: boolean } = {}) => () => {
    const c = new keep.sync.Config("sync", args, opts);
    return { id: c.id };
  };

  test("preview sends nothing; a bad capacity fails in preview naming it", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program({ queueCapacity: 5000 }))).steps)).toEqual({ create: 1 });
    const error = (await stack.engine.preview(program({ queueCapacity: 0 })).catch((e) => e)) as EngineError;
    expect(error.message).toMatch(/queueCapacity: must be a positive number of operations/);
    expect(stack.keep.log.count).toBe(0);
  });

  test("up writes it with a merge patch and reads it back; preview again changes nothing", async () => {
    stack.keep.log.clear();
    const up = await stack.engine.up(program({ queueCapacity: 5000 }));
    expect(up.outputs).toEqual({ id: "sync-config" });
    expect(config()).toMatchObject({ disabled: false, queueCapacity: 5000 });
    // Read first: at the service's defaults, the configuration is nobody's, and is written.
    expect(stack.keep.log.entries.map((e) => [e.method, e.path, e.headers["content-type"], e.body])).toEqual([
      ["GET", "/v1/sys/sync/config", "application/json", undefined],
      ["PATCH", "/v1/sys/sync/config", "application/merge-patch+json", { disabled: false, queue_capacity: 5000 }],
    ]);
    expect(summarize((await stack.engine.preview(program({ queueCapacity: 5000 }))).steps)).toEqual({ same: 1 });
  });

  test("a change is patched in place", async () => {
    const up = await stack.engine.up(program({ queueCapacity: 6000, disabled: true }));
    expect(up.steps[0]).toMatchObject({ op: "update", diffs: ["disabled", "queueCapacity"] });
    expect(config()).toMatchObject({ disabled: true, queueCapacity: 6000 });
  });

  test("drift is seen on refresh and patched back", async () => {
    await fetch(`${stack.keep.url}/v1/sys/sync/config`, {
      method: "PATCH",
      headers: { "X-Keep-Token": stack.keep.rootToken, "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify({ disabled: false }),
    });
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps[0]).toMatchObject({ op: "update", diffs: ["disabled"] });
    await stack.engine.up(program({ queueCapacity: 6000, disabled: true }));
    expect(config()).toMatchObject({ disabled: true, queueCapacity: 6000 });
  });

  test("moving it to an administrative namespace replaces it (delete first: both name the one configuration)", async () => {
    const up = await stack.engine.up(program({ queueCapacity: 7000, namespace: "admin" }, { deleteBeforeReplace: true }));
    expect(up.steps[0]).toMatchObject({ op: "replace", replaces: ["namespace"] });
    expect(up.outputs).toEqual({ id: "admin:sync-config" });
    expect(config()).toMatchObject({ disabled: false, queueCapacity: 7000 });
  });

  test("destroy restores the service's defaults", async () => {
    const destroyed = await stack.engine.destroy();
    expect(destroyed.diagnostics.join("\n")).toMatch(/the service's defaults restored/);
    expect(config()).toEqual({ disabled: false, queueCapacity: 1000000, queued: 0 });
  });

  test("adoption reads it and patches only what differs", async () => {
    stack.keep.log.clear();
    await stack.engine.up(program({ adopt: true } as never));
    expect(stack.keep.log.lines()).toEqual(["GET /v1/sys/sync/config"]);
    await stack.engine.destroy();
  });

  test("refused from a namespace that is not administrative, with the service's reason", async () => {
    const error = (await stack.engine.up(program({ namespace: "team-a", queueCapacity: 10 })).catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/keep:SyncConfig "team-a:sync-config": create failed: .*returned 400: sys\/sync\/config can only be called from the root namespace or an administrative namespace/);
    expect(config().queueCapacity).toBe(1000000);
  });
});
