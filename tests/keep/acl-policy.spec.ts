/** ACL policy lifecycle through the real provider host against the emulator. */
import { keep } from "pulumi-keepstack";
import { summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const READ_ONLY = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
const READ_LIST = 'path "secret/*" {\n  capabilities = ["read", "list"]\n}\n';

describe("keep.AclPolicy", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  const program = (name: string, policy: string) => () => {
    const p = new keep.AclPolicy("ops", { name, policy });
    return { id: p.id, name: p.name };
  };

  test("preview of a new stack plans a create and sends no request", async () => {
    stack.keep.log.clear();
    const result = await stack.engine.preview(program("ops", READ_ONLY));
    expect(summarize(result.steps)).toEqual({ create: 1 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("up creates the policy with the declared text", async () => {
    const result = await stack.engine.up(program("ops", READ_ONLY));
    expect(summarize(result.steps)).toEqual({ create: 1 });
    expect(result.outputs).toEqual({ id: "ops", name: "ops" });
    expect(stack.keep.getPolicy("acl", "ops")?.policy).toBe(READ_ONLY);
  });

  test("preview again: no changes, and trailing whitespace is not a change", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("ops", READ_ONLY))).steps)).toEqual({ same: 1 });
    expect(summarize((await stack.engine.preview(program("ops", READ_ONLY.trimEnd() + "  \n\n"))).steps)).toEqual({ same: 1 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("a text change is applied in place", async () => {
    const preview = await stack.engine.preview(program("ops", READ_LIST));
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: ["policy"] });
    await stack.engine.up(program("ops", READ_LIST));
    expect(stack.keep.getPolicy("acl", "ops")?.policy).toBe(READ_LIST);
  });

  test("a name change replaces the policy", async () => {
    const result = await stack.engine.up(program("ops-v2", READ_LIST));
    expect(result.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    expect(stack.keep.getPolicy("acl", "ops")).toBeUndefined();
    expect(stack.keep.getPolicy("acl", "ops-v2")?.policy).toBe(READ_LIST);
  });

  test("drift is seen on refresh and the next up restores the declared text", async () => {
    stack.keep.putPolicy("acl", "ops-v2", { policy: READ_ONLY });
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps[0]).toMatchObject({ op: "update", diffs: ["policy"] });
    const preview = await stack.engine.preview(program("ops-v2", READ_LIST));
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: ["policy"] });
    await stack.engine.up(program("ops-v2", READ_LIST));
    expect(stack.keep.getPolicy("acl", "ops-v2")?.policy).toBe(READ_LIST);
  });

  test("destroy deletes the policy", async () => {
    await stack.engine.destroy();
    expect(stack.keep.getPolicy("acl", "ops-v2")).toBeUndefined();
  });
});
