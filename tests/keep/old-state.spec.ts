/**
 * State written by an earlier version of the package must still refresh, diff and delete: its
 * serialized provider calls the host's `call(token, method, args)` with the full type token, one
 * function per method.
 */
import { keep } from "pulumi-keepstack";
import { summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const OLDER_PROVIDER = `exports.handler = __f0;
var __provider = {
  configure: (req) => require("pulumi-keepstack/host").configure(req),
  check: (olds, news) => require("pulumi-keepstack/host").call("pulumi-nodejs:dynamic/keep:AclPolicy", "check", [olds, news]),
  diff: (id, olds, news) => require("pulumi-keepstack/host").call("pulumi-nodejs:dynamic/keep:AclPolicy", "diff", [id, olds, news]),
  create: (inputs) => require("pulumi-keepstack/host").call("pulumi-nodejs:dynamic/keep:AclPolicy", "create", [inputs]),
  read: (id, props) => require("pulumi-keepstack/host").call("pulumi-nodejs:dynamic/keep:AclPolicy", "read", [id, props]),
  update: (id, olds, news) => require("pulumi-keepstack/host").call("pulumi-nodejs:dynamic/keep:AclPolicy", "update", [id, olds, news]),
  delete: (id, props) => require("pulumi-keepstack/host").call("pulumi-nodejs:dynamic/keep:AclPolicy", "delete", [id, props]),
};
function __f0() { return __provider; }
`;

describe("state written by an earlier version", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test("refreshes, plans no change, and deletes", async () => {
    const program = () => new keep.AclPolicy("old", { name: "old", policy: "path \"a/*\" { capabilities = [\"read\"] }" });
    await stack.engine.up(program);
    const entry = [...stack.engine.state.values()][0];
    entry.outputs = { ...entry.outputs, __provider: OLDER_PROVIDER };
    entry.inputs = { ...entry.inputs, __provider: OLDER_PROVIDER };

    stack.keep.putPolicy("acl", "old", { policy: "path \"b/*\" { capabilities = [\"read\"] }" });
    expect((await stack.engine.refresh()).steps[0]).toMatchObject({ op: "refresh", diffs: ["policy"] });
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ update: 1 });
    await stack.engine.up(program);

    // Up wrote the current provider; put the older one back and delete through it.
    const again = [...stack.engine.state.values()][0];
    again.outputs = { ...again.outputs, __provider: OLDER_PROVIDER };
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 1 });
    expect(stack.keep.getPolicy("acl", "old")).toBeUndefined();
  });
});
