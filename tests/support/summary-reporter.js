/**
 * Ends the run with one plain line, `N passed, N failed`, that any CI log reader understands. A test
 * file that could not run at all (a syntax error, a failing import, a crash before its tests) counts
 * as a failure, so the line never reads "0 failed" for a broken suite.
 */
const fs = require("node:fs");
const path = require("node:path");

class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(`${summaryLine(results)}\n`);
    const differential = differentialLine(process.env.KEEPSTACK_ENGINE_RUN);
    if (differential) process.stdout.write(`${differential}\n`);
    // Set by jest.config.js when no Pulumi CLI was found outside CI.
    if (process.env.KEEPSTACK_REAL_ENGINE_NOT_RUN) process.stdout.write(`${process.env.KEEPSTACK_REAL_ENGINE_NOT_RUN}\n`);
  }
}

/** The line for jest's aggregated results. */
function summaryLine(results) {
  const skipped = results.numPendingTests + results.numTodoTests;
  const unloaded = results.testResults.filter((r) => r.testExecError || (r.failureMessage && r.numFailingTests === 0 && r.numPassingTests === 0)).length;
  const failed = results.numFailedTests + unloaded;
  const notes = [skipped ? `${skipped} skipped` : "", unloaded ? `${unloaded} test file${unloaded === 1 ? "" : "s"} could not run` : ""].filter(Boolean);
  return `${results.numPassedTests} passed, ${failed} failed${notes.length ? `, ${notes.join(", ")}` : ""}`;
}

/**
 * The differential test's totals (tests/support/differential.ts): each of its programs adds a line to
 * the run's folder as it is compared; undefined when none was.
 */
function differentialLine(runFolder) {
  const file = runFolder && path.join(runFolder, "differential.jsonl");
  if (!file || !fs.existsSync(file)) return undefined;
  const programs = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const sum = (key) => programs.reduce((n, p) => n + p[key], 0);
  return `differential test (real CLI against the harness): ${programs.length} programs, ${sum("steps")} steps compared, ${sum("differences")} differences`;
}

module.exports = SummaryReporter;
module.exports.summaryLine = summaryLine;
module.exports.differentialLine = differentialLine;
