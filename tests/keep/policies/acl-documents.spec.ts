/**
 * The ACL policy documents preview accepts are the ones the service accepts: the provider's reader
 * (resources/keep/policies/acl-document.ts, its own HCL 1 parser) against the emulator's
 * (emulator/keep/acl-documents.ts, HCL 1's Go parser compiled to JavaScript plus the service's
 * rules). Neither shares code with the other.
 */
import fc from "fast-check";
import { aclPolicyRefusal } from "../../../emulator/keep/acl-documents";
import { decodePolicyText } from "../../../emulator/keep/policies";
import { aclDocumentProblem, capabilitiesOn, parseAclDocument } from "../../../resources/keep/policies/acl-document";

const previewAccepts = (text: string) => aclDocumentProblem(text) === undefined;
/** As the service's route reads a written policy: decoded from base64 first. */
const serviceRefusal = (text: string) => aclPolicyRefusal(decodePolicyText(text));
const serviceAccepts = (text: string) => serviceRefusal(text) === undefined;
const base64 = (text: string) => Buffer.from(text).toString("base64");

describe("ACL policy documents: named cases", () => {
  const refused: [string, string][] = [
    [`path "secret/*" {\n  capabilities = ["reed"]\n}`, 'line 2, column 19: path "secret/*": invalid capability "reed" (one of create, read, update, patch, delete, list, sudo, deny)'],
    [`path "secret/*" { capabilities = ["read"`, "line 1, column 41: not valid HCL: error parsing list, expected comma or list end, got: EOF"],
    [`path "secret/*" {\n  capabilities = ["read"]\n`, "line 3, column 2: not valid HCL: object expected closing RBRACE got: EOF"],
    ["not a policy", "line 1, column 14: not valid HCL: key 'not a policy' expected start of object ('{') or assignment ('=')"],
    [`paths "secret/*" { capabilities = ["read"] }`, 'line 1, column 1: invalid key "paths" (one of name, path)'],
    [`path "secret/*" {\n  capabilitie = ["read"]\n}`, 'line 2, column 3: path "secret/*": invalid key "capabilitie" (one of comment, policy, capabilities, allowed_parameters, denied_parameters, required_parameters, min_wrapping_ttl, max_wrapping_ttl, mfa_methods, control_group)'],
    [`path "secret/+*" { capabilities = ["read"] }`, "line 1, column 6: path \"secret/+*\": invalid use of wildcards ('+*' is forbidden)"],
    [`path "secret/*" { policy = "admin" }`, 'line 1, column 28: path "secret/*": invalid policy "admin" (one of deny, read, write, sudo)'],
    [`path "secret/*" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "soon"\n}`, 'line 3, column 22: error parsing min_wrapping_ttl: "soon" is not a duration (seconds such as 300, or a duration such as 5m or 1h)'],
    [`path "secret/*" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "1h"\n  max_wrapping_ttl = "5m"\n}`, 'line 1, column 6: path "secret/*": max_wrapping_ttl cannot be less than min_wrapping_ttl'],
    [`path "secret/*" {\n  capabilities = ["read"]\n  control_group = {}\n}`, 'line 3, column 19: control_group: no control group factors provided (declare at least one `factor "name" { identity { ... } }`)'],
    [`path "secret/*" {\n  capabilities = ["read"]\n  capabilities = ["list"]\n}`, 'line 3, column 3: not valid HCL: the argument "capabilities" was already set: each argument can only be defined once'],
    [`path "secret/{{identity.entity.id/*" { capabilities = ["read"] }`, 'line 1, column 6: path "secret/{{identity.entity.id/*": failed to validate policy templating: unbalanced templating characters'],
    [`path "secret/*" { capabilities = ["read"] allowed_parameters = { "a*b" = [] } }`, 'line 1, column 6: path "secret/*": allowed_parameters: parameter key "a*b" cannot contain non-tail wildcards (only `*`, or a `/pointer/*` tail)'],
    [`{"path": {"secret/*": {"capabilities": ["reed"]}}}`, 'line 1, column 41: path "secret/*": invalid capability "reed" (one of create, read, update, patch, delete, list, sudo, deny)'],
    [`{"paths": {"secret/*": {"capabilities": ["read"]}}}`, 'line 1, column 2: invalid key "paths" (one of name, path)'],
    [base64(`path "secret/*" {\n  capabilities = ["reed"]\n}`), 'line 2, column 19: path "secret/*": invalid capability "reed" (one of create, read, update, patch, delete, list, sudo, deny)'],
  ];
  test.each(refused)("%j is refused by preview (%s) and by the service", (text, problem) => {
    expect(aclDocumentProblem(text)).toBe(problem);
    // Read again (an apply's create reads what its check read): the same verdict.
    expect(aclDocumentProblem(text)).toBe(problem);
    expect(serviceRefusal(text)).toMatch(/^failed to parse policy: /);
  });

  test("the verdicts remembered are bounded, the oldest forgotten first, and a forgotten one is read again alike", () => {
    const texts = Array.from({ length: 300 }, (_, i) => `path "p${i}" { capabilities = [${i % 2 ? '"read"' : '"reed"'}] }`);
    const first = texts.map(aclDocumentProblem);
    expect(first.filter((p) => p !== undefined)).toHaveLength(150);
    expect(texts.map(aclDocumentProblem)).toEqual(first);
  });

  test.each([
    `path "secret/*" {\n  capabilities = ["read", "list"]\n}`,
    `# a comment\nname = "readers"\npath "secret/data/{{identity.entity.id}}/*" { capabilities = ["read"] }`,
    `path "secret/*" { policy = "write" }\npath "sys/*" { capabilities = ["deny"] }`,
    `path "secret/*" { capabilities = ["deny", "anything"] }`,
    `path "secret/*" {\n  capabilities = [\n    "read",\n    "update",\n  ]\n  allowed_parameters = {\n    "ttl" = ["1h", "2h"]\n    "*" = []\n  }\n  min_wrapping_ttl = 60\n  max_wrapping_ttl = "1h"\n}`,
    `path "secret/*" {\n  capabilities = ["read"]\n  control_group = {\n    ttl = "4h"\n    factor "ops" {\n      identity {\n        group_names = ["approvers"]\n        approvals = 2\n      }\n    }\n  }\n}`,
    `path "secret/*" { capabilities = ["read"] }\npath "secret/*" { capabilities = ["list"] }`,
    `{"path": {"secret/*": {"capabilities": ["read"]}, "sys/*": {"policy": "deny"}}}`,
    `path "secret/*" {\n  capabilities = <<EOT\nread\nEOT\n}`.replace("<<EOT\nread\nEOT\n", '["read"]'),
    base64(`path "secret/*" { capabilities = ["read"] }`),
  ])("%j is accepted by preview and by the service", (text) => {
    expect(aclDocumentProblem(text)).toBeUndefined();
    expect(serviceRefusal(text)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Generated documents: valid ones, and valid ones broken by one token.

const PATHS = ["secret/*", "secret/data/app", "sys/mounts", "secret/+/config", "auth/token/lookup-self", "secret/{{identity.entity.id}}/*", "/kv/data/x", "+/x", "sys/*"];
const caps = fc.subarray(["create", "read", "update", "patch", "delete", "list", "sudo", "deny"], { minLength: 1 });
const quote = (s: string) => JSON.stringify(s);

type Rule = [string, unknown];
const rule: fc.Arbitrary<Rule> = fc.oneof(
  caps.map((c): Rule => ["capabilities", c]),
  fc.constantFrom("read", "write", "sudo", "deny").map((p): Rule => ["policy", p]),
  fc.constantFrom<Rule>(["allowed_parameters", { "*": [] }], ["allowed_parameters", { ttl: ["1h"] }], ["denied_parameters", { "/pointer/*": [] }]),
  fc.constantFrom<Rule>(["required_parameters", ["a"]], ["mfa_methods", ["totp"]], ["comment", "why"]),
  fc.constantFrom<Rule>(["min_wrapping_ttl", "1m"], ["min_wrapping_ttl", 60], ["max_wrapping_ttl", "1h"], ["max_wrapping_ttl", "90s"]),
  fc.constant<Rule>(["control_group", { factor: { ops: { identity: { group_names: ["g"], approvals: 1 } } } }]),
);
const block = fc.record({ path: fc.constantFrom(...PATHS), rules: fc.uniqueArray(rule, { maxLength: 4, selector: ([k]) => k }) });
const documentShape = fc.record({ name: fc.option(fc.constant("ops"), { nil: undefined }), blocks: fc.array(block, { minLength: 1, maxLength: 3 }) });

function hclValue(value: unknown, indent: string): string {
  if (Array.isArray(value)) return `[${value.map((v) => hclValue(v, indent)).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const inner = Object.entries(value).map(([k, v]) => `${indent}  ${quote(k)} = ${hclValue(v, `${indent}  `)}`);
    return `{\n${inner.join("\n")}\n${indent}}`;
  }
  return typeof value === "number" ? String(value) : quote(String(value));
}

function asHcl(doc: fc.Arbitrary<unknown> extends never ? never : { name?: string; blocks: { path: string; rules: Rule[] }[] }): string {
  const lines = doc.name ? [`name = ${quote(doc.name)}`] : [];
  for (const b of doc.blocks) {
    lines.push(`path ${quote(b.path)} {`);
    for (const [k, v] of b.rules) {
      if (k === "control_group") lines.push(`  control_group {\n    factor "ops" {\n      identity {\n        group_names = ["g"]\n        approvals = 1\n      }\n    }\n  }`);
      else lines.push(`  ${k} = ${hclValue(v, "  ")}`);
    }
    lines.push("}");
  }
  return lines.join("\n") + "\n";
}

function asJson(doc: { name?: string; blocks: { path: string; rules: Rule[] }[] }): string {
  return JSON.stringify({ ...(doc.name ? { name: doc.name } : {}), path: doc.blocks.map((b) => ({ [b.path]: Object.fromEntries(b.rules) })) }, null, 1);
}

const TOKEN = /"(?:[^"\\\n]|\\.)*"|[{}[\]=,:]|[^\s{}[\]=,:"]+|\s+/g;
const REPLACEMENTS = ['"reed"', '"deny"', '"a/+*"', "=", "{", "}", "[", "]", ",", ":", '"x"', "paths", "capabilitie", "1", "true", '"1h"', '"soon"', "policy", '"admin"', "#c\n", "path", '"*"', "capabilities", "null", '"{{x"', "\n"];
const mutation = fc.record({ at: fc.nat(), kind: fc.constantFrom("delete", "repeat", "replace"), replacement: fc.constantFrom(...REPLACEMENTS) });

function mutate(text: string, m: { at: number; kind: string; replacement: string }): string {
  const tokens = text.match(TOKEN) ?? [];
  const solid = tokens.map((t, i) => (/^\s+$/.test(t) ? -1 : i)).filter((i) => i >= 0);
  if (solid.length === 0) return text;
  const i = solid[m.at % solid.length];
  if (m.kind === "delete") tokens.splice(i, 1);
  else if (m.kind === "repeat") tokens.splice(i, 0, tokens[i]);
  else tokens[i] = m.replacement;
  return tokens.join("");
}

const generated = fc
  .record({ doc: documentShape, form: fc.constantFrom("hcl", "hcl", "hcl", "json", "base64"), broken: fc.boolean(), m: mutation })
  .map(({ doc, form, broken, m }) => {
    const text = form === "json" ? asJson(doc) : asHcl(doc);
    const written = broken ? mutate(text, m) : text;
    return form === "base64" ? base64(written) : written;
  });

describe("ACL policy documents: generated", () => {
  test("over 10,000 generated documents, preview accepts exactly what the service accepts, and both verdicts occur", () => {
    const differences: string[] = [];
    let accepted = 0;
    fc.assert(
      fc.property(generated, (text) => {
        const preview = previewAccepts(text);
        if (preview !== serviceAccepts(text)) differences.push(text);
        if (preview) accepted++;
      }),
      { numRuns: 10_000, seed: 30 },
    );
    expect(differences.slice(0, 5)).toEqual([]);
    expect(accepted).toBeGreaterThan(3_000);
    expect(accepted).toBeLessThan(8_000);
  });
});

describe("ACL policy documents: random text", () => {
  test("over 2,000 strings of policy characters, preview never throws and agrees with the service", () => {
    const unit = fc.constantFrom(..."pathcapbilies{}[]=,\"\\#/*<>-+.0123456789 \n\t$:EOFé\u0000");
    const differences: string[] = [];
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        if (previewAccepts(text) !== serviceAccepts(text)) differences.push(text);
      }),
      { numRuns: 2_000, seed: 7 },
    );
    expect(differences).toEqual([]);
  });
});

describe("what documents grant", () => {
  const docs = [
    parseAclDocument(`path "sys/*" { capabilities = ["read", "sudo"] }\npath "sys/health" { capabilities = ["read"] }`),
    parseAclDocument(`path "secret/+/config" { capabilities = ["update"] }\npath "secret/*" { capabilities = ["read"] }\npath "secret/locked/*" { capabilities = ["deny"] }`),
    parseAclDocument(`path "sys/mounts" { capabilities = ["list"] }`),
  ];
  test.each([
    ["sys/mounts", ["list"]],
    ["sys/health", ["read"]],
    ["sys/policies/acl/x", ["read", "sudo"]],
    ["secret/app/config", ["update"]],
    ["secret/app/other", ["read"]],
    ["secret/locked/x", []],
    ["auth/token/create", []],
  ])("%s: %j", (path, expected) => {
    expect(capabilitiesOn(docs, path)).toEqual(expected);
  });
});
