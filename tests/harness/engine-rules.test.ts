/**
 * The harness's engine rules are one table (harness/engine-rules.ts): each cites the engine's code it
 * follows and the real-engine tests that show the engine doing it, and the engine applies each where
 * it says so. What a rule decides alone is checked here against the engine's own examples.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ENGINE_RULES, invertedDiff, replacingKeys, urnOf, withAdditionalSecrets, withIgnoredChanges } from "../../harness/engine-rules";

const root = path.join(__dirname, "..", "..");
const engineSource = fs.readFileSync(path.join(root, "harness", "engine.ts"), "utf8");
const rules = Object.entries(ENGINE_RULES);

describe("the table", () => {
  test.each(rules)("%s cites the engine's file and function, and a real-engine test that exists", (_name, rule) => {
    expect(rule.says.length).toBeGreaterThan(20);
    for (const cited of rule.follows) expect(cited).toMatch(/^pkg\/[\w/.-]+\.go: [\w.]+( \(\w+\))?$/);
    for (const file of rule.shownBy) expect({ file, exists: fs.existsSync(path.join(root, file)) }).toEqual({ file, exists: true });
    expect(rule.shownBy.filter((file) => file.startsWith("tests/engine/")).length).toBeGreaterThan(0);
  });

  test("engine.ts applies every rule where it names it, names no rule that is not in the table, and cites the engine nowhere else", () => {
    const named = new Set<string>();
    for (const match of engineSource.matchAll(/[Ee]ngine rules? ([A-Za-z, ]+?)(?=[:.;)]|$)/gm)) {
      for (const word of match[1].split(/[,\s]+/).filter((w) => w && w !== "and" && w !== "then")) named.add(word);
    }
    expect([...named].filter((name) => !(name in ENGINE_RULES))).toEqual([]);
    expect(rules.map(([name]) => name).filter((name) => !named.has(name))).toEqual([]);
    expect(engineSource).not.toMatch(/pulumi\/pulumi[,#]|pkg\/resource/);
  });
});

describe("what the rules decide", () => {
  test("urn: a child's type is qualified by its parent's whole qualified type, not the stack's", () => {
    const stack = "urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev";
    expect(urnOf("dev", "app", "keepstack:keep:AclPolicy", "readers", stack)).toBe("urn:pulumi:dev::app::keepstack:keep:AclPolicy::readers");
    const component = urnOf("dev", "app", "acme:index:Team", "west", stack);
    const child = urnOf("dev", "app", "acme:index:Group", "ops", component);
    expect(child).toBe("urn:pulumi:dev::app::acme:index:Team$acme:index:Group::ops");
    expect(urnOf("dev", "app", "keepstack:keep:AclPolicy", "p", child)).toBe("urn:pulumi:dev::app::acme:index:Team$acme:index:Group$keepstack:keep:AclPolicy::p");
  });

  test("ignoreChanges: an ignored property takes its old input; one the old inputs lack stays as given", () => {
    expect(withIgnoredChanges({ name: "a", policy: "new", tags: ["x"] }, { name: "a", policy: "old" }, ["policy", "tags"])).toEqual({ name: "a", policy: "old", tags: ["x"] });
    expect(withIgnoredChanges({ policy: "new" }, undefined, ["policy"])).toEqual({ policy: "new" });
  });

  test("replaceOnChanges: a named property replaces only when it changed, beside the provider's own", () => {
    expect(replacingKeys(["name"], ["name", "policy"], ["policy", "tags"])).toEqual(["name", "policy"]);
    expect(replacingKeys([], ["tags"], ["policy"])).toEqual([]);
    expect(replacingKeys(["name"], ["name"], ["name"])).toEqual(["name"]);
  });

  test("secretOutputs: the marked keys and the ones the program named, once each", () => {
    expect(withAdditionalSecrets(["token"], ["password", "token"])).toEqual(["token", "password"]);
  });

  test("refreshStep: what the refresh found is what an up would undo", () => {
    expect(invertedDiff({ a: "add", b: "delete-replace", c: "update" })).toEqual({ a: "delete", b: "add-replace", c: "update" });
  });
});
