#!/usr/bin/env node
/**
 * `pulumi-resource-keepstack`: the provider plugin's executable, as the engine runs a plugin found on
 * the `PATH` or named by a project's `plugins.providers` (resources/plugin.ts serves it).
 */
import { main } from "../resources/plugin";

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(`pulumi-resource-keepstack: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
