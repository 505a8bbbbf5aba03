/**
 * The provider plugin's entry (ARCHITECTURE.md, "Bird's eye view"): the machines of every resource type and the package's
 * functions, served to the engine as the `keepstack` plugin. `pulumi-resource-keepstack` (the
 * package's executable) and the source-plugin folder `plugin/` both start it. The dynamic resources'
 * entry is `host.ts`; both doors load the same specs from the catalog, one type at a time.
 *
 * Its declarations are plain, so they name no schema library (a program may check them).
 */
import { servePlugin } from "../provider/plugin/server";
import { pluginCatalog } from "./plugin-catalog";

import type { PluginIo, RunningPlugin } from "../provider/plugin/running";

export type { PluginIo, RunningPlugin };

/** Starts the plugin with the arguments the engine gives it (`<engine-address>`, after logging flags). */
export function main(args: readonly string[], io?: PluginIo): Promise<RunningPlugin | undefined> {
  return servePlugin(pluginCatalog(), args, io);
}
