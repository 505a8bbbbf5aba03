/**
 * Order of test files: the campaigns first, then the real-engine suite (the longest files by far),
 * then the rest; within each, jest's own order (failed and slow files first when it has timings from
 * an earlier run, else the largest: a clean clone has none, and the engine's files are small). A long
 * file started last would run alone at the end while the other workers idle.
 */
const Sequencer = require("@jest/test-sequencer").default;

const GROUPS = [/[\\/]tests[\\/]campaigns[\\/]/, /[\\/]tests[\\/]engine[\\/]/];

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const group = (t) => {
      const at = GROUPS.findIndex((pattern) => pattern.test(t.path));
      return at < 0 ? GROUPS.length : at;
    };
    return [...sorted].sort((a, b) => group(a) - group(b));
  }
}

module.exports = LongestFirst;
