/**
 * What preview accepts, apply does not refuse: the rules the service applies to policies are checked
 * in preview, built-in policies are adopted, never created, and text is compared as the service stores it.
 */
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const TEXT = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';

describe("policy rules", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  const previewError = async (program: () => unknown) => {
    stack.keep.log.clear();
    const error = (await stack.engine.preview(program).catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(stack.keep.log.count).toBe(0);
    return error.message;
  };

  test("a namespace of `/` fails in preview, saying how to mean the configured one", async () => {
    expect(await previewError(() => new keep.AclPolicy("p", { name: "p", policy: TEXT, namespace: "/" }))).toMatch(
      /namespace: must name a namespace such as `team-a` or `team-a\/dev`; leave it out for the configured one/,
    );
  });

  test("a policy named `root` fails in preview, for every kind", async () => {
    expect(await previewError(() => new keep.AclPolicy("p", { name: "root", policy: TEXT }))).toMatch(/name: must not be `root`/);
    expect(await previewError(() => new keep.RgpPolicy("p", { name: "root", policy: TEXT, enforcementLevel: "advisory" }))).toMatch(/name: must not be `root`/);
  });

  test("the built-in `default` ACL policy can be adopted, never created; destroy leaves it and says so", async () => {
    expect(await previewError(() => new keep.AclPolicy("d", { name: "default", policy: TEXT }))).toMatch(
      /name: names the built-in `default` policy of the namespace, which the service makes itself: it can be adopted \(`adopt: true`\), never created/,
    );
    const original = stack.keep.getPolicy("acl", "default")!.policy;
    const program = () => new keep.AclPolicy("d", { name: "default", policy: TEXT, adopt: true });
    await stack.engine.up(program);
    expect(stack.keep.getPolicy("acl", "default")?.policy).toBe(TEXT);
    // Once in state, the adoption stays valid: later runs plan nothing.
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });
    const destroyed = await stack.engine.destroy();
    expect(stack.keep.getPolicy("acl", "default")?.policy).toBe(TEXT);
    expect(destroyed.diagnostics.join("\n")).toMatch(/keep:AclPolicy "default": the built-in `default` policy of the namespace is the service's own: left on the service/);
    stack.keep.putPolicy("acl", "default", { policy: original });
  });

  test("short base64 text is compared as the service stores it: no perpetual update", async () => {
    // "IyB4" is base64 of "# x" (a document of one comment).
    const program = () => new keep.AclPolicy("short", { name: "short", policy: "IyB4" });
    await stack.engine.up(program);
    expect(stack.keep.getPolicy("acl", "short")?.policy).toBe("# x");
    await stack.engine.refresh();
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });
    await stack.engine.destroy();
  });
});
