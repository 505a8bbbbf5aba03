#!/usr/bin/env node
/**
 * `pulumi-resource-keepstack`: the provider plugin's executable, as the engine runs a plugin found on
 * the `PATH` or named by a project's `plugins.providers` (resources/plugin.ts serves it).
 */
import * as nodeModule from "node:module";

// The engine starts the plugin for every command: Node.js keeps what it compiled of the plugin's
// modules and the SDK's (in the system's temporary folder, or NODE_COMPILE_CACHE; none with
// NODE_DISABLE_COMPILE_CACHE=1): a start then takes about a quarter less CPU. Before the modules load.
nodeModule.enableCompileCache?.();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { main } = require("../resources/plugin") as typeof import("../resources/plugin");

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(`pulumi-resource-keepstack: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
