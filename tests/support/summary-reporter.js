/**
 * Ends the run with one plain line, `N passed, N failed`, that any CI log reader understands. A test
 * file that could not run at all (a syntax error, a failing import, a crash before its tests) counts
 * as a failure, so the line never reads "0 failed" for a broken suite.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(`${summaryLine(results)}\n`);
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

module.exports = SummaryReporter;
module.exports.summaryLine = summaryLine;
