/** Ends the run with one plain line, `N passed, N failed`, that any CI log reader understands. */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
  }
}
module.exports = SummaryReporter;
