/**
 * The provider plugin's entry (design §14): the machines of every resource type and the package's
 * functions, served to the engine as the `keepstack` plugin. `pulumi-resource-keepstack` (the
 * package's executable) and the source-plugin folder `plugin/` both start it. The dynamic resources'
 * entry is `host.ts`; both doors load the same specs from the catalog, one type at a time.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PluginCatalog, PluginIo, RunningPlugin, servePlugin } from "../provider/plugin/server";
import { functionOfToken, specOfShortType } from "./catalog";

/** The package's root: the folder of its package.json (two levels up when compiled into dist/). */
function packageRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).name === "pulumi-keepstack") return dir;
    if (dir === path.dirname(dir)) throw new Error(`pulumi-keepstack: no package.json of the package above ${__dirname}`);
  }
}

/** What the plugin serves: the catalog's resource types and functions, and the schema the build wrote. */
export function pluginCatalog(): PluginCatalog {
  const root = packageRoot();
  let schema: string | undefined;
  return {
    version: JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version,
    schema: () => (schema ??= fs.readFileSync(path.join(root, "schema.json"), "utf8")),
    resource: specOfShortType,
    fn: functionOfToken,
  };
}

/** Starts the plugin with the arguments the engine gives it (`<engine-address>`, after logging flags). */
export function main(args: readonly string[], io?: PluginIo): Promise<RunningPlugin | undefined> {
  return servePlugin(pluginCatalog(), args, io);
}
