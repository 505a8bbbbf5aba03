/**
 * The package schema (`schema.json`): what the build's generator writes, what the plugin serves, the
 * metaschema's and the binder's rules, and the package's facts it must carry (every resource and
 * function, each property described, secrets marked, what replaces, the settings).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { PLUGIN_PACKAGE, pluginSettingName, SETTINGS, ServiceModule } from "../../provider/config";
import { isOperationSpec, pluginTokenOf } from "../../provider/spec";
import { functionLoaders, functionTokenOfPath } from "../../resources/catalog";
import { registeredResources } from "../../resources/all-specs";
import { generatePublicShape, schemaText } from "../../scripts/public-types";
import { binderProblems, metaschemaProblems, propertyBags } from "./schema-rules";

const root = path.join(__dirname, "..", "..");
const text = fs.readFileSync(path.join(root, "schema.json"), "utf8");
const schema = JSON.parse(text);

describe("schema.json", () => {
  test("is what the generator writes from the sources (run `npm run build` after changing a resource)", () => {
    expect(text).toBe(schemaText(generatePublicShape().schema));
  }, 120_000);

  test("satisfies the package metaschema", () => {
    expect(metaschemaProblems(schema)).toEqual([]);
  });

  test("satisfies the binder's rules", () => {
    expect(binderProblems(schema)).toEqual([]);
  });

  test("the rules catch what they state (each broken once on a copy)", () => {
    const broken = (edit: (s: any) => void) => {
      const copy = JSON.parse(text);
      edit(copy);
      return [...metaschemaProblems(copy), ...binderProblems(copy)];
    };
    const acl = "keepstack:keep:AclPolicy";
    expect(broken((s) => (s.resources[acl].properties.policy = { description: "no type" }))).toEqual([expect.stringContaining("resources.keepstack:keep:AclPolicy")]);
    expect(broken((s) => (s.resources[acl].inputProperties.policy = { type: "array" }))).not.toEqual([]);
    expect(broken((s) => (s.resources[acl].inputProperties.name = { type: "string", items: { type: "string" } }))).not.toEqual([]);
    expect(broken((s) => (s.resources["keepstack:AclPolicy"] = s.resources[acl]))).not.toEqual([]);
    expect(broken((s) => (s.resources[acl].properties.id = { type: "string" }))).toEqual([expect.stringMatching(/may not have a property named id/)]);
    expect(broken((s) => (s.provider.inputProperties.version = { type: "string" }))).toEqual([expect.stringMatching(/named version/)]);
    expect(broken((s) => (s.types["keepstack:keep:Extra"] = { type: "object", properties: { pulumi: { type: "string" } } }))).toEqual([expect.stringMatching(/"pulumi" is reserved/)]);
    expect(broken((s) => (s.resources[acl].properties.policy = { $ref: "#/types/keepstack:keep:Nothing" }))).toEqual([expect.stringMatching(/resolves to nothing/)]);
    expect(broken((s) => (s.functions["keepstack:keep:aclpolicy"] = s.functions["keepstack:mesh:getCaRoots"]))).toEqual([expect.stringMatching(/collides with resources\.keepstack:keep:AclPolicy/)]);
    expect(broken((s) => (s.unknownKey = 1))).not.toEqual([]);
    expect(broken((s) => (s.version = "one"))).not.toEqual([]);
  });

  test("every resource type of the package, and nothing else, under its token", () => {
    const tokens = registeredResources.map(({ spec }) => pluginTokenOf(spec));
    expect(Object.keys(schema.resources).sort()).toEqual([...tokens].sort());
    expect(Object.keys(schema.resources)).toEqual(expect.arrayContaining(["keepstack:keep:AclPolicy", "keepstack:keep:TransformTemplate", "keepstack:workspaces:Workspace", "keepstack:mesh:Partition"]));
  });

  test("every function that asks a service, under its token", () => {
    const tokens = Object.keys(functionLoaders).map((p) => `${PLUGIN_PACKAGE}:${functionTokenOfPath(p)}`);
    expect(Object.keys(schema.functions).sort()).toEqual(tokens.sort());
  });

  test("every property of every resource, type and function says what it is", () => {
    const missing = propertyBags(schema).flatMap((bag) => Object.entries(bag.props).filter(([, p]) => !String(p.description ?? "").trim()).map(([k]) => `${bag.where}.${k}`));
    expect(missing).toEqual([]);
    const undescribed = [...Object.entries(schema.resources), ...Object.entries(schema.functions)].filter(([, r]: [string, any]) => !r.description?.trim()).map(([t]) => t);
    expect(undescribed).toEqual([]);
  });

  test.each(registeredResources.map(({ path: p, spec }) => [p, spec] as const))("%s: required inputs, secrets and what replaces are as its spec says", (_path, spec) => {
    const r = schema.resources[pluginTokenOf(spec)];
    const inputKeys = Object.keys(spec.inputs.shape);
    expect(Object.keys(r.inputProperties).sort()).toEqual([...inputKeys, ...(isOperationSpec(spec) ? ["triggers"] : ["adopt", "takeOver"])].sort());
    for (const key of spec.secretInputs ?? []) {
      expect([key, r.inputProperties[key].secret]).toEqual([key, true]);
      expect([key, r.properties[key].secret]).toEqual([key, true]);
    }
    for (const key of spec.secretOutputs ?? []) expect([key, r.properties[key].secret]).toEqual([key, true]);
    const declared = Object.entries(r.inputProperties as Record<string, { willReplaceOnChanges?: boolean }>).filter(([, p]) => p.willReplaceOnChanges).map(([k]) => k);
    const replacing = isOperationSpec(spec) ? [...inputKeys.filter((k) => k !== spec.undo?.input), "triggers"] : [...(spec.replaceOnChanges ?? [])];
    expect(declared.sort()).toEqual(replacing.sort());
    // A required input is one the schema of its spec refuses to go without.
    for (const key of r.requiredInputs ?? []) expect([key, (spec.inputs.shape[key] as unknown as z.ZodType).safeParse(undefined).success]).toEqual([key, false]);
  });

  test("a fixed set of values is an enum: the RGP policy's enforcement level, the workspace's execution mode", () => {
    const level = schema.resources["keepstack:keep:RgpPolicy"].inputProperties.enforcementLevel;
    expect(schema.types[level.$ref.replace("#/types/", "")].enum.map((e: { value: string }) => e.value)).toEqual(["advisory", "soft-mandatory", "hard-mandatory"]);
    const mode = schema.resources["keepstack:workspaces:Workspace"].inputProperties.executionMode;
    expect(schema.types[mode.$ref.replace("#/types/", "")].enum.map((e: { value: string }) => e.value)).toEqual(["remote", "local", "agent"]);
  });

  test("every enum value has a name, PascalCase of its words, so each generated SDK's constants read alike", () => {
    const enums = Object.entries(schema.types as Record<string, { enum?: { name?: string; value: string }[] }>).filter(([, t]) => t.enum);
    expect(enums.length).toBeGreaterThan(5);
    const wrong = enums.flatMap(([token, t]) => t.enum!.filter((e) => !/^[A-Z][A-Za-z0-9]*$/.test(e.name ?? "")).map((e) => `${token}: ${e.value} is named ${e.name}`));
    expect(wrong).toEqual([]);
    const level = schema.types["keepstack:keep:EgpPolicyEnforcementLevel"] ?? schema.types[schema.resources["keepstack:keep:EgpPolicy"].inputProperties.enforcementLevel.$ref.replace("#/types/", "")];
    expect(level.enum).toEqual([
      { name: "Advisory", value: "advisory" },
      { name: "SoftMandatory", value: "soft-mandatory" },
      { name: "HardMandatory", value: "hard-mandatory" },
    ]);
    for (const [token, t] of enums) expect([token, new Set(t.enum!.map((e) => e.name)).size]).toEqual([token, t.enum!.length]);
  });

  test("a secret given as a value or by reference is a union of a string and the reference's object type", () => {
    const key = schema.resources["keepstack:keep:SyncCloudASmDestination"].inputProperties.secretAccessKey;
    expect(key.oneOf).toEqual([{ type: "string" }, { $ref: "#/types/keepstack:keep:SecretReference" }]);
    expect(Object.keys(schema.types["keepstack:keep:SecretReference"].properties).sort()).toEqual(["fingerprint", "fromConfig", "fromEnv", "fromFile"]);
  });

  test("the provider's configuration: every setting of today, typed, with its variable, its default and its secrecy", () => {
    const expected: Record<string, unknown> = {};
    for (const service of Object.keys(SETTINGS) as ServiceModule[]) {
      for (const s of SETTINGS[service]) {
        expected[pluginSettingName(service, s.key)] = expect.objectContaining({
          type: s.type ?? "string",
          ...(s.env ? { defaultInfo: { environment: [s.env] } } : {}),
          ...(s.secret ? { secret: true } : {}),
        });
      }
    }
    expect(schema.config.variables).toEqual(expected);
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    expect(schema.config.variables.keepAddress.default).toBe("https://127.0.0.1:8200");
    expect(schema.config.variables.keepMaxRetries).toMatchObject({ type: "integer", default: 4 });
    expect(schema.config.variables.workspacesAddress.default).toBeUndefined();
  });

  test("language sections name the packages a user of each language expects", () => {
    expect(schema.language.nodejs.packageName).toBe("@keepstack/pulumi-keepstack");
    expect(schema.language.python.packageName).toBe("pulumi_keepstack");
    expect(schema.language.go.importBasePath).toMatch(/\/sdk\/go\/keepstack$/);
    expect(schema.language.csharp.namespaces).toMatchObject({ keep: "Keep", workspaces: "Workspaces", mesh: "Mesh" });
    expect(schema.language.java.basePackage).toBe("com.keepstack");
  });

  test("the version is the package's", () => {
    expect(schema.version).toBe(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version);
    expect(JSON.parse(fs.readFileSync(path.join(root, "plugin", "package.json"), "utf8")).version).toBe(schema.version);
  });
});
