/** RGP and EGP lifecycles through the real provider host against the emulator. */
import { keep } from "pulumi-keepstack";
import { summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const RULE_A = 'main = rule { true }\n';
const RULE_B = 'main = rule { identity.entity.name is "ops" }\n';

describe("keep.RgpPolicy", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  const program = (name: string, policy: string, enforcementLevel: "advisory" | "soft-mandatory" | "hard-mandatory") => () => {
    new keep.RgpPolicy("gate", { name, policy, enforcementLevel });
  };

  test("lifecycle: preview, up, no-op, in-place change, rename, drift, destroy", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("gate", RULE_A, "advisory"))).steps)).toEqual({ create: 1 });
    expect(stack.keep.log.count).toBe(0);

    await stack.engine.up(program("gate", RULE_A, "advisory"));
    expect(stack.keep.getPolicy("rgp", "gate")).toEqual({ name: "gate", policy: RULE_A, enforcement_level: "advisory" });

    expect(summarize((await stack.engine.preview(program("gate", RULE_A + "\n", "advisory"))).steps)).toEqual({ same: 1 });

    const change = await stack.engine.up(program("gate", RULE_B, "hard-mandatory"));
    expect(change.steps[0]).toMatchObject({ op: "update" });
    expect(change.steps[0].diffs?.sort()).toEqual(["enforcementLevel", "policy"]);
    expect(stack.keep.getPolicy("rgp", "gate")).toMatchObject({ policy: RULE_B, enforcement_level: "hard-mandatory" });

    const rename = await stack.engine.up(program("gate-2", RULE_B, "hard-mandatory"));
    expect(rename.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    expect(stack.keep.listPolicies("rgp")).toEqual(["gate-2"]);

    stack.keep.putPolicy("rgp", "gate-2", { policy: RULE_B, enforcement_level: "advisory" });
    expect((await stack.engine.refresh()).steps[0]).toMatchObject({ op: "update", diffs: ["enforcementLevel"] });
    await stack.engine.up(program("gate-2", RULE_B, "hard-mandatory"));
    expect(stack.keep.getPolicy("rgp", "gate-2")).toMatchObject({ enforcement_level: "hard-mandatory" });

    await stack.engine.destroy();
    expect(stack.keep.listPolicies("rgp")).toEqual([]);
  });
});

describe("keep.EgpPolicy", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  const program = (name: string, paths: string[] | string, policy = RULE_A) => () => {
    new keep.EgpPolicy("guard", { name, policy, enforcementLevel: "soft-mandatory", paths });
  };

  test("lifecycle: paths in place, as a comma-separated string, order-insensitive, rename, drift, destroy", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("guard", ["secret/*"]))).steps)).toEqual({ create: 1 });
    expect(stack.keep.log.count).toBe(0);

    await stack.engine.up(program("guard", ["secret/*"]));
    expect(stack.keep.getPolicy("egp", "guard")).toMatchObject({ paths: ["secret/*"], enforcement_level: "soft-mandatory" });

    const change = await stack.engine.up(program("guard", "secret/*, transit/*"));
    expect(change.steps[0]).toMatchObject({ op: "update", diffs: ["paths"] });
    expect(stack.keep.getPolicy("egp", "guard")).toMatchObject({ paths: ["secret/*", "transit/*"] });

    expect(summarize((await stack.engine.preview(program("guard", ["transit/*", "secret/*"]))).steps)).toEqual({ same: 1 });

    const rename = await stack.engine.up(program("guard-2", ["secret/*", "transit/*"]));
    expect(rename.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });

    stack.keep.putPolicy("egp", "guard-2", { policy: RULE_A, enforcement_level: "soft-mandatory", paths: ["*"] });
    expect((await stack.engine.refresh()).steps[0]).toMatchObject({ op: "update", diffs: ["paths"] });
    await stack.engine.up(program("guard-2", ["secret/*", "transit/*"]));
    expect(stack.keep.getPolicy("egp", "guard-2")).toMatchObject({ paths: ["secret/*", "transit/*"] });

    await stack.engine.destroy();
    expect(stack.keep.listPolicies("egp")).toEqual([]);
  });
});
