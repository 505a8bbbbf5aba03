/**
 * docs/plugin.md in TypeScript, through the SDK `pulumi package add` generates, run by the real CLI:
 * the page's install, configuration and teammate commands as written, to the teammate's preview. The
 * program's life (up, update and replacement, refresh after drift, destroy) runs in
 * docs-program.test.ts, through the CLI and then the harness. Then every resource's example, as the
 * SDK's doc comments show it, compiled against that SDK.
 */
import * as path from "node:path";
import { Emulator, startEmulator } from "keepstack-emulator";
import { ENGINE_TIMEOUT, Project } from "../support/real-engine";
import { emulatorEnv, Language, PAGE, pageBlock, pluginDoorFlow, runShellBlock, typescriptProject, typescriptSdkProject } from "./plugin-door";
import { sdkExamples, tokensWithExamples } from "./sdk-examples";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterAll(() => emu?.close());

/** The page's TypeScript program, with the plugin added as the page says. */
const typescript: Language = {
  // The page's program is type-checked as it runs, as Pulumi does by default.
  project: { ...typescriptProject("keepstack-typescript", pageBlock("ts", "@keepstack/pulumi-keepstack")), typeCheck: true },
  programFile: "index.ts",
  // The run's project where the page's install commands ran as written, with the page's program.
  author: () => typescriptSdkProject("keepstack-typescript", pageBlock("ts", "@keepstack/pulumi-keepstack"), { typeCheck: true }),
  addPlugin: async () => undefined,
  sdkReference: { file: "package.json", text: /"@keepstack\/pulumi-keepstack": "file:sdks\/keepstack"/ },
  ignore: ["sdks/*/bin/"],
  configure: async (project: Project, e: Emulator) => {
    await runShellBlock(project, pageBlock("sh", "pulumi config set keepstack:keepAddress"), emulatorEnv(e));
    // The program's own settings, as the page's Programs section gives them.
    await runShellBlock(project, 'pulumi config set drAddress "$KEEP_DR_ADDR"\npulumi config set --secret drToken "$KEEP_DR_TOKEN"', emulatorEnv(e));
  },
};

test(
  `${PAGE} in TypeScript: package add, a teammate's clone, preview with no request (the program's life: docs-program.test.ts)`,
  async () => {
    await pluginDoorFlow(typescript, emu, { life: false });
  },
  ENGINE_TIMEOUT,
);

test(
  "every resource's example in the TypeScript SDK's doc comments compiles against the SDK",
  async () => {
    const project = await typescriptSdkProject("keepstack-sdk-examples", "");
    const examples = sdkExamples(path.join(project.dir, "sdks", "keepstack"), "typescript");
    expect(examples.length).toBe(tokensWithExamples().length);
    examples.forEach((example, i) => project.write(`examples/${i}.ts`, `// ${example.source}\n${example.code}`));
    project.write("tsconfig.examples.json", JSON.stringify({ extends: "./tsconfig.json", files: [], include: ["examples/*.ts"] }));
    // Each file names the SDK file it was read from, so a refusal points at the resource.
    await project.exec("npx", ["tsc", "--noEmit", "--pretty", "false", "-p", "tsconfig.examples.json"]);
  },
  ENGINE_TIMEOUT,
);
