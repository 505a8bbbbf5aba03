/**
 * What the provider plugin serves: the catalog's resource types and functions (loaded one at a time,
 * as the dynamic host loads them), and the schema the build wrote beside the package.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { PluginCatalog } from "../provider/plugin/server";
import { functionOfToken, specOfShortType } from "./catalog";

/** The package's root: the folder of its package.json (two levels up when compiled into dist/). */
function packageRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).name === "pulumi-keepstack") return dir;
    if (dir === path.dirname(dir)) throw new Error(`pulumi-keepstack: no package.json of the package above ${__dirname}`);
  }
}

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
