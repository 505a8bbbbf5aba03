/** Compile-time tests of the policy resources' argument and output types (compiled by types.test.ts). */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { Equal, Expect } from "./type-assertions";

type Level = "advisory" | "soft-mandatory" | "hard-mandatory";
declare const text: pulumi.Output<string>;
declare const level: pulumi.Output<Level>;
declare const maybeNamespace: pulumi.Output<string | undefined>;
declare const flag: pulumi.Output<boolean>;
declare const paths: pulumi.Output<string[]>;

export function acceptsInputsAtEveryLevel() {
  new keep.AclPolicy("plain", { name: "readers", policy: 'path "secret/*" { capabilities = ["read"] }' });
  new keep.AclPolicy("outputs", { name: text, policy: text, namespace: maybeNamespace, adopt: flag });
  new keep.AclPolicy("promise", { name: Promise.resolve("readers"), policy: text, adopt: pulumi.output(true) });

  new keep.RgpPolicy("level-output", { name: "r", policy: "rule", enforcementLevel: level });
  new keep.RgpPolicy("level-literal", { name: "r", policy: "rule", enforcementLevel: "soft-mandatory" });
  new keep.RgpPolicy("level-promise", { name: "r", policy: "rule", enforcementLevel: Promise.resolve<Level>("advisory") });

  new keep.EgpPolicy("paths-output", { name: "e", policy: "rule", enforcementLevel: level, paths });
  new keep.EgpPolicy("paths-elements", { name: "e", policy: "rule", enforcementLevel: "advisory", paths: ["secret/*", text] });
  new keep.EgpPolicy("paths-text", { name: "e", policy: "rule", enforcementLevel: "advisory", paths: text });
  new keep.EgpPolicy("paths-csv", { name: "e", policy: "rule", enforcementLevel: "advisory", paths: "secret/*,sys/*" });
}

export function rejectsWrongTypes() {
  // @ts-expect-error a level outside the enum
  new keep.RgpPolicy("bad-level", { name: "r", policy: "rule", enforcementLevel: "strict" });
  // @ts-expect-error an Output of any string is wider than the enum
  new keep.RgpPolicy("wide-level", { name: "r", policy: "rule", enforcementLevel: text });
  // @ts-expect-error name is required
  new keep.AclPolicy("no-name", { policy: "rule" });
  // @ts-expect-error a misspelt argument
  new keep.AclPolicy("typo", { name: "n", policy: "rule", namespcae: "ns" });
  // @ts-expect-error adopt is a boolean
  new keep.AclPolicy("adopt-text", { name: "n", policy: "rule", adopt: pulumi.output("yes") });
  // @ts-expect-error paths hold strings
  new keep.EgpPolicy("paths-numbers", { name: "e", policy: "rule", enforcementLevel: "advisory", paths: [1] });
  // @ts-expect-error paths hold strings, also inside an Output
  new keep.EgpPolicy("paths-number-output", { name: "e", policy: "rule", enforcementLevel: "advisory", paths: pulumi.output([1]) });
  // @ts-expect-error an element that is an Output of a number
  new keep.EgpPolicy("paths-element", { name: "e", policy: "rule", enforcementLevel: "advisory", paths: [pulumi.output(1)] });
}

export function outputTypes(egp: keep.EgpPolicy, acl: keep.AclPolicy) {
  type Checks = [
    Expect<Equal<typeof egp.enforcementLevel, pulumi.Output<Level>>>,
    Expect<Equal<typeof egp.paths, pulumi.Output<string[]>>>,
    Expect<Equal<typeof egp.namespace, pulumi.Output<string | undefined>>>,
    Expect<Equal<typeof acl.name, pulumi.Output<string>>>,
    Expect<Equal<typeof keep.AclPolicy.__pulumiType, string>>,
  ];
  // @ts-expect-error outputs are not plain values
  type Plain = Expect<Equal<typeof acl.name, string>>;
  // @ts-expect-error enforcementLevel is the enum, not any string
  type Wide = Expect<Equal<typeof egp.enforcementLevel, pulumi.Output<string>>>;
  return [] as unknown as [Checks, Plain, Wide];
}
