/**
 * Username templates of the cloud-credentials engine, written for the emulator alone. The service
 * renders `username_template` with Go's text/template: text, `{{ pipeline }}` actions with trim
 * markers (`{{-`, `-}}`), comments, `if` / `else if` / `else` / `end`, pipelines (`x | f a`) and
 * parenthesised calls; the fields `.Type` (`IAM` or `STS`), `.DisplayName` and `.PolicyName`; Go's
 * `printf`, `eq`, `ne`, `not`, `and`, `or`, `len` and the service's functions (`truncate`,
 * `truncate_sha256`, `uppercase`, `lowercase`, `replace`, `sha256`, `base64`, `random`, `uuid`,
 * `unix_time`, `unix_time_millis`, `timestamp`).
 *
 * A template compiles to a function of the fields; anything else (`range`, `with`, variables, an
 * unknown function) is refused when the root configuration is written, as the service refuses it.
 */
import { createHash, randomInt, randomUUID } from "node:crypto";

export class UsernameTemplateError extends Error {
  override readonly name = "UsernameTemplateError";
}

export interface UsernameFields {
  Type: "IAM" | "STS";
  DisplayName: string;
  PolicyName: string;
}

export type RenderUsername = (fields: UsernameFields) => string;

type Value = string | number | boolean | UsernameFields;
type Evaluate = (fields: UsernameFields) => Value;

const fail = (message: string): never => {
  throw new UsernameTemplateError(message);
};

const asText = (v: Value): string => (typeof v === "object" ? "map[...]" : String(v));

const asCount = (v: Value, fn: string): number => {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : fail(`error calling ${fn}: expected a non-negative integer, got ${asText(v)}`);
};

const isTrue = (v: Value) => !(v === "" || v === 0 || v === false);

const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Go's fmt verbs a username template uses. */
function sprintf(format: Value, args: Value[]): string {
  let next = 0;
  return asText(format).replace(/%([%vsdq])/g, (_all, verb: string) => {
    if (verb === "%") return "%";
    if (next >= args.length) return `%!${verb}(MISSING)`;
    const arg = asText(args[next++]);
    return verb === "q" ? `"${arg.replace(/["\\]/g, "\\$&")}"` : arg;
  });
}

/** A Go time layout ("2006-01-02T15:04:05Z07:00") applied to the current UTC time. */
function goTimestamp(layout: string): string {
  const now = new Date();
  const two = (n: number) => String(n).padStart(2, "0");
  const parts: [string, string][] = [
    ["2006", String(now.getUTCFullYear())],
    ["Z07:00", "Z"],
    ["01", two(now.getUTCMonth() + 1)],
    ["02", two(now.getUTCDate())],
    ["15", two(now.getUTCHours())],
    ["04", two(now.getUTCMinutes())],
    ["05", two(now.getUTCSeconds())],
  ];
  let out = "";
  for (let i = 0; i < layout.length; ) {
    const hit = parts.find(([token]) => layout.startsWith(token, i));
    out += hit ? hit[1] : layout[i];
    i += hit ? hit[0].length : 1;
  }
  return out;
}

/** Functions by name, each taking its evaluated arguments (a piped value comes last). */
const FUNCTIONS: Record<string, (args: Value[]) => Value> = {
  printf: ([format, ...rest]) => sprintf(format ?? "", rest),
  eq: ([first, ...rest]) => rest.length > 0 ? rest.some((v) => asText(v) === asText(first)) : fail("error calling eq: missing argument for comparison"),
  ne: ([a, b]) => asText(a) !== asText(b),
  not: ([a]) => !isTrue(a),
  and: (args) => args.find((v) => !isTrue(v)) ?? args[args.length - 1],
  or: (args) => args.find(isTrue) ?? args[args.length - 1],
  len: ([a]) => asText(a).length,
  truncate: ([n, s]) => asText(s).slice(0, asCount(n, "truncate")),
  truncate_sha256: ([n, s]) => {
    const max = asCount(n, "truncate_sha256");
    const text = asText(s);
    if (max <= 8) fail("error calling truncate_sha256: the length must be more than 8");
    if (text.length <= max) return text;
    const kept = text.slice(0, max - 8);
    return kept + createHash("sha256").update(text.slice(max - 8)).digest("hex").slice(0, 8);
  },
  uppercase: ([s]) => asText(s).toUpperCase(),
  lowercase: ([s]) => asText(s).toLowerCase(),
  replace: ([find, by, s]) => asText(s).replaceAll(asText(find), asText(by)),
  sha256: ([s]) => createHash("sha256").update(asText(s)).digest("hex"),
  base64: ([s]) => Buffer.from(asText(s)).toString("base64"),
  random: ([n]) => Array.from({ length: asCount(n, "random") }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join(""),
  uuid: () => randomUUID(),
  unix_time: () => String(Math.floor(Date.now() / 1000)),
  unix_time_millis: () => String(Date.now()),
  timestamp: ([layout]) => goTimestamp(asText(layout ?? "2006-01-02T15:04:05Z07:00")),
};

const FIELDS = new Set(["Type", "DisplayName", "PolicyName"]);

/** The words of one action: strings, numbers, fields, names and punctuation. */
function wordsOf(action: string): string[] {
  const word = /\s+|"(?:[^"\\]|\\.)*"|`[^`]*`|\.[A-Za-z_][A-Za-z0-9_]*|\.|-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*|[()|]|\S/gy;
  const words: string[] = [];
  for (const m of action.matchAll(word)) if (m[0].trim()) words.push(m[0]);
  return words;
}

/** Compiles the words of a pipeline (`a | f b | g`) into its evaluation. */
function compilePipeline(words: string[]): Evaluate {
  let at = 0;
  const operand = (): Evaluate => {
    const w = words[at++];
    if (w === undefined) return fail("missing value for command");
    if (w === "(") {
      const inner = pipeline(true);
      if (words[at++] !== ")") fail("unclosed left paren");
      return inner;
    }
    if (w.startsWith('"')) {
      let value: string;
      try {
        value = JSON.parse(w) as string;
      } catch {
        return fail(`malformed quoted string ${w}`);
      }
      return () => value;
    }
    if (w.startsWith("`")) return () => w.slice(1, -1);
    if (w === ".") return (fields) => fields;
    if (w.startsWith(".")) {
      const name = w.slice(1);
      return FIELDS.has(name) ? (fields) => fields[name as keyof UsernameFields] : fail(`can't evaluate field ${name}`);
    }
    if (/^-?[0-9]+$/.test(w)) return () => Number(w);
    if (w === "true" || w === "false") return () => w === "true";
    // A function named as an argument is called without arguments (`printf "%s" unix_time`).
    if (FUNCTIONS[w]) return () => FUNCTIONS[w]([]);
    return fail(`unexpected "${w}" in operand`);
  };
  const command = (piped: Evaluate | undefined): Evaluate => {
    const head = words[at];
    if (head !== undefined && /^[A-Za-z_]/.test(head) && head !== "true" && head !== "false") {
      const fn = FUNCTIONS[head] ?? fail(`function "${head}" not defined`);
      at++;
      const args: Evaluate[] = [];
      while (at < words.length && words[at] !== "|" && words[at] !== ")") args.push(operand());
      return (fields) => fn([...args.map((a) => a(fields)), ...(piped ? [piped(fields)] : [])]);
    }
    if (piped) fail("non executable command in pipeline stage");
    const value = operand();
    if (at < words.length && words[at] !== "|" && words[at] !== ")") fail(`can't give argument to non-function ${head}`);
    return value;
  };
  const pipeline = (nested: boolean): Evaluate => {
    let current = command(undefined);
    while (words[at] === "|") {
      at++;
      if (at >= words.length || words[at] === ")") fail("missing command after '|'");
      current = command(current);
    }
    if (!nested && at < words.length) fail(`unexpected "${words[at]}" in command`);
    return current;
  };
  if (words.length === 0) fail("missing value for command");
  return pipeline(false);
}

/** A piece of the template: text, or the inside of one `{{ }}`. */
type Piece = { text: string } | { action: string };

function piecesOf(source: string): Piece[] {
  const pieces: Piece[] = [];
  let rest = source;
  let trimLeading = false;
  while (rest) {
    const open = rest.indexOf("{{");
    let text = open < 0 ? rest : rest.slice(0, open);
    if (trimLeading) text = text.trimStart();
    if (open < 0) {
      if (text) pieces.push({ text });
      break;
    }
    const close = rest.indexOf("}}", open);
    if (close < 0) fail("unclosed action");
    let action = rest.slice(open + 2, close);
    if (/^-\s/.test(action)) {
      text = text.trimEnd();
      action = action.slice(1);
    }
    trimLeading = /\s-$/.test(action);
    if (trimLeading) action = action.slice(0, -1);
    if (text) pieces.push({ text });
    action = action.trim();
    if (!(action.startsWith("/*") && action.endsWith("*/"))) pieces.push({ action });
    rest = rest.slice(close + 2);
  }
  return pieces;
}

/** Compiles a template; throws `UsernameTemplateError` for anything the service would refuse. */
export function compileUsernameTemplate(source: string): RenderUsername {
  const pieces = piecesOf(source);
  let at = 0;
  /** Compiles pieces up to an `else` or `end` (left for the caller), or to the end at the top. */
  const block = (inside: boolean): RenderUsername => {
    const parts: RenderUsername[] = [];
    while (at < pieces.length) {
      const piece = pieces[at];
      if ("text" in piece) {
        parts.push(() => piece.text);
        at++;
        continue;
      }
      const [keyword] = piece.action.split(/\s+/, 1);
      if (keyword === "else" || keyword === "end") {
        if (!inside) fail(`unexpected {{${keyword}}}`);
        break;
      }
      at++;
      if (keyword === "if") parts.push(conditional(piece.action.slice(2)));
      else if (["range", "with", "define", "template", "block", "break", "continue"].includes(keyword) || piece.action.startsWith("$")) {
        fail(`{{${keyword}}} is not supported in username templates`);
      } else {
        const value = compilePipeline(wordsOf(piece.action));
        parts.push((fields) => asText(value(fields)));
      }
    }
    return (fields) => parts.map((p) => p(fields)).join("");
  };
  const conditional = (condition: string): RenderUsername => {
    const test = compilePipeline(wordsOf(condition));
    const then = block(true);
    let otherwise: RenderUsername = () => "";
    const next = pieces[at];
    if (next === undefined || !("action" in next)) return fail("unexpected EOF: {{if}} without {{end}}");
    at++;
    if (/^else\s+if\s/.test(next.action)) otherwise = conditional(next.action.replace(/^else\s+if/, ""));
    else if (next.action === "else") {
      otherwise = block(true);
      const end = pieces[at++];
      if (!end || !("action" in end) || end.action !== "end") fail("unexpected EOF: {{else}} without {{end}}");
    } else if (next.action !== "end") fail(`unexpected {{${next.action}}}`);
    return (fields) => (isTrue(test(fields)) ? then(fields) : otherwise(fields));
  };
  const render = block(false);
  return render;
}

/**
 * The service's default template, from the spec: STS names `keep-<unix time>-<20 random>` within 32
 * characters; IAM names `keep-<display name>-<policy name>` (within 42) `-<unix time>-<20 random>`
 * within 64.
 */
export const DEFAULT_TEMPLATE =
  '{{ if eq .Type "STS" }}{{ printf "keep-%s-%s" unix_time (random 20) | truncate 32 }}' +
  '{{ else }}{{ printf "keep-%s-%s-%s" (printf "%s-%s" .DisplayName .PolicyName | truncate 42) unix_time (random 20) | truncate 64 }}{{ end }}';
