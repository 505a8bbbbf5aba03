/**
 * The C# and Java names docs/plugin.md gives, checked statically against the schema's language
 * sections, as Pulumi's generators derive them: no language host for C# or Java runs in this suite.
 * The TypeScript, Python, Go and YAML programs of the page are run by the real CLI
 * (tests/engine/plugin-*.test.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pluginSchema } from "../support/plugin-sdk";

const PAGE = "docs/plugin.md";
const text = fs.readFileSync(path.join(__dirname, "..", "..", PAGE), "utf8");
const section = text.slice(text.indexOf("### C# and Java"), text.indexOf("## What a preview shows"));
const schema = pluginSchema();
const language = schema.language as { csharp: { namespaces: Record<string, string> }; java: { basePackage: string } };

test("C#: the page's class is Pulumi.<package namespace>.<module namespace>.<type> of the schema (static)", () => {
  const { namespaces } = language.csharp;
  const name = `Pulumi.${namespaces[schema.name]}.${namespaces.keep}.AclPolicy`;
  expect(section).toContain(`new ${name}("readers"`);
  expect(schema.resources["keepstack:keep:AclPolicy"]).toBeDefined();
  // Every module of the schema has its C# namespace.
  const modules = new Set(Object.keys(schema.resources).map((token) => token.split(":")[1]));
  for (const module of modules) expect(namespaces[module]).toMatch(/^[A-Z]\w*$/);
});

test("Java: the page's package is <basePackage>.<package>.<module> of the schema, its builder the properties' names (static)", () => {
  expect(section).toContain(`from \`${language.java.basePackage}.${schema.name}.keep\``);
  const inputs = schema.resources["keepstack:keep:AclPolicy"].inputProperties;
  for (const property of ["name"]) expect(inputs[property]).toBeDefined();
  expect(section).toContain('AclPolicyArgs.builder().name("readers")');
});
