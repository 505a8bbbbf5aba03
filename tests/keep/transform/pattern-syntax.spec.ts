/**
 * The template patterns preview accepts are the ones the service accepts: the provider's checker
 * (re2js, a port of Go's regexp parser) against the emulator's own translator of Go's syntax
 * (emulator/keep/transform/pattern.ts), over named cases and generated patterns.
 */
import fc from "fast-check";
import { compileGoPattern } from "../../../emulator/keep/transform/pattern";
import { compilePattern } from "../../../resources/keep/transform/pattern";

const preview = (p: string) => {
  try {
    return compilePattern(p).groups;
  } catch {
    return "refused";
  }
};
const service = (p: string) => {
  try {
    return compileGoPattern(p).groups;
  } catch {
    return "refused";
  }
};

describe("transform patterns: preview and the service", () => {
  test.each(["(\\pL+)", "(\\x{41}+)", "({)", "(})", "(])", "(\\-)", "(\\p{L}\\z)", "(\\p{L}\\A)", "(\\Q.*\\E)", "(\\p{Greek}+)", "(?U)(a+)", "(?P<n>a)(?<m>b)", "[[:alpha:]](x{,3})"])(
    "%s is accepted by both, with the same groups",
    (pattern) => {
      expect(typeof preview(pattern)).toBe("number");
      expect(service(pattern)).toBe(preview(pattern));
    },
  );

  // Counts nest within RE2's bound: what an outer count repeats may count at most 1000 divided by it.
  test.each(["(a{10}){100}", "((a{100}){10})", "(((a{10}){10}){10})", "(x{0,}){1000}", "(a{2}){0}", "(a*){1000}"])("%s: its counts nest within the bound, and both accept it", (pattern) => {
    expect(typeof preview(pattern)).toBe("number");
    expect(service(pattern)).toBe(preview(pattern));
  });

  test.each(["((a{100}){100})", "(a{11}){100}", "((a{1000}){2})", "(((a{10}){10}){11})", "(x{2,}){600}", "((a{2}|b{501}){2})"])("%s: its counts nest beyond the bound, and both refuse it", (pattern) => {
    expect(preview(pattern)).toBe("refused");
    expect(service(pattern)).toBe("refused");
  });

  test.each(["(a{1001})", "(\\C)", "(\\E)", "(a)\\1", "(?=a)", "a**", "(?P<n>a)(?P<n>b)", "(a{2,1})", "(\\8)"])("%s is refused by both", (pattern) => {
    expect(preview(pattern)).toBe("refused");
    expect(service(pattern)).toBe("refused");
  });

  const PIECES = [
    "(", ")", "(?:", "(?P<g>", "(?i)", "(?s)", "(?m)", "(?U)", "[", "]", "[^", "-", "a", "Z", "0", "9", ".", "*", "+", "?", "{", "}", "{2}", "{1,3}", "{,3}", "{1001}", "{100}", "{12}", "{0}", "{3,}", "|", "^", "$",
    "\\d", "\\D", "\\w", "\\s", "\\b", "\\B", "\\A", "\\z", "\\pL", "\\p{L}", "\\p{Greek}", "\\PL", "\\p{^L}", "\\x41", "\\x{41}", "\\Q", "\\E", "\\-", "\\.", "\\[", "\\C", "\\1", "\\k", "[:alpha:]", "[[:digit:]]", "\\", "é",
  ];
  test("over 10,000 patterns made of those pieces, preview accepts exactly what the service accepts, with the same groups", () => {
    const differences: string[] = [];
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }), (pieces) => {
        const pattern = pieces.join("");
        const verdict = preview(pattern);
        if (verdict !== service(pattern)) differences.push(`${pattern}: preview ${verdict}, service ${service(pattern)}`);
        if (verdict !== "refused") accepted++;
      }),
      { numRuns: 10_000, seed: 30 },
    );
    expect(differences.slice(0, 10)).toEqual([]);
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(8_000);
  });
});
