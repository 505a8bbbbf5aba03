// Starts the keepstack provider plugin. The Node.js language host requires this folder with the
// engine's address as the program's first argument (process.argv[2]); inside an installed
// pulumi-keepstack, the package itself is found above this folder.
"use strict";
let plugin;
try {
  plugin = require("pulumi-keepstack/provider-plugin");
} catch (e) {
  if (e && e.code !== "MODULE_NOT_FOUND") throw e;
  console.error("pulumi-resource-keepstack: the pulumi-keepstack package is not installed for this folder: run `npm install` here, or add the folder of an installed package (node_modules/pulumi-keepstack/plugin)");
  process.exit(1);
}
plugin.main(process.argv.slice(2)).catch((e) => {
  console.error(`pulumi-resource-keepstack: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
