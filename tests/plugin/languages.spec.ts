/**
 * The programs of docs/plugin.md, in Python, Go and YAML, read against the package schema: every
 * type and function a token of it, every property one it declares under the name each language's
 * SDK generator gives it, required inputs given, values of the declared type. The Python program is
 * parsed by Python where it is installed; the YAML one is also run, through the plugin, against the
 * emulator (a few lines do what Pulumi YAML does with it).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Emulator, startEmulator } from "../../emulator";
import { Engine, summarize } from "../../harness";
import { pageBlocks } from "../support/pages";
import { PLUGIN_SECRET_CONFIG, pluginConfigOf, pluginResource, pluginSchema } from "../support/plugin-sdk";

// js-yaml comes with @pulumi/pulumi.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require("js-yaml") as { load(text: string): unknown };

const PAGE = "docs/plugin.md";
const schema = pluginSchema();
type Property = { type?: string; $ref?: string; items?: Property; oneOf?: Property[] };
type Resource = { inputProperties: Record<string, Property>; requiredInputs?: string[] };
const resources = schema.resources as unknown as Record<string, Resource>;

/** Python's name of a schema property, as Pulumi's Python generator makes it (`autoApply` → `auto_apply`). */
export const pythonName = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();

/** Go's name of a schema property, as Pulumi's Go generator makes it (`autoApply` → `AutoApply`). */
export const goName = (name: string): string => name[0].toUpperCase() + name.slice(1);

/** The primitive a property takes, through its enum type if it has one. */
function primitiveOf(p: Property): string | undefined {
  if (p.type) return p.type;
  const ref = p.$ref?.replace("#/types/", "");
  return ref ? ((schema.types[ref] as { type?: string } | undefined)?.type ?? "object") : undefined;
}

/** What is wrong with the properties a program gives a resource: unknown names, missing required ones, values of another type. */
function propertyProblems(token: string, given: Record<string, unknown>, nameOf: (p: string) => string = (p) => p): string[] {
  const r = resources[token];
  if (!r) return [`${token} is not a resource of the schema`];
  const byName = new Map(Object.entries(r.inputProperties).map(([p, spec]) => [nameOf(p), { p, spec }]));
  const problems: string[] = [];
  for (const [key, value] of Object.entries(given)) {
    const found = byName.get(key);
    if (!found) {
      problems.push(`${token}: ${key} is not a property`);
      continue;
    }
    const expected = primitiveOf(found.spec);
    const actual = typeof value === "boolean" ? "boolean" : typeof value === "number" ? "number" : typeof value === "string" ? "string" : undefined;
    const fits = !expected || !actual || expected === actual || (expected === "integer" && actual === "number") || (actual === "string" && /^\$\{.+\}$/.test(String(value)));
    if (!fits) problems.push(`${token}: ${key} is a ${expected}, given a ${actual}`);
  }
  for (const required of r.requiredInputs ?? []) if (!(nameOf(required) in given)) problems.push(`${token}: ${nameOf(required)} is required`);
  return problems;
}

describe("docs/plugin.md: Python", () => {
  const [program] = pageBlocks(PAGE, "python").filter((b) => /^import pulumi_keepstack/m.test(b));

  test("Python parses it", () => {
    const parsed = spawnSync("python3", ["-c", "import ast, sys; ast.parse(sys.stdin.read())"], { input: program, encoding: "utf8" });
    if (parsed.error && (parsed.error as NodeJS.ErrnoException).code === "ENOENT") {
      console.log("python3 is not installed here: the Python program is checked against the schema only");
      return;
    }
    expect(parsed.stderr).toBe("");
    expect(parsed.status).toBe(0);
  });

  test("its classes and keyword arguments are the schema's, under the Python generator's names", () => {
    expect(program).toMatch(/^import pulumi_keepstack as keepstack$/m);
    const calls = [...program.matchAll(/(\w+) = keepstack\.(\w+)\.(\w+)\(\s*"([^"]+)",([\s\S]*?)\n\)/g)];
    expect(calls.map((c) => `${c[2]}:${c[3]}`)).toEqual(["keep:AclPolicy", "workspaces:Workspace", "mesh:Partition"]);
    const problems = calls.flatMap((c) => {
      const args = Object.fromEntries([...c[5].matchAll(/(\w+)=((?:'[^']*'|"[^"]*"|True|False|-?\d+(?:\.\d+)?))/g)].map((a) => [a[1], a[2] === "True" || a[2] === "False" ? a[2] === "True" : /^-?\d/.test(a[2]) ? Number(a[2]) : a[2].slice(1, -1)]));
      return propertyProblems(`keepstack:${c[2]}:${c[3]}`, args, pythonName);
    });
    expect(problems).toEqual([]);
  });
});

describe("docs/plugin.md: Go", () => {
  const [program] = pageBlocks(PAGE, "go");

  test("its imports are the schema's Go packages, its constructors and fields the Go generator's names, its values of each field's type", () => {
    const base = (schema.language as { go: { importBasePath: string } }).go.importBasePath;
    const imported = [...program.matchAll(/"([^"]+)"/g)].map((m) => m[1]).filter((p) => p.startsWith(base));
    expect(imported.sort()).toEqual([`${base}/keep`, `${base}/mesh`, `${base}/workspaces`]);
    const calls = [...program.matchAll(/(\w+)\.New(\w+)\(ctx, "([^"]+)", &(\w+)\.(\w+)Args\{([\s\S]*?)\n\t\t\}\)/g)];
    expect(calls.map((c) => `${c[1]}:${c[2]}`)).toEqual(["keep:AclPolicy", "workspaces:Workspace", "mesh:Partition"]);
    const wrappers: Record<string, string> = { String: "string", Bool: "boolean", Int: "integer", Float64: "number" };
    const problems = calls.flatMap((c) => {
      const args: Record<string, unknown> = {};
      for (const f of c[6].matchAll(/(\w+):\s*pulumi\.(\w+)\(([^\n]*)\),/g)) {
        const kind = wrappers[f[2]];
        args[f[1]] = kind === "boolean" ? f[3] === "true" : kind === "integer" || kind === "number" ? Number(f[3]) : f[3];
        if (!kind) args[f[1]] = Symbol(f[2]);
      }
      if (c[4] !== c[1] || c[5] !== c[2]) return [`${c[0].slice(0, 60)}: the Args type is not the resource's`];
      return propertyProblems(`keepstack:${c[1]}:${c[2]}`, args, goName);
    });
    expect(problems).toEqual([]);
  });
});

describe("docs/plugin.md: YAML", () => {
  const [text] = pageBlocks(PAGE, "yaml").filter((b) => /^runtime: yaml$/m.test(b));
  const project = yaml.load(text) as { name: string; runtime: string; packages: Record<string, string>; resources: Record<string, { type: string; properties: Record<string, unknown> }>; outputs: Record<string, string> };

  test("every resource a type of the schema, every property one it declares, required ones given, values of their type", () => {
    expect(project.runtime).toBe("yaml");
    expect(Object.keys(project.packages)).toEqual([schema.name]);
    expect(fs.existsSync(path.join(__dirname, "..", "..", project.packages.keepstack.replace("./node_modules/pulumi-keepstack/", "")))).toBe(true);
    const problems = Object.values(project.resources).flatMap((r) => propertyProblems(r.type, r.properties));
    expect(problems).toEqual([]);
    expect(Object.values(project.resources).map((r) => r.type)).toEqual(["keepstack:keep:AclPolicy", "keepstack:workspaces:Workspace", "keepstack:mesh:Partition"]);
  });

  describe("run through the plugin against the emulator", () => {
    let emu: Emulator;
    let engine: Engine;
    beforeAll(async () => {
      emu = await startEmulator();
      engine = new Engine({
        project: project.name,
        config: pluginConfigOf(emu),
        secretConfig: PLUGIN_SECRET_CONFIG,
      });
    });
    afterAll(async () => {
      await engine?.close();
      await emu?.close();
    });

    /** What Pulumi YAML does with the file: each resource declared by its token, `${name.property}` read from the named resource. */
    const program = () => {
      const declared: Record<string, Record<string, pulumi.Output<unknown>>> = {};
      const value = (v: unknown): unknown => {
        const ref = typeof v === "string" ? /^\$\{(\w+)\.(\w+)\}$/.exec(v) : null;
        return ref ? declared[ref[1]][ref[2]] : v;
      };
      for (const [name, r] of Object.entries(project.resources)) {
        const props = Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, value(v)]));
        declared[name] = pluginResource(r.type.replace(/^keepstack:/, ""), name, props) as never;
      }
      return Object.fromEntries(Object.entries(project.outputs).map(([k, v]) => [k, value(v)]));
    };

    test("preview, up, a second preview with no change, destroy", async () => {
      expect(summarize((await engine.preview(program)).steps)).toEqual({ create: 3 });
      const up = await engine.up(program);
      expect(summarize(up.steps)).toEqual({ create: 3 });
      expect(up.outputs.workspaceId).toMatch(/^ws-/);
      expect(emu.keep.listPolicies("acl")).toContain("readers");
      expect(summarize((await engine.preview(program)).steps)).toEqual({ same: 3 });
      expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 3 });
    });
  });
});

test("the schema names the generators' names the checks above derive (a generated Python or Go name maps back to one property)", () => {
  for (const r of Object.values(resources)) {
    const names = Object.keys(r.inputProperties);
    expect(new Set(names.map(pythonName)).size).toBe(names.length);
    expect(new Set(names.map(goName)).size).toBe(names.length);
  }
  expect(pythonName("autoApply")).toBe("auto_apply");
  expect(pythonName("keepCaCert")).toBe("keep_ca_cert");
  expect(pythonName("roleARN")).toBe("role_arn");
  expect(goName("autoApply")).toBe("AutoApply");
});
