/**
 * Order of test files: the campaigns first (the longest files by far), then jest's own order
 * (failed and slow files first when it has timings, else the largest). A long file started last
 * would run alone at the end while the other workers idle.
 */
const Sequencer = require("@jest/test-sequencer").default;

class CampaignsFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const campaign = (t) => (/[\\/]campaigns[\\/]/.test(t.path) ? 0 : 1);
    return [...sorted].sort((a, b) => campaign(a) - campaign(b));
  }
}

module.exports = CampaignsFirst;
