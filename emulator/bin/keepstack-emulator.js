#!/usr/bin/env node
// The package's command. A file of the source tree rather than the build's: npm links a command
// only to a file that exists when it installs, and in this repository the build comes after.
require("../dist/main.js").runCommand();
