/**
 * ACL policy documents as the secrets service reads them: base64 decoded when the text is base64,
 * parsed as HCL 1 (JSON through the same parser), then its rules: top-level keys `name` and `path`;
 * path-block keys from a fixed set; capabilities and old-style `policy` values from theirs; no `+*`
 * in a path; balanced `{{...}}` templating; wrapping TTLs as durations, the maximum not below the
 * minimum; parameter keys with tail wildcards only; a control group with factors that name groups
 * and approvals. Preview refuses what the service would refuse, with the line and the rule, and
 * the parsed view lets a policy pack ask what a document grants ({@link capabilitiesOn}).
 */
import { HclItem, HclKey, HclLiteral, HclNode, HclSyntaxError, literalString, parseHcl, Position } from "./hcl1";
import { goDurationSeconds } from "../duration";
import { storedPolicyText } from "./policy-common";

export const CAPABILITIES = ["create", "read", "update", "patch", "delete", "list", "sudo", "deny"] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Old-style `policy = "..."` values and the capabilities each stands for. */
export const OLD_STYLE_POLICIES: Readonly<Record<string, readonly Capability[]>> = {
  deny: ["deny"],
  read: ["read", "list"],
  write: ["create", "read", "update", "delete", "list"],
  sudo: ["create", "read", "update", "delete", "list", "sudo"],
};

export const TOP_LEVEL_KEYS = ["name", "path"] as const;
export const PATH_KEYS = [
  "comment",
  "policy",
  "capabilities",
  "allowed_parameters",
  "denied_parameters",
  "required_parameters",
  "min_wrapping_ttl",
  "max_wrapping_ttl",
  "mfa_methods",
  "control_group",
] as const;

/** One `path` block, as the service keeps it. */
export interface AclPathRule {
  /** The path as written (a leading `/` dropped). */
  path: string;
  /** Line of the block in the document. */
  line: number;
  /** What the block grants: old-style `policy` mapped in; `deny` alone when it is listed first of those read. */
  capabilities: Capability[];
  /** The path ends in `*` (without `+` segments): it matches every path it starts. */
  isPrefix: boolean;
  /** The path has `+` segments, each matching one path segment. */
  hasSegmentWildcards: boolean;
  /** The path uses identity templating (`{{identity.entity.id}}`). */
  templated: boolean;
  allowedParameters?: Record<string, unknown[]>;
  deniedParameters?: Record<string, unknown[]>;
  requiredParameters?: string[];
  mfaMethods?: string[];
  minWrappingTtlSeconds?: number;
  maxWrappingTtlSeconds?: number;
  controlGroup?: { ttlSeconds?: number; factors: { name: string; groupIds: string[]; groupNames: string[]; approvals: number }[] };
}

/** A parsed ACL policy document. */
export interface AclDocument {
  name?: string;
  paths: AclPathRule[];
}

/** Why the service would refuse a document: the rule broken and, where known, where. */
export class AclDocumentError extends Error {
  override readonly name = "AclDocumentError";
  constructor(
    readonly pos: Position | undefined,
    readonly rule: string,
  ) {
    super(pos ? `line ${pos.line}${pos.column ? `, column ${pos.column}` : ""}: ${rule}` : rule);
  }
}

const oneOf = (values: readonly string[]) => `(one of ${values.join(", ")})`;

/** Parses a policy document as the service does, or throws AclDocumentError. */
export function parseAclDocument(text: string): AclDocument {
  let items: HclItem[];
  try {
    items = parseHcl(storedPolicyText(text));
  } catch (e) {
    if (e instanceof HclSyntaxError) throw new AclDocumentError(e.pos, `not valid HCL: ${e.reason}`);
    // A token the parser took but cannot read (the service's parser gives up there too).
    throw new AclDocumentError(undefined, `not valid HCL: ${(e as Error).message}`);
  }
  for (const item of items) {
    const key = item.keys[0];
    if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key.value)) {
      throw new AclDocumentError(key.pos, `invalid key ${JSON.stringify(key.value)} ${oneOf(TOP_LEVEL_KEYS)}`);
    }
  }
  const document: AclDocument = { paths: [] };
  for (const match of field(items, "name")) document.name = stringOf(match, "name");
  for (const item of matching(items, "path")) document.paths.push(pathRule(item.rest[0], item.value));
  return document;
}

/**
 * The verdicts on the documents read last: an apply reads each document twice (its check, then its
 * create or update validates the same inputs again), and a program often declares one document for
 * many policies. Bounded; the oldest goes first.
 */
const verdicts = new Map<string, string | undefined>();
const REMEMBERED = 256;

/** The reason the service would refuse a document, or undefined when it would take it. */
export function aclDocumentProblem(text: string): string | undefined {
  if (verdicts.has(text)) return verdicts.get(text);
  let problem: string | undefined;
  try {
    parseAclDocument(text);
  } catch (e) {
    if (!(e instanceof AclDocumentError)) throw e;
    problem = e.message;
  }
  if (verdicts.size >= REMEMBERED) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(text, problem);
  return problem;
}

/** Items whose first key is `key` (case-insensitively, as the service's decoder matches), that key dropped. */
function matching(items: HclItem[], key: string): { keys: HclKey[]; rest: HclKey[]; value: HclNode; assign?: Position }[] {
  return items
    .filter((item) => item.keys[0].value.toLowerCase() === key.toLowerCase())
    .map((item) => ({ keys: item.keys, rest: item.keys.slice(1), value: item.value, assign: item.assign }));
}

/**
 * The values the service's decoder gives a struct field: items with further keys (`key "x" {...}`)
 * read together as one object, then each plain value.
 */
function field(items: HclItem[], key: string): HclNode[] {
  const matches = matching(items, key);
  const nested = matches.filter((m) => m.rest.length > 0);
  const values: HclNode[] = [];
  if (nested.length > 0) {
    values.push({ kind: "object", pos: nested[0].keys[0].pos, items: nested.map((m) => ({ keys: m.rest, assign: m.assign, value: m.value })) });
  }
  for (const m of matches) if (m.rest.length === 0) values.push(m.value);
  return values;
}

function stringOf(node: HclNode, what: string): string {
  const value = node.kind === "literal" ? literalValue(node) : undefined;
  if (typeof value !== "string") throw new AclDocumentError(node.pos, `${what}: must be a string`);
  return value;
}

function literalValue(node: HclLiteral): string | undefined {
  try {
    return literalString(node);
  } catch {
    throw new AclDocumentError(node.pos, `invalid string ${node.text}`);
  }
}

/** A list of strings: a list of string or number literals (an empty block reads as an empty list). */
function stringList(node: HclNode, what: string): string[] {
  return stringItems(node, what).map((item) => item.value);
}

function stringItems(node: HclNode, what: string): { value: string; pos: Position }[] {
  if (node.kind === "object" && node.items.length === 0) return [];
  if (node.kind !== "list") throw new AclDocumentError(node.pos, `${what}: must be a list of strings`);
  return node.items.map((element) => ({ value: stringOf(element, what), pos: element.pos }));
}

/**
 * One `path` block, in the service's order: templating, keys, the decoding of every field (shapes),
 * `+*`, old-style policy, capabilities (reading stops at `deny`), then the fields' own rules.
 */
function pathRule(key: HclKey | undefined, value: HclNode): AclPathRule {
  const path = key?.value ?? "path";
  const where = `path ${JSON.stringify(path)}`;
  const at = key?.pos ?? value.pos;
  const isTemplated = templated(path, at);
  if (value.kind !== "object") throw new AclDocumentError(value.pos, `${where}: must be a block of rules`);
  for (const item of value.items) {
    const k = item.keys[0];
    if (!(PATH_KEYS as readonly string[]).includes(k.value)) {
      throw new AclDocumentError(k.pos, `${where}: invalid key ${JSON.stringify(k.value)} ${oneOf(PATH_KEYS)}`);
    }
  }
  const items = value.items;
  const list = (name: string) => {
    const nodes = field(items, name);
    return nodes.length === 0 ? undefined : nodes.flatMap((node) => stringList(node, `${where}: ${name}`));
  };
  // Decoding: every field's shape is checked whatever the capabilities.
  const policyNodes = field(items, "policy");
  const oldStyle = policyNodes.map((node) => stringOf(node, `${where}: policy`)).pop();
  const policyNode = policyNodes[policyNodes.length - 1];
  let written = field(items, "capabilities").flatMap((node) => stringItems(node, `${where}: capabilities`));
  const allowed = parameters(items, "allowed_parameters", where);
  const denied = parameters(items, "denied_parameters", where);
  const requiredParameters = list("required_parameters");
  const mfaMethods = list("mfa_methods");
  const minTtl = field(items, "min_wrapping_ttl");
  const maxTtl = field(items, "max_wrapping_ttl");
  const group = controlGroupShape(field(items, "control_group"), where);

  const rule: AclPathRule = {
    path: path.startsWith("/") ? path.slice(1) : path,
    line: at.line,
    capabilities: [],
    isPrefix: false,
    hasSegmentWildcards: false,
    templated: isTemplated,
  };
  const p = rule.path;
  if (p.includes("+*")) throw new AclDocumentError(at, `${where}: invalid use of wildcards ('+*' is forbidden)`);
  rule.hasSegmentWildcards = p === "+" || p.includes("/+") || p.startsWith("+/");
  rule.isPrefix = p.endsWith("*") && !rule.hasSegmentWildcards;

  if (oldStyle !== undefined && oldStyle !== "") {
    const mapped = OLD_STYLE_POLICIES[oldStyle];
    if (!mapped) throw new AclDocumentError(policyNode!.pos, `${where}: invalid policy ${JSON.stringify(oldStyle)} ${oneOf(Object.keys(OLD_STYLE_POLICIES))}`);
    const implied = mapped.map((value) => ({ value, pos: policyNode!.pos }));
    written = oldStyle === "deny" ? implied : [...written, ...implied];
  }
  for (const { value: capability, pos } of written) {
    if (capability === "deny") {
      // The service stops reading the block at `deny`: none of the rules below apply.
      rule.capabilities = ["deny"];
      return rule;
    }
    if (!(CAPABILITIES as readonly string[]).includes(capability)) {
      throw new AclDocumentError(pos, `${where}: invalid capability ${JSON.stringify(capability)} ${oneOf(CAPABILITIES)}`);
    }
    if (!rule.capabilities.includes(capability as Capability)) rule.capabilities.push(capability as Capability);
  }
  for (const [name, params] of [["allowed_parameters", allowed], ["denied_parameters", denied]] as const) {
    for (const k of Object.keys(params ?? {})) {
      if (k.includes("*") && k !== "*" && !(k.startsWith("/") && k.endsWith("/*") && !k.slice(0, -2).includes("*"))) {
        throw new AclDocumentError(at, `${where}: ${name}: parameter key ${JSON.stringify(k)} cannot contain non-tail wildcards (only \`*\`, or a \`/pointer/*\` tail)`);
      }
    }
  }
  rule.allowedParameters = lowerKeys(allowed);
  rule.deniedParameters = lowerKeys(denied);
  rule.minWrappingTtlSeconds = duration(minTtl, "min_wrapping_ttl");
  rule.maxWrappingTtlSeconds = duration(maxTtl, "max_wrapping_ttl");
  rule.mfaMethods = mfaMethods;
  rule.controlGroup = controlGroupRules(group, written.map((c) => c.value));
  const { minWrappingTtlSeconds: min, maxWrappingTtlSeconds: max } = rule;
  if (min && max && max < min) throw new AclDocumentError(at, `${where}: max_wrapping_ttl cannot be less than min_wrapping_ttl`);
  rule.requiredParameters = requiredParameters;
  for (const k of Object.keys(rule) as (keyof AclPathRule)[]) if (rule[k] === undefined) delete rule[k];
  return rule;
}

function lowerKeys(params: Record<string, unknown[]> | undefined): Record<string, unknown[]> | undefined {
  if (!params) return undefined;
  const out: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(params)) out[k.toLowerCase()] = v;
  return out;
}

/** `{{` and `}}` must pair up, with no `}}` before the first `{{` (the service checks nothing more before a token uses the policy). */
function templated(path: string, pos: Position): boolean {
  const pieces = path.split("{{");
  if (pieces[0].includes("}}") || pieces.slice(1).some((piece) => piece.split("}}").length !== 2)) {
    throw new AclDocumentError(pos, `path ${JSON.stringify(path)}: failed to validate policy templating: unbalanced templating characters`);
  }
  return pieces.length > 1;
}

/** `allowed_parameters` / `denied_parameters`: an object of parameter names to lists of values (the shape). */
function parameters(items: HclItem[], name: string, where: string): Record<string, unknown[]> | undefined {
  const nodes = field(items, name);
  if (nodes.length === 0) return undefined;
  const out: Record<string, unknown[]> = {};
  for (const node of nodes) {
    if (node.kind !== "object") throw new AclDocumentError(node.pos, `${where}: ${name}: must be an object of parameter names to lists of values`);
    for (const entry of node.items) {
      const key = entry.keys[0].value;
      const values = entry.keys.length > 1 ? [plain(entry.value)] : parameterValues(entry.value, `${where}: ${name}.${key}`);
      out[key] = [...(out[key] ?? []), ...values];
    }
  }
  return out;
}

function parameterValues(node: HclNode, what: string): unknown[] {
  if (node.kind === "list") return node.items.map(plain);
  if (node.kind === "object") return [plain(node)];
  throw new AclDocumentError(node.pos, `${what}: must be a list of values`);
}

function plain(node: HclNode): unknown {
  if (node.kind === "list") return node.items.map(plain);
  if (node.kind === "object") return Object.fromEntries(node.items.map((item) => [item.keys.map((k) => k.value).join("."), plain(item.value)]));
  if (node.type === "BOOL") return node.text === "true";
  if (node.type === "FLOAT") return Number(node.text);
  return literalValue(node);
}

/** Seconds of a duration the way the service reads these fields: seconds, `<n>d`, or a Go duration. */
function duration(nodes: HclNode[], what: string): number | undefined {
  let seconds: number | undefined;
  for (const node of nodes) {
    const value = node.kind === "literal" ? durationOf(node) : undefined;
    if (value === undefined) throw new AclDocumentError(node.pos, `error parsing ${what}: ${describeDuration(node)} is not a duration (seconds such as 300, or a duration such as 5m or 1h)`);
    seconds = value;
  }
  return seconds;
}

function describeDuration(node: HclNode): string {
  return node.kind === "literal" ? node.text : `a ${node.kind}`;
}

function durationOf(node: HclLiteral): number | undefined {
  if (node.type === "BOOL") return undefined;
  if (node.type === "FLOAT") return Math.trunc(Number(node.text));
  if (node.type === "NUMBER") return goInteger(node.text);
  const text = literalValue(node) ?? "";
  if (text === "") return 0;
  if (/^[+-]?\d+$/.test(text)) return Number(text);
  if (/^[+-]?\d+d$/.test(text)) return Number(text.slice(0, -1)) * 86_400;
  return goDurationSeconds(text);
}

/** An integer literal as Go's `ParseInt(text, 0, 0)` reads it (hex, octal, binary prefixes). */
function goInteger(text: string): number | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9]\d*|0)$/.exec(text.replace(/_/g, ""));
  if (!m) return undefined;
  const digits = m[2];
  const value = /^0[0-7]/.test(digits) ? parseInt(digits.replace(/^0[oO]?/, ""), 8) : Number(digits);
  return m[1] === "-" ? -value : value;
}


interface ControlGroupShape {
  pos: Position;
  ttl: HclNode[];
  factors: { name: string; pos: Position; identities: number; groupIds: string[]; groupNames: string[]; approvals: number; controlled: string[] }[];
}

/** `control_group { ttl = ..., factor "name" { identity { group_names = [...], approvals = 1 } } }`: its shape. */
function controlGroupShape(nodes: HclNode[], where: string): ControlGroupShape | undefined {
  if (nodes.length === 0) return undefined;
  const shape: ControlGroupShape = { pos: nodes[0].pos, ttl: [], factors: [] };
  const what = `${where}: control_group`;
  for (const node of nodes) {
    if (node.kind !== "object") throw new AclDocumentError(node.pos, `${what}: must be a block`);
    shape.ttl.push(...field(node.items, "ttl"));
    for (const factors of field(node.items, "factor")) {
      if (factors.kind !== "object") throw new AclDocumentError(factors.pos, `${what}: factor: must be a block named by the factor`);
      for (const entry of factors.items) {
        const name = entry.keys[0].value;
        const body: HclNode = entry.keys.length > 1 ? { kind: "object", pos: entry.keys[1].pos, items: [{ keys: entry.keys.slice(1), value: entry.value }] } : entry.value;
        if (body.kind !== "object") throw new AclDocumentError(body.pos, `${what}: factor ${JSON.stringify(name)}: must be a block`);
        const factor = { name, pos: entry.keys[0].pos, identities: 0, groupIds: [] as string[], groupNames: [] as string[], approvals: 0, controlled: [] as string[] };
        for (const identity of field(body.items, "identity")) {
          if (identity.kind !== "object") throw new AclDocumentError(identity.pos, `${what}: factor ${JSON.stringify(name)}: identity must be a block`);
          factor.identities++;
          factor.groupIds.push(...field(identity.items, "group_ids").flatMap((n) => stringList(n, `${what}: group_ids`)));
          factor.groupNames.push(...field(identity.items, "group_names").flatMap((n) => stringList(n, `${what}: group_names`)));
          for (const n of field(identity.items, "approvals")) factor.approvals = integerOf(n, `${what}: approvals`);
        }
        factor.controlled = field(body.items, "controlled_capabilities").flatMap((n) => stringList(n, `${what}: controlled_capabilities`));
        shape.factors.push(factor);
      }
    }
  }
  return shape;
}

/** The control group's rules: a duration for its TTL, and factors that name groups and approvals. */
function controlGroupRules(shape: ControlGroupShape | undefined, capabilities: string[]): AclPathRule["controlGroup"] {
  if (!shape) return undefined;
  const ttlSeconds = duration(shape.ttl, "control group max ttl");
  const factors: NonNullable<AclPathRule["controlGroup"]>["factors"] = [];
  for (const f of shape.factors) {
    if (f.identities === 0) throw new AclDocumentError(f.pos, `control_group: factor ${JSON.stringify(f.name)}: no control_group factor provided (a factor needs an identity block)`);
    if (f.approvals <= 0 || (f.groupIds.length === 0 && f.groupNames.length === 0)) {
      throw new AclDocumentError(f.pos, `control_group: factor ${JSON.stringify(f.name)}: must provide more than one identity group and approvals > 0`);
    }
    if (f.controlled.some((c) => !capabilities.includes(c))) {
      throw new AclDocumentError(f.pos, `control_group: factor ${JSON.stringify(f.name)}: control group factor capabilities must be a subset of the policy's capabilities`);
    }
    factors.push({ name: f.name, groupIds: f.groupIds, groupNames: f.groupNames, approvals: f.approvals });
  }
  if (factors.length === 0) throw new AclDocumentError(shape.pos, "control_group: no control group factors provided (declare at least one `factor \"name\" { identity { ... } }`)");
  return ttlSeconds === undefined ? { factors } : { ttlSeconds, factors };
}

function integerOf(node: HclNode, what: string): number {
  const value = node.kind !== "literal" ? undefined : node.type === "NUMBER" ? goInteger(node.text) : node.type === "STRING" ? goInteger(literalValue(node) ?? "") : undefined;
  if (value === undefined) throw new AclDocumentError(node.pos, `${what}: must be a whole number`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// What a set of documents grants on a path, as the service's ACL resolves it.

/** The capabilities a set of documents grants on a concrete request path (deny wins; `root` grants all). */
export function capabilitiesOn(documents: readonly AclDocument[], requestPath: string): Capability[] {
  let exact: Capability[] | undefined;
  let best: { rule: AclPathRule; caps: Set<Capability> } | undefined;
  const byPath = new Map<string, { rule: AclPathRule; caps: Set<Capability> }>();
  // The service merges the blocks of every policy that name the same path (and kind) before matching.
  for (const doc of documents) {
    for (const rule of doc.paths) {
      if (rule.templated) continue;
      const id = `${rule.isPrefix ? "prefix" : rule.hasSegmentWildcards ? "segments" : "exact"}:${rule.isPrefix ? rule.path.slice(0, -1) : rule.path}`;
      const entry = byPath.get(id) ?? { rule, caps: new Set<Capability>() };
      for (const c of rule.capabilities) entry.caps.add(c);
      byPath.set(id, entry);
    }
  }
  const candidates: { rule: AclPathRule; caps: Set<Capability> }[] = [];
  for (const [id, entry] of byPath) {
    const caps = entry.caps.has("deny") ? new Set<Capability>(["deny"]) : entry.caps;
    if (id.startsWith("exact:") && entry.rule.path === requestPath) exact = [...caps];
    else if (id.startsWith("prefix:") && requestPath.startsWith(entry.rule.path.slice(0, -1))) candidates.push({ rule: entry.rule, caps });
    else if (id.startsWith("segments:") && segmentsMatch(entry.rule.path, requestPath)) candidates.push({ rule: entry.rule, caps });
  }
  if (exact) return exact.includes("deny") ? [] : ordered(exact);
  for (const c of candidates) if (!best || morePrecise(c.rule, best.rule)) best = c;
  if (!best || best.caps.has("deny")) return [];
  return ordered([...best.caps]);
}

const ordered = (caps: Capability[]) => CAPABILITIES.filter((c) => caps.includes(c) && c !== "deny");

/** A `+` segment matches one segment; a trailing `*` the rest of the path. */
function segmentsMatch(pattern: string, path: string): boolean {
  const glob = pattern.endsWith("*");
  const want = (glob ? pattern.slice(0, -1) : pattern).split("/");
  const have = path.split("/");
  if (!glob && want.length !== have.length) return false;
  if (glob && have.length < want.length) return false;
  return want.every((segment, i) => {
    if (segment === "+") return true;
    const last = i === want.length - 1;
    return glob && last ? have[i].startsWith(segment) : have[i] === segment;
  });
}

/**
 * Of two rules matching a path, the service's priority (on paths as it stores them, a prefix rule
 * without its `*`): the first `+` or `*` later in the path wins, then a path without a trailing
 * `*`, then fewer `+` segments, then the longer path, then the lexically larger.
 */
function morePrecise(a: AclPathRule, b: AclPathRule): boolean {
  const describe = (r: AclPathRule) => {
    const stored = r.isPrefix ? r.path.slice(0, -1) : r.path;
    const wildcard = stored.search(/[+*]/);
    return { stored, first: r.isPrefix ? stored.length : wildcard === -1 ? stored.length : wildcard, glob: r.isPrefix || r.path.endsWith("*"), pluses: stored.split("+").length };
  };
  const [x, y] = [describe(a), describe(b)];
  if (x.first !== y.first) return x.first > y.first;
  if (x.glob !== y.glob) return !x.glob;
  if (x.pluses !== y.pluses) return x.pluses < y.pluses;
  if (x.stored.length !== y.stored.length) return x.stored.length > y.stored.length;
  return x.stored > y.stored;
}
