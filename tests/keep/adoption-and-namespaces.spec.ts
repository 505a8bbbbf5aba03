/** Adoption of existing policies, read-only references with get, and namespace overrides. */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const DECLARED = 'path "kv/*" {\n  capabilities = ["read"]\n}\n';

describe("adoption, get and namespaces", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test("adopt converges an existing policy to the declared text and then manages it", async () => {
    stack.keep.putPolicy("acl", "legacy", { policy: 'path "old/*" { capabilities = ["deny"] }' });
    stack.keep.putPolicy("egp", "legacy-guard", { policy: "main = rule { true }", enforcement_level: "advisory", paths: ["secret/*"] });
    stack.keep.putPolicy("rgp", "legacy-gate", { policy: "main = rule { true }", enforcement_level: "advisory" });
    const program = () => {
      new keep.RgpPolicy("legacy-gate", { name: "legacy-gate", policy: "main = rule { false }", enforcementLevel: "hard-mandatory", adopt: true });
      new keep.AclPolicy("legacy", { name: "legacy", policy: DECLARED, adopt: true });
      new keep.EgpPolicy("legacy-guard", {
        name: "legacy-guard",
        policy: "main = rule { true }",
        enforcementLevel: "advisory",
        paths: ["secret/*"],
        adopt: true,
      });
    };
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ create: 3 });
    expect(stack.keep.log.count).toBe(0);

    await stack.engine.up(program);
    expect(stack.keep.getPolicy("acl", "legacy")?.policy).toBe(DECLARED);
    expect(stack.keep.getPolicy("rgp", "legacy-gate")).toMatchObject({ policy: "main = rule { false }", enforcement_level: "hard-mandatory" });
    // Already as declared: adopted with a read alone, no write.
    expect(stack.keep.log.lines().filter((l) => l.includes("legacy-guard"))).toEqual(["GET /v1/sys/policies/egp/legacy-guard"]);
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 3 });

    await stack.engine.destroy();
    expect(stack.keep.getPolicy("acl", "legacy")).toBeUndefined();
    expect(stack.keep.getPolicy("rgp", "legacy-gate")).toBeUndefined();
  });

  test("adopting a policy that does not exist creates it, and says so", async () => {
    const up = await stack.engine.up(() => new keep.AclPolicy("ghost", { name: "ghost", policy: DECLARED, adopt: true }));
    expect(summarize(up.steps)).toEqual({ create: 1 });
    expect(up.diagnostics.join("\n")).toContain('keep:AclPolicy "ghost": adopt is set and the service holds no such object: this program creates it');
    expect(stack.keep.getPolicy("acl", "ghost")?.policy).toBe(DECLARED);
    await stack.engine.destroy();
    expect(stack.keep.getPolicy("acl", "ghost")).toBeUndefined();
  });

  test("get reads an existing policy without managing it", async () => {
    stack.keep.putPolicy("rgp", "shared", { policy: "main = rule { true }", enforcement_level: "hard-mandatory" });
    const result = await stack.engine.up(() => {
      const shared = keep.RgpPolicy.get("shared", "shared");
      return { level: shared.enforcementLevel, text: shared.policy };
    });
    expect(result.outputs).toEqual({ level: "hard-mandatory", text: "main = rule { true }" });
    await stack.engine.destroy();
    expect(stack.keep.getPolicy("rgp", "shared")).toMatchObject({ enforcement_level: "hard-mandatory" });
  });

  test("a namespace override writes into that namespace and is part of the ID", async () => {
    stack.keep.addNamespace("team-a");
    const result = await stack.engine.up(() => {
      const p = new keep.AclPolicy("scoped", { name: "scoped", policy: DECLARED, namespace: "team-a" });
      return { id: p.id };
    });
    expect(result.outputs.id).toBe("team-a:scoped");
    expect(stack.keep.getPolicy("acl", "scoped", "team-a")?.policy).toBe(DECLARED);
    expect(stack.keep.getPolicy("acl", "scoped")).toBeUndefined();

    const moved = await stack.engine.up(() => {
      stack.keep.addNamespace("team-b");
      new keep.AclPolicy("scoped", { name: "scoped", policy: DECLARED, namespace: "team-b" });
    });
    expect(moved.steps[0]).toMatchObject({ op: "replace", replaces: ["namespace"] });
    expect(stack.keep.getPolicy("acl", "scoped", "team-a")).toBeUndefined();
    expect(stack.keep.getPolicy("acl", "scoped", "team-b")?.policy).toBe(DECLARED);

    const adopted = await stack.engine.up(() => {
      const ref = keep.AclPolicy.get("ref", "team-b:scoped");
      return { text: pulumi.output(ref.policy) };
    });
    expect(adopted.outputs.text).toBe(DECLARED);
    await stack.engine.destroy();
    expect(stack.keep.getPolicy("acl", "scoped", "team-b")).toBeUndefined();
  });
});

describe("adopt left in the program", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test("a replacing change while adopt is declared is refused in preview, before any request, and nothing is taken over; without adopt the replacement creates", async () => {
    const OTHERS = 'path "other/*" {\n  capabilities = ["list"]\n}\n';
    stack.keep.putPolicy("acl", "first", { policy: DECLARED });
    stack.keep.putPolicy("acl", "second", { policy: OTHERS });
    await stack.engine.up(() => new keep.AclPolicy("p", { name: "first", policy: DECLARED, adopt: true }));
    // The engine checks a replacement's inputs again with no state, so its create would adopt "second".
    const renamed = () => new keep.AclPolicy("p", { name: "second", policy: DECLARED, adopt: true });
    stack.keep.log.clear();
    for (const run of [() => stack.engine.preview(renamed), () => stack.engine.up(renamed)]) {
      const error = (await run().catch((e: unknown) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.message).toMatch(/adopt: takes over an existing object at the first create only, and this object is in state: the change of name replaces it, .* Remove adopt from the program/);
    }
    expect(stack.keep.log.count).toBe(0);
    expect(stack.keep.getPolicy("acl", "second")?.policy).toBe(OTHERS);

    const replaced = await stack.engine.up(() => new keep.AclPolicy("p", { name: "third", policy: DECLARED }));
    expect(replaced.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    expect(stack.keep.getPolicy("acl", "third")?.policy).toBe(DECLARED);
    expect(stack.keep.getPolicy("acl", "first")).toBeUndefined();
    expect(stack.keep.getPolicy("acl", "second")?.policy).toBe(OTHERS);
    await stack.engine.destroy();
  });

  test("adopt left in the program changes nothing on an update", async () => {
    stack.keep.putPolicy("acl", "kept", { policy: DECLARED });
    await stack.engine.up(() => new keep.AclPolicy("k", { name: "kept", policy: DECLARED, adopt: true }));
    const changed = 'path "kv/*" {\n  capabilities = ["read", "list"]\n}\n';
    const updated = await stack.engine.up(() => new keep.AclPolicy("k", { name: "kept", policy: changed, adopt: true }));
    expect(summarize(updated.steps)).toEqual({ update: 1 });
    expect(stack.keep.getPolicy("acl", "kept")?.policy).toBe(changed);
    await stack.engine.destroy();
  });
});
