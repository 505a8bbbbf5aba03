/**
 * State written by an earlier version of the package must still refresh, diff and delete. The first
 * versions' serialized provider calls the host's `call(token, method, args)` with the full type
 * token, one function per method; the next ones' (serialized by `pulumi.dynamic.Resource`) call
 * `dispatch(type, args)` for configure, check, create and read and `call` for the rest.
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

/** As `pulumi.dynamic.Resource` serialized the shim of 0.1.0 (its `with` scopes and all). */
const SERIALIZED_PROVIDER = "exports.handler = __f0;\n\nvar __provider = {configure: __f1, check: __f1, create: __f1, read: __f1, diff: __f2, update: __f3, delete: __f4};\n\nfunction __f1() {\n  return (function() {\n    with({ t: \"keep:AclPolicy\", this: undefined, arguments: undefined }) {\n\nreturn (...a) => require(\"pulumi-keepstack/host\").dispatch(t, a);\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n\nfunction __f2() {\n  return (function() {\n    with({ t: \"keep:AclPolicy\", this: undefined, arguments: undefined }) {\n\nreturn (...a) => require(\"pulumi-keepstack/host\").call(t, \"diff\", a);\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n\nfunction __f3() {\n  return (function() {\n    with({ t: \"keep:AclPolicy\", this: undefined, arguments: undefined }) {\n\nreturn (...a) => require(\"pulumi-keepstack/host\").call(t, \"update\", a);\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n\nfunction __f4() {\n  return (function() {\n    with({ t: \"keep:AclPolicy\", this: undefined, arguments: undefined }) {\n\nreturn (...a) => require(\"pulumi-keepstack/host\").call(t, \"delete\", a);\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n\nfunction __f0() {\n  return (function() {\n    with({ provider: __provider, this: undefined, arguments: undefined }) {\n\nreturn () => provider;\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n";

describe("state written by an earlier version", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test.each([
    ["calling the host by method", OLDER_PROVIDER],
    ["serialized with dispatch", SERIALIZED_PROVIDER],
  ])("%s refreshes, plans no change, and deletes", async (_kind, older) => {
    const program = () => new keep.AclPolicy("old", { name: "old", policy: "path \"a/*\" { capabilities = [\"read\"] }" });
    await stack.engine.up(program);
    const entry = [...stack.engine.state.values()][0];
    entry.outputs = { ...entry.outputs, __provider: older };
    entry.inputs = { ...entry.inputs, __provider: older };

    stack.keep.putPolicy("acl", "old", { policy: "path \"b/*\" { capabilities = [\"read\"] }" });
    expect((await stack.engine.refresh()).steps[0]).toMatchObject({ op: "update", diffs: ["policy"] });
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ update: 1 });
    await stack.engine.up(program);

    // Up wrote the current provider; put the older one back and delete through it.
    const again = [...stack.engine.state.values()][0];
    again.outputs = { ...again.outputs, __provider: older };
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 1 });
    expect(stack.keep.getPolicy("acl", "old")).toBeUndefined();
  });
});
