/** The run's closing line counts a test file that could not run as failed; the differential test's totals follow it. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { summaryLine, differentialLine } = require("./summary-reporter") as { summaryLine(results: unknown): string; differentialLine(folder: string | undefined): string | undefined };

const file = (over: Record<string, unknown>) => ({ numFailingTests: 0, numPassingTests: 0, failureMessage: null, testExecError: undefined, ...over });
const results = (testResults: ReturnType<typeof file>[], over: Record<string, number> = {}) => ({
  numPassedTests: testResults.reduce((n, r) => n + r.numPassingTests, 0),
  numFailedTests: testResults.reduce((n, r) => n + r.numFailingTests, 0),
  numPendingTests: 0,
  numTodoTests: 0,
  testResults,
  ...over,
});

test("passed and failed tests", () => {
  expect(summaryLine(results([file({ numPassingTests: 3 }), file({ numPassingTests: 1, numFailingTests: 2, failureMessage: "x" })]))).toBe("4 passed, 2 failed");
});

test("a file that could not load is a failure", () => {
  const broken = file({ testExecError: { message: "Cannot find module" }, failureMessage: "Test suite failed to run" });
  expect(summaryLine(results([file({ numPassingTests: 5 }), broken]))).toBe("5 passed, 1 failed, 1 test file could not run");
});

test("skipped tests are told", () => {
  expect(summaryLine(results([file({ numPassingTests: 1 })], { numPendingTests: 2 }))).toBe("1 passed, 0 failed, 2 skipped");
});

test("the differential test's programs, steps and differences are summed; without them, no line", () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "summary-"));
  try {
    expect(differentialLine(folder)).toBeUndefined();
    expect(differentialLine(undefined)).toBeUndefined();
    fs.writeFileSync(path.join(folder, "differential.jsonl"), `${JSON.stringify({ program: "a", steps: 12, differences: 0 })}\n${JSON.stringify({ program: "b", steps: 30, differences: 2 })}\n`);
    expect(differentialLine(folder)).toBe("differential test (real CLI against the harness): 2 programs, 42 steps compared, 2 differences");
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
