/**
 * The username templates preview accepts are the ones the service accepts: the provider's checker
 * (resources/keep/cloud/username-template.ts) against the emulator's own compiler, which renders
 * them as the service does. Neither shares code with the other.
 */
import fc from "fast-check";
import { compileUsernameTemplate } from "../../../emulator/keep/cloud-credentials/username-template";
import { usernameTemplateProblem } from "../../../resources/keep/cloud/username-template";

const accepted = (template: string) => usernameTemplateProblem(template) === undefined;
const serviceAccepts = (template: string) => {
  try {
    compileUsernameTemplate(template);
    return true;
  } catch {
    return false;
  }
};

/** Pieces of templates, over the fields, functions and syntax the service and the emulator both know. */
const PIECES = [
  "{{", "}}", "{{- ", " -}}", " if ", " else ", " else if ", " end ", ".Type", ".DisplayName", ".PolicyName", ".Name", "|", "(", ")",
  '"s"', "`r`", " 3 ", " 20 ", "true", "text", " ", "/* c */",
  ...["printf", "eq", "ne", "not", "and", "or", "len", "truncate", "truncate_sha256", "uppercase", "lowercase", "replace", "sha256", "base64", "random", "uuid", "unix_time", "unix_time_millis", "timestamp", "shout"].map((f) => ` ${f} `),
];

describe("username templates: preview and the service", () => {
  test.each([
    '{{ if and (eq .Type "IAM") (lt (len .DisplayName) 10) }}{{ .DisplayName }}{{ else }}x{{ end }}',
    '{{ or .DisplayName "none" | truncate 10 }}-{{ timestamp "2006" }}',
    "{{ .PolicyName | print | urlquery }}",
    "{{- /* a comment */ -}}{{ .Type }}",
  ])("%s is accepted, as the service accepts Go's functions and its own", (template) => {
    expect(usernameTemplateProblem(template)).toBeUndefined();
  });

  test.each([
    ["{{/* a comment */ .Type }}", "does not parse: comment ends before closing delimiter"],
    ["{{ shout .Type }}", 'does not parse: function "shout" not defined'],
  ])("%s is refused: %s", (template, problem) => {
    expect(usernameTemplateProblem(template)).toBe(problem);
    expect(serviceAccepts(template)).toBe(false);
  });

  test("over 20,000 templates made of those pieces, preview accepts exactly what the service accepts", () => {
    const differences: string[] = [];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), (pieces) => {
        const template = pieces.join("");
        if (accepted(template) !== serviceAccepts(template)) differences.push(template);
      }),
      { numRuns: 20_000, seed: 7 },
    );
    expect(differences.slice(0, 5)).toEqual([]);
  });
});
