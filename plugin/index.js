// Starts the keepstack provider plugin when the Node.js language host runs this folder
// (`@pulumi/pulumi/cmd/run-plugin <folder> <engine-address>`), which requires package.json `main`.
// The engine runs ./pulumi-resource-keepstack instead wherever it finds it; this is the fallback.
"use strict";
require("../dist/resources/plugin.js")
  .main(process.argv.slice(2))
  .catch((e) => {
    console.error(`pulumi-resource-keepstack: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
