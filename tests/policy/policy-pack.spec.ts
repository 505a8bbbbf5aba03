/** Policy packs name our resources by type token, as `@pulumi/policy` expects. */
import { validateResourceOfType } from "@pulumi/policy";
import { keep } from "pulumi-keepstack";

describe("policy packs", () => {
  const requireRoot = validateResourceOfType(keep.EgpPolicy as never, (egp: any, _args, reportViolation) => {
    if (egp.enforcementLevel !== "hard-mandatory") reportViolation("EGPs must be hard-mandatory");
  });

  test("validateResourceOfType filters on our type token", () => {
    expect((requireRoot as unknown as { __pulumiType: string }).__pulumiType).toBe("pulumi-nodejs:dynamic/keep:EgpPolicy");
    expect(keep.EgpPolicy.__pulumiType).toBe("pulumi-nodejs:dynamic/keep:EgpPolicy");
  });

  test("the validation runs on resources of that type and reports violations", () => {
    const violations: string[] = [];
    const args = (type: string, props: Record<string, unknown>) =>
      ({
        type,
        props,
        urn: `urn:pulumi:dev::p::${type}::x`,
        name: "x",
        opts: {},
        isType: (cls: { __pulumiType?: string }) => cls.__pulumiType === type,
        asType: () => undefined,
        getConfig: () => ({}),
      }) as never;
    requireRoot(args(keep.EgpPolicy.__pulumiType, { enforcementLevel: "advisory" }), (m: string) => violations.push(m));
    requireRoot(args(keep.EgpPolicy.__pulumiType, { enforcementLevel: "hard-mandatory" }), (m: string) => violations.push(m));
    expect(violations).toEqual(["EGPs must be hard-mandatory"]);
  });
});
