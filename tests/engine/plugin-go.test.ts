/**
 * docs/plugin.md in Go, run by the real CLI through the SDK `pulumi package add` generates: the
 * page's program through its life, then every resource's example in the SDK's doc comments built
 * against that SDK. The first build of a Go program compiles the Pulumi Go SDK (minutes on two
 * cores); later ones take it from Go's build cache.
 */
import * as path from "node:path";
import { Emulator, startEmulator } from "keepstack-emulator";
import { ENGINE_TIMEOUT } from "../support/real-engine";
import { Language, packageAddLine, PAGE, pageBlock, pluginDoorFlow } from "./plugin-door";
import { schemaExamples, sdkExamples, tokensWithExamples } from "./sdk-examples";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterAll(() => emu?.close());

test(
  `${PAGE} in Go: package add, a teammate's clone, preview with no request, up, update and replacement named, refresh after drift, destroy; the SDK's examples build`,
  async () => {
    const go: Language = {
      project: {
        name: "keepstack-go",
        runtime: "go",
        files: {
          "Pulumi.yaml": "name: keepstack-go\nruntime: go\n",
          "main.go": pageBlock("go", "package main"),
          "go.mod": "module keepstack-go\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.274.1\n",
        },
        node: "package",
      },
      programFile: "main.go",
      addPlugin: async (author) => {
        await author.exec("bash", ["-c", packageAddLine()]);
        await author.exec("go", ["mod", "tidy"]);
      },
      sdkReference: { file: "go.mod", text: /^replace github\.com\/keepstack\/pulumi-keepstack\/sdk\/go => \.\/sdks\/keepstack$/m },
      // The schema names each enum value: the constants read alike, with or without a dash in the value.
      generated: { file: "sdks/keepstack/keepstack/keep/pulumiEnums.go", text: /^\tEgpPolicyEnforcementLevelSoftMandatory += EgpPolicyEnforcementLevel\("soft-mandatory"\)$/m },
    };
    const { author } = await pluginDoorFlow(go, emu);

    // Each example as the SDK's doc comments show it, a program of its own, type-checked against the SDK.
    const examples = sdkExamples(path.join(author.dir, "sdks", "keepstack"), "go");
    expect(examples.length).toBe(tokensWithExamples().length);
    examples.forEach((example, i) => author.write(`examples/${i}/main.go`, `// ${example.source}\n${example.code}`));
    // With the language host's -trimpath, which Go's build cache keys on: without it vet compiles every dependency again (291 s of CPU against 43).
    await author.exec("go", ["vet", "-trimpath", "./examples/..."]);
    // As the schema holds them (the SDK's generator reformats them as doc comments): formatted as gofmt does.
    [...schemaExamples("go").values()].forEach((code, i) => author.write(`formatted/${i}.go`, code));
    const unformatted = await author.exec("gofmt", ["-l", "formatted"]);
    expect(unformatted.stdout).toBe("");
  },
  ENGINE_TIMEOUT,
);
