/**
 * ACL policy documents as the secrets service reads them, for the emulator alone. The syntax is
 * judged by `js-hcl-parser`, HCL 1's own Go parser compiled to JavaScript (the library the service
 * parses policies with, at its 1.0.0 release), and the tree it builds is read back from that
 * library's printer (its canonical text keeps what decoding would lose: multi-key items, JSON's
 * objects flattened into them, assignments). The emulator adds the two refusals of the service's
 * later release of that parser (an argument assigned twice in one object; an error met on a
 * closing brace, which 1.0.0 forgave), then applies the service's policy rules to the tree.
 */
import { parseDuration } from "./durations";

const CAPABILITIES = ["create", "read", "update", "patch", "delete", "list", "sudo", "deny"];
const OLD_STYLE: Record<string, string[]> = {
  deny: ["deny"],
  read: ["read", "list"],
  write: ["create", "read", "update", "delete", "list"],
  sudo: ["create", "read", "update", "delete", "list", "sudo"],
};
const TOP_KEYS = ["name", "path"];
const RULE_KEYS = ["comment", "policy", "capabilities", "allowed_parameters", "denied_parameters", "required_parameters", "min_wrapping_ttl", "max_wrapping_ttl", "mfa_methods", "control_group"];

/** A node of the printed tree: a literal (its token type and value), a list, or an object of items. */
type Node = { literal: "STRING" | "NUMBER" | "FLOAT" | "BOOL"; value: string } | { list: Node[] } | { items: Item[] };
interface Item {
  keys: string[];
  value: Node;
}

let hcl: { stringify(text: string): string } | undefined;

/** Why the service refuses a policy document (its 400 message), or undefined when it takes it. */
export function aclPolicyRefusal(text: string): string | undefined {
  try {
    readAclPolicy(text);
    return undefined;
  } catch (e) {
    if (e instanceof Refusal) return `failed to parse policy: ${e.message}`;
    throw e;
  }
}

class Refusal extends Error {}

function readAclPolicy(text: string): void {
  hcl ??= require("js-hcl-parser") as { stringify(text: string): string };
  // The printer's text of the parsed tree, or the parser's error (decoding, which the service does its own way, is not asked for).
  const printed = hcl.stringify(text);
  if (printed.startsWith("unable to parse HCL: ")) throw new Refusal(printed.slice("unable to parse HCL: ".length));
  if (!/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*\{/u.test(text)) laterParserRefusals(text);
  const root = readPrinted(printed);
  for (const item of root) if (!TOP_KEYS.includes(item.keys[0])) throw new Refusal(`invalid key ${JSON.stringify(item.keys[0])}`);
  for (const value of values(root, "name")) asText(value, "name");
  for (const item of root.filter((i) => i.keys[0].toLowerCase() === "path")) readRules(item.keys[1] ?? "path", item.value);
}

/** The printer's canonical text back into items: keys, then `= value` or `{ items }` (`=` with nothing after it is JSON's null, an empty string). */
function readPrinted(printed: string): Item[] {
  const tokens = [...printed.matchAll(/<<-?([\p{L}\p{Nd}_]+)\n[\s\S]*?\n[ \t]*\1(?=\n|$)|"(?:[^"\\]|\\.)*"|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/|[{}[\]=,]|\n|[^\s{}[\]=,"]+/gu)]
    .map((m) => m[0])
    .filter((t) => !/^(#|\/\/|\/\*)/.test(t));
  let at = 0;
  const skipBreaks = () => {
    while (tokens[at] === "\n") at++;
  };
  const items = (closing: string | undefined): Item[] => {
    const out: Item[] = [];
    for (skipBreaks(); at < tokens.length && tokens[at] !== closing; skipBreaks()) {
      const keys: string[] = [];
      while (![ "=", "{", "[", "\n", "}", undefined].includes(tokens[at])) keys.push(tokens[at++]);
      const end = tokens[at];
      if (end === "{") {
        at++;
        out.push({ keys: keys.map(unquoted), value: { items: items("}") } });
        at++;
      } else if (end === "=") {
        at++;
        out.push({ keys: keys.map(unquoted), value: tokens[at] === "\n" || tokens[at] === undefined || tokens[at] === "}" ? { literal: "STRING", value: "" } : value() });
      } else {
        // The printer writes a multi-key assignment (from JSON) without its `=`: the last token is the value.
        if (end !== "[") at--, keys.pop();
        out.push({ keys: keys.map(unquoted), value: value() });
      }
      if (tokens[at] === ",") at++;
    }
    return out;
  };
  const value = (): Node => {
    const t = tokens[at++];
    if (t === "{") {
      const node = { items: items("}") };
      at++;
      return node;
    }
    if (t === "[") {
      const list: Node[] = [];
      for (skipBreaks(); tokens[at] !== "]"; skipBreaks()) {
        if (tokens[at] === ",") at++;
        else list.push(value());
      }
      at++;
      return { list };
    }
    if (t.startsWith('"')) return { literal: "STRING", value: unquoted(t) };
    if (t.startsWith("<<")) return { literal: "STRING", value: t.slice(t.indexOf("\n") + 1, t.lastIndexOf("\n") + 1) };
    if (t === "true" || t === "false") return { literal: "BOOL", value: t };
    return { literal: /^[+-]?(0[xX][0-9a-fA-F]+|\d+)$/.test(t) ? "NUMBER" : "FLOAT", value: t };
  };
  return items(undefined);
}

function unquoted(token: string): string {
  if (!token.startsWith('"')) return token;
  return token.slice(1, -1).replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{3}|.)/g, (_, e: string) => {
    const simple: Record<string, string> = { a: "\u0007", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };
    if (e.length === 1) return simple[e] ?? e;
    return String.fromCodePoint(/^[0-7]/.test(e) ? parseInt(e, 8) : parseInt(e.slice(1), 16));
  });
}

/** The values a struct field of the service's decoder receives: items with more keys read as one object, then each value. */
function values(items: Item[], key: string): Node[] {
  const named = items.filter((i) => (i.keys[0] ?? "").toLowerCase() === key.toLowerCase());
  const deeper = named.filter((i) => i.keys.length > 1).map((i) => ({ keys: i.keys.slice(1), value: i.value }));
  return [...(deeper.length > 0 ? [{ items: deeper }] : []), ...named.filter((i) => i.keys.length === 1).map((i) => i.value)];
}

function asText(node: Node, what: string): string {
  if ("literal" in node && (node.literal === "STRING" || node.literal === "NUMBER")) return node.value;
  throw new Refusal(`${what}: unknown type for string`);
}

function asTexts(node: Node, what: string): string[] {
  if ("items" in node && node.items.length === 0) return [];
  if (!("list" in node)) throw new Refusal(`unknown slice type for ${what}`);
  return node.list.map((n) => asText(n, what));
}

/** Go's HCL 1.0.0 forgives an error met on `}`; the service's parser refuses it. So do `x = }` and `[ ... }`. */
function laterParserRefusals(source: string): void {
  const token = /"(?:[^"\\\n]|\\.)*"|<<-?([A-Za-z0-9_]+)\n[\s\S]*?\n[ \t]*\1\n|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/|[{}[\]=,]|[^\s{}[\]=,"#/<]+|\S/gu;
  const open: ("{" | "[")[] = [];
  const assigned: Set<string>[] = [new Set()];
  let keys: string[] = [];
  let previous = "";
  for (const m of source.replace(/\r\n/g, "\n").matchAll(token)) {
    const t = m[0];
    if (t.startsWith("#") || t.startsWith("//") || t.startsWith("/*")) continue;
    if (t === "}" && previous === "=") throw new Refusal("Unknown token: RBRACE");
    if (t === "}" && open[open.length - 1] === "[") throw new Refusal("unexpected token while parsing list: RBRACE");
    if (t === "{" || t === "[") {
      open.push(t);
      if (t === "{") assigned.push(new Set());
      keys = [];
    } else if (t === "}" || t === "]") {
      if (open.pop() === "{") assigned.pop();
      keys = [];
    } else if (t === "=") {
      const key = keys[keys.length - 1];
      const seen = assigned[assigned.length - 1];
      if (open[open.length - 1] !== "[" && key !== undefined) {
        if (seen.has(key)) throw new Refusal(`The argument ${JSON.stringify(key)} was already set. Each argument can only be defined once`);
        seen.add(key);
      }
      keys = [];
    } else if (t === ",") keys = [];
    else if (previous === "=") keys = [];
    else keys.push(t);
    previous = t;
  }
}

function readRules(path: string, node: Node): void {
  const where = `path ${JSON.stringify(path)}`;
  const pieces = path.split("{{");
  if (pieces[0].includes("}}") || pieces.slice(1).some((p) => p.split("}}").length !== 2)) {
    throw new Refusal("failed to validate policy templating: unbalanced templating characters");
  }
  if (!("items" in node)) throw new Refusal(`${where}: cannot check HCL keys of a value`);
  const rules = node.items;
  for (const item of rules) if (!RULE_KEYS.includes(item.keys[0])) throw new Refusal(`${where}: invalid key ${JSON.stringify(item.keys[0])}`);
  // The decoding of every field, whatever the capabilities.
  const texts = (key: string) => values(rules, key).flatMap((n) => asTexts(n, `${where}: ${key}`));
  const oldStyle = values(rules, "policy").map((n) => asText(n, `${where}: policy`)).pop() ?? "";
  let capabilities = texts("capabilities");
  texts("required_parameters");
  texts("mfa_methods");
  const parameterNames: string[] = [];
  for (const key of ["allowed_parameters", "denied_parameters"]) {
    for (const map of values(rules, key)) {
      if (!("items" in map)) throw new Refusal(`${where}: ${key}: not an object type for map`);
      for (const entry of map.items) {
        if (entry.keys.length === 1 && "literal" in entry.value) throw new Refusal(`${where}: ${key}: unknown slice type`);
        parameterNames.push(`${key}\u0000${entry.keys[0]}`);
      }
    }
  }
  const groups = values(rules, "control_group");
  const factors = groups.map((g) => controlGroupShape(g));

  const stored = path.startsWith("/") ? path.slice(1) : path;
  if (stored.includes("+*")) throw new Refusal(`path ${JSON.stringify(stored)}: invalid use of wildcards ('+*' is forbidden)`);
  if (oldStyle !== "") {
    if (!(oldStyle in OLD_STYLE)) throw new Refusal(`${where}: invalid policy ${JSON.stringify(oldStyle)}`);
    capabilities = oldStyle === "deny" ? ["deny"] : [...capabilities, ...OLD_STYLE[oldStyle]];
  }
  for (const capability of capabilities) {
    if (capability === "deny") return;
    if (!CAPABILITIES.includes(capability)) throw new Refusal(`${where}: invalid capability ${JSON.stringify(capability)}`);
  }
  for (const entry of parameterNames) {
    const [key, name] = entry.split("\u0000");
    const tailOnly = name === "*" || (name.startsWith("/") && name.endsWith("/*") && !name.slice(0, -2).includes("*"));
    if (name.includes("*") && !tailOnly) throw new Refusal(`path ${JSON.stringify(stored)}: ${key}: parameter key ${JSON.stringify(name)} cannot contain non-tail wildcards`);
  }
  const min = seconds(values(rules, "min_wrapping_ttl"), "min_wrapping_ttl");
  const max = seconds(values(rules, "max_wrapping_ttl"), "max_wrapping_ttl");
  if (groups.length > 0) checkControlGroup(factors, capabilities);
  if (min && max && max < min) throw new Refusal("max_wrapping_ttl cannot be less than min_wrapping_ttl");
}

interface Factor {
  ttl: Node[];
  factors: { identities: number; groups: number; approvals: number; controlled: string[] }[];
}

function controlGroupShape(node: Node): Factor {
  if (!("items" in node)) throw new Refusal("control_group: not an object type for struct");
  const shape: Factor = { ttl: values(node.items, "ttl"), factors: [] };
  for (const map of values(node.items, "factor")) {
    if (!("items" in map)) throw new Refusal("control_group: factor: not an object type for map");
    for (const entry of map.items) {
      const body: Node = entry.keys.length > 1 ? { items: [{ keys: entry.keys.slice(1), value: entry.value }] } : entry.value;
      if (!("items" in body)) throw new Refusal("control_group: factor: not an object type for struct");
      const factor = { identities: 0, groups: 0, approvals: 0, controlled: values(body.items, "controlled_capabilities").flatMap((n) => asTexts(n, "controlled_capabilities")) };
      for (const identity of values(body.items, "identity")) {
        if (!("items" in identity)) throw new Refusal("control_group: identity: not an object type for struct");
        factor.identities++;
        for (const key of ["group_ids", "group_names"]) factor.groups += values(identity.items, key).flatMap((n) => asTexts(n, key)).length;
        for (const n of values(identity.items, "approvals")) {
          const digits = "literal" in n && (n.literal === "NUMBER" || n.literal === "STRING") ? n.value : "";
          if (!/^[+-]?(0[xX][0-9a-fA-F]+|\d+)$/.test(digits)) throw new Refusal("control_group: approvals: strconv.ParseInt: invalid syntax");
          factor.approvals = Number(digits);
        }
      }
      shape.factors.push(factor);
    }
  }
  return shape;
}

function checkControlGroup(groups: Factor[], capabilities: string[]): void {
  let count = 0;
  for (const group of groups) {
    seconds(group.ttl, "control group max ttl");
    for (const f of group.factors) {
      count++;
      if (f.identities === 0) throw new Refusal("no control_group factor provided");
      if (f.approvals <= 0 || f.groups === 0) throw new Refusal("must provide more than one identity group and approvals > 0");
      if (f.controlled.some((c) => !capabilities.includes(c))) throw new Refusal("control group factor capabilities must be a subset of the policy's capabilities");
    }
  }
  if (count === 0) throw new Refusal("no control group factors provided");
}

function seconds(nodes: Node[], what: string): number | undefined {
  let result: number | undefined;
  for (const node of nodes) {
    const parsed = "literal" in node ? literalSeconds(node) : undefined;
    if (parsed === undefined) throw new Refusal(`error parsing ${what}: could not parse duration from input`);
    result = parsed;
  }
  return result;
}

function literalSeconds(node: { literal: string; value: string }): number | undefined {
  if (node.literal === "BOOL") return undefined;
  if (node.literal === "FLOAT") return Math.trunc(Number(node.value));
  if (node.literal === "NUMBER") return Number(node.value);
  return readPolicyDuration(node.value);
}

/** The service's duration reading for these fields: "" is 0, digits are seconds, `<n>d` days, else a Go duration (signed). */
function readPolicyDuration(value: string): number | undefined {
  if (value !== value.trim()) return undefined;
  const magnitude = parseDuration(value.replace(/^[+-]/, ""), { days: true });
  return magnitude !== undefined && value.startsWith("-") ? -magnitude : magnitude;
}

