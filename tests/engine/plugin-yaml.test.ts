/**
 * docs/plugin.md in YAML, run by the real CLI: the page's whole project file, its `packages` entry
 * written by hand as the page says (YAML needs no SDK), through the program's life; then every
 * resource's example in the schema, in one program, previewed through the plugin.
 */
import { Emulator, startEmulator } from "keepstack-emulator";
import { ENGINE_TIMEOUT } from "../support/real-engine";
import { emulatorEnv, Language, PAGE, pageBlock, pluginDoorFlow } from "./plugin-door";
import { asTheTypeReadsIt, exampleInputsByToken, schemaExamples, schemaInputs, tokensWithExamples } from "./sdk-examples";

// js-yaml comes with @pulumi/pulumi.
const yamlText = require("js-yaml") as { load(text: string): unknown; dump(value: unknown): string };

interface PreviewStep {
  op: string;
  newState?: { type: string; inputs?: Record<string, unknown> };
}

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterAll(() => emu?.close());

test(
  `${PAGE} in YAML: the packages entry by hand, a teammate's clone, preview with no request, up, update and replacement named, refresh after drift, destroy; the schema's examples previewed`,
  async () => {
    const yaml: Language = {
      project: { name: "keepstack-yaml", runtime: "yaml", files: { "Pulumi.yaml": pageBlock("yaml", "runtime: yaml") }, node: "package" },
      programFile: "Pulumi.yaml",
      addPlugin: async () => undefined,
      teammate: pageBlock("sh", /^npm ci\npulumi preview\n$/),
    };
    const { clone } = await pluginDoorFlow(yaml, emu);

    // Every resource's example as the schema holds it, their resources in the page's project, previewed.
    const examples = schemaExamples("yaml");
    expect(examples.size).toBe(tokensWithExamples().length);
    const page = yamlText.load(clone.read("Pulumi.yaml")) as Record<string, unknown>;
    const resources = Object.assign({}, ...[...examples.values()].map((code) => (yamlText.load(code) as { resources: object }).resources));
    clone.write("Pulumi.yaml", yamlText.dump({ name: page.name, runtime: page.runtime, packages: page.packages, resources }));
    // What the examples' secret references name (a stack setting, a variable), and the second cluster's connection (`cluster: "dr"`) as the emulator exports it.
    await clone.setConfig({ "keepstack:appSecret": "example-secret" }, ["keepstack:appSecret"]);
    emu.clearLogs();
    const preview = await clone.pulumi(["preview", "--json", "--show-secrets"], { env: { ...emulatorEnv(emu), APP_SECRET: "example-secret" } });
    expect({ requests: emu.requestCount() }).toEqual({ requests: 0 });
    const planned = (JSON.parse(preview.stdout) as { steps: PreviewStep[] }).steps.filter((step) => step.op === "create" && step.newState?.type.startsWith("keepstack:"));
    // What the plugin's check made of each: the example's inputs as the type reads them (and the defaults it adds), secret inputs masked as the CLI shows them.
    const expected = exampleInputsByToken();
    expect(planned.map((step) => step.newState!.type).sort()).toEqual(Object.keys(expected).sort());
    const masked = (token: string, inputs: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(inputs).map(([key, value]) => [key, schemaInputs(token)[key]?.secret ? "[secret]" : value]));
    for (const step of planned) {
      const token = step.newState!.type;
      expect({ [token]: step.newState!.inputs }).toMatchObject({ [token]: masked(token, asTheTypeReadsIt(token, expected[token])) });
    }
  },
  ENGINE_TIMEOUT,
);
