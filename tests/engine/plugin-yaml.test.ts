/**
 * docs/plugin.md in YAML, run by the real CLI: the page's whole project file, its `packages` entry
 * written by hand as the page says (YAML needs no SDK), through the program's life.
 */
import { Emulator, startEmulator } from "keepstack-emulator";
import { ENGINE_TIMEOUT } from "../support/real-engine";
import { Language, PAGE, pageBlock, pluginDoorFlow } from "./plugin-door";

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
});
afterAll(() => emu?.close());

test(
  `${PAGE} in YAML: the packages entry by hand, a teammate's clone, preview with no request, up, update and replacement named, refresh after drift, destroy`,
  async () => {
    const yaml: Language = {
      project: { name: "keepstack-yaml", runtime: "yaml", files: { "Pulumi.yaml": pageBlock("yaml", "runtime: yaml") }, node: "package" },
      programFile: "Pulumi.yaml",
      addPlugin: async () => undefined,
      teammate: pageBlock("sh", /^npm ci\npulumi preview\n$/),
    };
    await pluginDoorFlow(yaml, emu);
  },
  ENGINE_TIMEOUT,
);
