/**
 * jest's global setup and teardown: the folder a run's test files share (the packed package and the
 * installs every real-engine project of a language starts from; a new PGlite database's data folder;
 * the run's temporary folder), made before the workers start, so each of them finds it in
 * KEEPSTACK_ENGINE_RUN, and removed after the run.
 */
const { execFile } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

async function setup() {
  if (process.env.KEEPSTACK_ENGINE_RUN) return;
  process.env.KEEPSTACK_ENGINE_RUN = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-engine-run-"));
  process.env.KEEPSTACK_ENGINE_RUN_MADE = "1";
  // The system's temporary folder of every worker and every process they start is one inside the run's
  // folder: what a test, an emulator's default request log or the CLI leaves there goes with the run.
  const tmp = path.join(process.env.KEEPSTACK_ENGINE_RUN, "tmp");
  fs.mkdirSync(tmp);
  process.env.TMPDIR = tmp;
  // Node.js's compile cache for every process the run starts (provider hosts, plugins, servers, tsc,
  // the CLI's programs): each of them compiles @pulumi/pulumi, TypeScript and the package once a run,
  // not once a start (about a third of a host's start).
  process.env.NODE_COMPILE_CACHE ??= path.join(process.env.KEEPSTACK_ENGINE_RUN, "node-compile-cache");
}

/**
 * Removes folders with `rm -rf` processes side by side, as many as the machine has cores. A project
 * holds a Node.js install or more (about 14,000 files, hard links), and `rm -rf` spends a fraction of
 * what Node.js's recursive removal does on such a tree; what it cannot remove (a process still writing
 * there) is left to the teardown.
 */
async function removeFolders(folders) {
  const queue = [...folders];
  const remover = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await new Promise((resolve) => execFile("rm", ["-rf", next], () => resolve()));
    }
  };
  await Promise.all(Array.from({ length: os.availableParallelism() }, remover));
}

/**
 * Removes the run's folder, the folders a level down side by side: one removal after another took
 * most of a minute at the end of a full run, on one core.
 */
async function teardown() {
  const root = process.env.KEEPSTACK_ENGINE_RUN;
  if (!process.env.KEEPSTACK_ENGINE_RUN_MADE) return;
  const below = (dir) => fs.readdirSync(dir, { withFileTypes: true }).map((e) => path.join(dir, e.name));
  await removeFolders(below(root).flatMap((entry) => (fs.statSync(entry).isDirectory() ? below(entry) : [entry])));
  fs.rmSync(root, { recursive: true, force: true });
}

module.exports = setup;
module.exports.teardown = teardown;
module.exports.removeFolders = removeFolders;
