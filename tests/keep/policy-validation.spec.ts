/** Bad inputs fail in preview, naming the property and the rule, without any request. */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

describe("policy inputs are validated in preview", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.keep.log.clear());
  afterEach(() => expect(stack.keep.log.count).toBe(0));

  async function failures(program: () => void): Promise<string> {
    const error = await stack.engine.preview(program).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    return (error as EngineError).message;
  }

  test("missing policy text", async () => {
    const message = await failures(() => new keep.AclPolicy("p", { name: "p" } as never));
    expect(message).toMatch(/policy: is required/);
  });

  test("empty policy text", async () => {
    expect(await failures(() => new keep.AclPolicy("p", { name: "p", policy: "  " }))).toMatch(/policy: must not be empty/);
  });

  test("a policy document the service would refuse, with its line and rule; an unknown document passes", async () => {
    const document = 'path "secret/*" {\n  capabilities = ["read"]\n}\npath "sys/*" {\n  capabilities = ["reed"]\n}';
    expect(await failures(() => new keep.AclPolicy("p", { name: "p", policy: document }))).toMatch(
      /policy: line 5, column 19: path "sys\/\*": invalid capability "reed" \(one of create, read, update, patch, delete, list, sudo, deny\)/,
    );
    expect(await failures(() => new keep.AclPolicy("p", { name: "p", policy: 'path "secret/*" { capabilities = ["read"' }))).toMatch(
      /policy: line 1, column 41: not valid HCL: error parsing list, expected comma or list end, got: EOF/,
    );
    const plan = await stack.engine.preview(() => {
      const first = new keep.AclPolicy("first", { name: "first", policy: 'path "a/*" { capabilities = ["read"] }' });
      new keep.AclPolicy("second", { name: "second", policy: first.id.apply((id) => `path "${id}/*" { capabilities = ["read"] }`) });
    });
    expect(summarize(plan.steps)).toEqual({ create: 2 });
  });

  test("unknown enforcement level", async () => {
    const message = await failures(
      () => new keep.RgpPolicy("p", { name: "p", policy: "main = rule { true }", enforcementLevel: "strict" as never }),
    );
    expect(message).toMatch(/enforcementLevel: must be one of advisory, soft-mandatory, hard-mandatory/);
  });

  test("EGP without paths", async () => {
    const empty = await failures(
      () => new keep.EgpPolicy("p", { name: "p", policy: "main = rule { true }", enforcementLevel: "advisory", paths: [] }),
    );
    expect(empty).toMatch(/paths: must list at least one path/);
    const blank = await failures(
      () => new keep.EgpPolicy("p", { name: "p", policy: "main = rule { true }", enforcementLevel: "advisory", paths: " , " }),
    );
    expect(blank).toMatch(/paths: must list at least one path/);
    const missing = await failures(
      () => new keep.EgpPolicy("p", { name: "p", policy: "main = rule { true }", enforcementLevel: "advisory" } as never),
    );
    expect(missing).toMatch(/paths: is required/);
  });

  test("a name ending in a period, with capitals, or with a slash", async () => {
    expect(await failures(() => new keep.AclPolicy("p", { name: "ops.", policy: "x" }))).toMatch(/name: policy name must not end in a period/);
    expect(await failures(() => new keep.AclPolicy("p", { name: "Ops", policy: "x" }))).toMatch(/name: must be lower case/);
    expect(await failures(() => new keep.AclPolicy("p", { name: "a/b", policy: "x" }))).toMatch(/name: policy name must not contain '\/'/);
  });

  test("an unknown property is named", async () => {
    const message = await failures(() => new keep.AclPolicy("p", { name: "p", policy: "x", polcy: "y" } as never));
    expect(message).toMatch(/polcy: is not a property of this resource/);
  });

  test("values not yet known pass validation and plan a change", async () => {
    // An input from a resource that does not exist yet is unknown in preview.
    const result = await stack.engine.preview(() => {
      const first = new keep.AclPolicy("first", { name: "first", policy: "path \"a/*\" { capabilities = [\"read\"] }" });
      new keep.EgpPolicy("second", {
        name: "second",
        policy: first.id.apply((id) => `main = rule { "${id}" is "first" }`),
        enforcementLevel: "advisory",
        paths: first.id.apply((id) => [`${id}/*`]),
      });
      return { known: pulumi.output(first.name) };
    });
    expect(summarize(result.steps)).toEqual({ create: 2 });
  });
});
