/**
 * The emulator stands beside the product: nothing under emulator/ imports provider/ or resources/
 * (a double that shares a parser with the code under test cannot disagree with it), and its own
 * parsers answer as the service's spec says: durations with days, RE2 patterns, Go username
 * templates, and request fields decoded weakly as independent clients rely on.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseDuration } from "../../../emulator/keep/durations";
import { PatternSyntaxError, compileGoPattern, expandTemplate, unknownReferences } from "../../../emulator/keep/transform/pattern";
import { DEFAULT_TEMPLATE, UsernameTemplateError, compileUsernameTemplate } from "../../../emulator/keep/cloud-credentials/username-template";
import { registerCloudCredentialsEngine } from "../../../emulator/keep/cloud-credentials";
import { call, expectErrors, keep, useKeepEmulator } from "./fixture";

const ROOT = path.resolve(__dirname, "../../..");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : /\.ts$/.test(e.name) ? [full] : [];
  });
}

/** Relative module specifiers of a file (imports, re-exports, requires, dynamic imports). */
function relativeImports(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)["'](\.[^"']*)["']/g)].map((m) => m[1]);
  return found.map((spec) => path.relative(ROOT, path.resolve(path.dirname(file), spec)));
}

test("nothing under emulator/ imports the product (or anything else of the project outside emulator/)", () => {
  const files = sourceFiles(path.join(ROOT, "emulator"));
  expect(files.length).toBeGreaterThan(30);
  const outside = files.flatMap((file) =>
    relativeImports(file)
      .filter((target) => !target.startsWith(`emulator${path.sep}`) && target !== "emulator")
      .map((target) => `${path.relative(ROOT, file)} imports ${target}`),
  );
  expect(outside).toEqual([]);
});

test("the scan sees an import of the product when there is one", () => {
  const dir = fs.mkdtempSync(path.join(ROOT, "emulator", ".scan-"));
  try {
    const file = path.join(dir, "probe.ts");
    fs.writeFileSync(file, 'import { durationSeconds } from "../../resources/keep/duration";\n');
    expect(relativeImports(file)).toEqual([path.join("resources", "keep", "duration")]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe("durations", () => {
  test.each([
    [3600, 3600],
    ["3600", 3600],
    ["90m", 5400],
    ["1h30m", 5400],
    ["1.5h", 5400],
    ["1500ms", 1],
    ["365d", 365 * 86400],
    ["0", 0],
  ])("%p is %p seconds", (value, seconds) => {
    expect(parseDuration(value, { days: true })).toBe(seconds);
  });

  test.each(["1w", "1d2h", "-5s", "h", "1.5d", "5 m", "abc"])("%p is refused", (value) => {
    expect(parseDuration(value, { days: true })).toBeUndefined();
  });

  test("days are refused where h is the largest unit (the cloud lease configuration)", () => {
    expect(parseDuration("1d", { days: false })).toBeUndefined();
    expect(parseDuration("24h", { days: false })).toBe(86400);
  });
});

describe("RE2 patterns", () => {
  test("groups are numbered by their opening parenthesis; Go's names, POSIX classes and ASCII \\s", () => {
    const p = compileGoPattern("(?P<first>\\d{4})-(?<rest>[[:digit:]]{4})\\s(x)");
    expect(p.groups).toBe(3);
    expect([...p.names]).toEqual([["first", 1], ["rest", 2]]);
    const m = p.regex.exec("1234-5678 x")!;
    expect([m[1], m[2], m[3]]).toEqual(["1234", "5678", "x"]);
    // RE2's \s is ASCII: a no-break space is not white space there.
    expect(p.regex.test("1234-5678\u00a0x")).toBe(false);
    // A name JavaScript would refuse is a name in RE2.
    expect([...compileGoPattern("(?P<1st>a)").names]).toEqual([["1st", 1]]);
  });

  test("leading flags, literal braces and \\Q...\\E quoting", () => {
    expect(compileGoPattern("(?i)(abc)").regex.test("ABC")).toBe(true);
    expect(compileGoPattern("(a{)").regex.test("a{")).toBe(true);
    expect(compileGoPattern("\\Q1+1\\E(=)").regex.test("1+1=")).toBe(true);
  });

  test.each([
    ["(a)\\1", /no backreferences/],
    ["(?=a)(b)", /lookaround/],
    ["(a)(?P<x>b)(?P<x>c)", /duplicate capture group name: x/],
    ["(a", /missing closing \)/],
    ["a)", /unexpected \)/],
    ["(*a)", /missing argument to repetition operator/],
    ["(a**)", /invalid nested repetition operator/],
    ["(\\j)", /invalid escape sequence/],
    ["([a-)", /missing closing \]/],
    ["(a{1001})", /invalid repeat count/],
  ])("%p is refused", (pattern, message) => {
    expect(() => compileGoPattern(pattern)).toThrow(PatternSyntaxError);
    expect(() => compileGoPattern(pattern)).toThrow(message);
  });

  test("expand templates as Go's Regexp.Expand: longest name, braces, $$, a lone $ is text", () => {
    const p = compileGoPattern("(?P<a>x)(y)");
    const texts: Record<number, string> = { 1: "X", 2: "Y" };
    const expand = (template: string) => expandTemplate(p, template, (g) => texts[g]);
    expect(expand("$1-$2")).toBe("X-Y");
    expect(expand("${a}${2}")).toBe("XY");
    expect(expand("$1x")).toBe(""); // the name is "1x", which no group has
    expect(expand("$$1 $ ${")).toBe("$1 $ ${");
    expect(unknownReferences(p, "$1 $3 $b ${a}")).toEqual([3, "b"]);
  });
});

describe("username templates", () => {
  const fields = { DisplayName: "root", PolicyName: "readers" };

  test("the default template gives the spec's names", () => {
    const render = compileUsernameTemplate(DEFAULT_TEMPLATE);
    expect(render({ Type: "STS", ...fields })).toMatch(/^keep-\d{10}-[A-Za-z0-9]{16}$/);
    const iam = render({ Type: "IAM", ...fields });
    expect(iam).toMatch(/^keep-root-readers-\d{10}-[A-Za-z0-9]{20}$/);
  });

  test("pipelines, parentheses, else if, trim markers, comments and the service's functions", () => {
    const render = compileUsernameTemplate(
      '{{- /* a comment */ -}} {{ if eq .Type "STS" }}s{{ else if eq .Type "IAM" "X" -}}  {{ .PolicyName | uppercase | replace "E" "3" }}{{ else }}?{{ end }}' +
        '-{{ truncate 3 (lowercase .DisplayName) }}-{{ len "abcd" }}-{{ printf "%s.%s" .DisplayName "x" | base64 }}',
    );
    expect(render({ Type: "IAM", ...fields })).toBe(`R3AD3RS-roo-4-${Buffer.from("root.x").toString("base64")}`);
    expect(render({ Type: "STS", ...fields })).toMatch(/^s-roo-4-/);
  });

  test.each([
    ["{{ if .Type }}x", /without \{\{end\}\}/],
    ["{{ .Nope }}", /can't evaluate field Nope/],
    ["{{ nope 3 }}", /function "nope" not defined/],
    ["{{ range .Type }}{{ end }}", /not supported/],
    ["{{ .Type", /unclosed action/],
    ["{{ end }}", /unexpected \{\{end\}\}/],
  ])("%p is refused", (template, message) => {
    expect(() => compileUsernameTemplate(template)).toThrow(UsernameTemplateError);
    expect(() => compileUsernameTemplate(template)).toThrow(message);
  });
});

describe("over HTTP", () => {
  useKeepEmulator({ register: registerCloudCredentialsEngine });
  const PATCH = { "Content-Type": "application/merge-patch+json" };

  test("booleans, integers and lists come as strings too", async () => {
    const patched = await call("PATCH", "/v1/sys/sync/config", { body: { disabled: "true", queue_capacity: "10" }, headers: PATCH });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ disabled: true, queue_capacity: 10 });
    expect((await call("PATCH", "/v1/sys/sync/config", { body: { disabled: "false" }, headers: PATCH })).body.data.disabled).toBe(false);
    expect(expectErrors(await call("PATCH", "/v1/sys/sync/config", { body: { disabled: "maybe" }, headers: PATCH }), 400)[0]).toMatch(/'disabled' must be a boolean/);
    expect(expectErrors(await call("PATCH", "/v1/sys/sync/config", { body: { queue_capacity: "ten" }, headers: PATCH }), 400)[0]).toMatch(/'queue_capacity' must be an integer/);

    expect((await call("POST", "/v1/secret/config", { body: { max_versions: "3", cas_required: "false" } })).status).toBe(204);
    expect((await call("GET", "/v1/secret/config")).body.data).toMatchObject({ max_versions: 3, cas_required: false });

    keep().mount("tx", "transform");
    expect((await call("POST", "/v1/tx/role/people", { body: { transformations: "a, b,c" } })).status).toBe(204);
    expect((await call("GET", "/v1/tx/role/people")).body.data.transformations).toEqual(["a", "b", "c"]);
  });

  test("a tokenization transformation takes max_ttl in days; the cloud lease configuration does not", async () => {
    expect((await call("POST", "/v1/tx/transformations/tokenization/yearly", { body: { max_ttl: "365d" } })).status).toBe(204);
    expect(expectErrors(await call("POST", "/v1/cloudA/config/lease", { body: { lease: "1d", lease_max: "48h" } }), 400)[0]).toMatch(/invalid lease: "1d" is not a duration .*'h' is the largest unit/);
    expect((await call("POST", "/v1/cloudA/config/lease", { body: { lease: "24h", lease_max: "172800" } })).status).toBe(204);
    expect((await call("GET", "/v1/cloudA/config/lease")).body.data).toEqual({ lease: "24h0m0s", lease_max: "48h0m0s" });
  });
});
