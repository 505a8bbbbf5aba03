/**
 * The harness honours the resource options the engine honours when it deletes and replaces:
 * `protect`, `retainOnDelete`, `deletedWith`, `dependsOn`, `ignoreChanges`, `replaceOnChanges`,
 * `deleteBeforeReplace`; and an object a replacement could not delete stays in the state, marked,
 * and is deleted by the next up, as the engine keeps it.
 */
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const POLICY = 'path "secret/*" { capabilities = ["read"] }';

describe("resource options in the harness, as the engine honours them", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack({ config: { "keep:maxRetries": "0" } });
  });
  afterAll(() => stack.close());
  afterEach(() => stack.keep.faults.clear());

  const failure = (run: Promise<unknown>) => run.then(() => "succeeded", (e: EngineError) => e.errors.join("\n"));

  test("protect: destroy and a removal are refused, nothing is deleted; with protect off again, destroy deletes", async () => {
    const declare = (protect: boolean) => () => {
      new keep.AclPolicy("guarded", { name: "guarded", policy: POLICY }, { protect });
    };
    await stack.engine.up(declare(true));
    expect(await failure(stack.engine.destroy())).toMatch(/keep:AclPolicy::guarded: cannot delete a protected resource: set protect: false and run up first/);
    expect(await failure(stack.engine.preview(() => undefined))).toMatch(/cannot delete a protected resource/);
    expect(await failure(stack.engine.up(() => undefined))).toMatch(/cannot delete a protected resource/);
    expect(stack.keep.getPolicy("acl", "guarded")).toBeDefined();
    await stack.engine.up(declare(false));
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 1 });
    expect(stack.keep.getPolicy("acl", "guarded")).toBeUndefined();
  });

  test("protect: a change that replaces the resource is refused", async () => {
    await stack.engine.up(() => {
      new keep.AclPolicy("pinned", { name: "pinned", policy: POLICY }, { protect: true });
    });
    const renamed = () => {
      new keep.AclPolicy("pinned", { name: "pinned-2", policy: POLICY }, { protect: true });
    };
    expect(await failure(stack.engine.preview(renamed))).toMatch(/cannot replace a protected resource \(changes to name replace it\)/);
    await stack.engine.up(() => {
      new keep.AclPolicy("pinned", { name: "pinned", policy: POLICY });
    });
    await stack.engine.destroy();
  });

  test("retainOnDelete: destroy removes it from the state and leaves the object on the service", async () => {
    await stack.engine.up(() => {
      new keep.AclPolicy("kept", { name: "kept", policy: POLICY }, { retainOnDelete: true });
    });
    stack.keep.log.clear();
    const destroyed = await stack.engine.destroy();
    expect(destroyed.steps.map((s) => [s.op, s.name, s.stateOnly])).toEqual([["delete", "kept", "retainOnDelete"]]);
    expect(stack.keep.log.entries.filter((e) => e.method === "DELETE")).toEqual([]);
    expect(stack.keep.getPolicy("acl", "kept")?.policy).toBe(POLICY);
    expect([...stack.engine.state.values()]).toEqual([]);
  });

  test("deletedWith: when both go, its own delete is not sent; dependsOn orders the deletes", async () => {
    await stack.engine.up(() => {
      const owner = new keep.AclPolicy("owner", { name: "owner", policy: POLICY });
      new keep.AclPolicy("part", { name: "part", policy: POLICY }, { deletedWith: owner });
      new keep.AclPolicy("after", { name: "after", policy: POLICY }, { dependsOn: owner });
    });
    stack.keep.log.clear();
    const destroyed = await stack.engine.destroy();
    expect(destroyed.steps.find((s) => s.name === "part")?.stateOnly).toBe("deletedWith");
    expect(stack.keep.log.entries.filter((e) => e.method === "DELETE").map((e) => e.path)).toEqual(["/v1/sys/policies/acl/after", "/v1/sys/policies/acl/owner"]);
    stack.keep.deletePolicy("acl", "part");
  });

  test("ignoreChanges keeps the old value; replaceOnChanges replaces; deleteBeforeReplace deletes the old first", async () => {
    await stack.engine.up(() => {
      new keep.AclPolicy("opts", { name: "opts", policy: POLICY });
    });
    const ignored = await stack.engine.preview(() => {
      new keep.AclPolicy("opts", { name: "opts", policy: `${POLICY}\n# changed` }, { ignoreChanges: ["policy"] });
    });
    expect(summarize(ignored.steps)).toEqual({ same: 1 });
    const replaced = await stack.engine.preview(() => {
      new keep.AclPolicy("opts", { name: "opts", policy: `${POLICY}\n# changed` }, { replaceOnChanges: ["policy"] });
    });
    expect(summarize(replaced.steps)).toEqual({ replace: 1 });
    stack.keep.log.clear();
    await stack.engine.up(() => {
      new keep.AclPolicy("opts", { name: "opts-2", policy: POLICY }, { deleteBeforeReplace: true });
    });
    const writes = stack.keep.log.entries.filter((e) => e.method !== "GET").map((e) => `${e.method} ${e.path}`);
    expect(writes).toEqual(["DELETE /v1/sys/policies/acl/opts", "POST /v1/sys/policies/acl/opts-2"]);
    await stack.engine.destroy();
  });

  test("the import resource option is refused, naming where it runs: the harness does not follow the engine there", async () => {
    stack.keep.log.clear();
    const taking = () => {
      new keep.AclPolicy("taken", { name: "taken", policy: POLICY }, { import: "taken" });
    };
    expect(await failure(stack.engine.up(taking))).toMatch(/keep:AclPolicy::taken: the import resource option is not run by this harness: run the program with the Pulumi CLI/);
    expect(stack.keep.log.entries.filter((e) => e.method !== "GET")).toEqual([]);
  });

  test("a replaced object whose delete fails stays in the state, marked, and the next up deletes it", async () => {
    await stack.engine.up(() => {
      new keep.AclPolicy("moving", { name: "old-name", policy: POLICY });
    });
    stack.keep.faults.inject({ times: 1, status: 403, match: /^DELETE \/v1\/sys\/policies\/acl\/old-name/ });
    const renamed = () => {
      new keep.AclPolicy("moving", { name: "new-name", policy: POLICY });
    };
    expect(await failure(stack.engine.up(renamed))).toMatch(/the replaced object old-name could not be deleted \(it stays in the state, to be deleted by the next up\)/);
    expect(stack.keep.getPolicy("acl", "old-name")).toBeDefined();
    expect([...stack.engine.state.values()].map((r) => [r.name, r.id, r.pendingDelete ?? false])).toEqual([
      ["moving", "new-name", false],
      ["moving", "old-name", true],
    ]);
    // As the engine (tests/engine/flows.test.ts): the next preview does not show the delete it still
    // owes; the next up makes it after the program's steps.
    expect((await stack.engine.preview(renamed)).steps.map((s) => [s.op, s.pendingDelete ?? false])).toEqual([["same", false]]);
    const next = await stack.engine.up(renamed);
    expect(next.steps.map((s) => [s.op, s.pendingDelete ?? false])).toEqual([
      ["same", false],
      ["delete", true],
    ]);
    expect(stack.keep.getPolicy("acl", "old-name")).toBeUndefined();
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 1 });
  });
});
