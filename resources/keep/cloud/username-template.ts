/**
 * Username templates of the cloud-credentials engine: the subset of Go's text/template language the
 * service's default template and common custom ones use. `{{ .Field }}`, literals, function calls,
 * parentheses, pipes (`x | truncate 32`), `{{ if … }}…{{ else if … }}…{{ else }}…{{ end }}` and
 * trim markers (`{{-`, `-}}`). Functions: printf, truncate, truncate_sha256, random, unix_time,
 * unix_time_millis, uuid, uppercase, lowercase, replace, sha256, base64, eq, ne, not.
 *
 * The provider checks a template in preview with `parseUsernameTemplate`; the emulator renders it.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";

/** The fields a template sees: `Type` is `IAM` or `STS`. */
export const TEMPLATE_FIELDS = ["Type", "DisplayName", "PolicyName"] as const;
export type TemplateData = Partial<Record<(typeof TEMPLATE_FIELDS)[number], string>>;

export class TemplateError extends Error {
  override readonly name = "TemplateError";
}

type Operand =
  | { kind: "field"; name: string }
  | { kind: "dot" }
  | { kind: "string"; value: string }
  | { kind: "number"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "func"; name: string }
  | { kind: "pipe"; pipe: Pipe };
type Command = Operand[];
type Pipe = Command[];
type Node = { kind: "text"; text: string } | { kind: "output"; pipe: Pipe } | { kind: "if"; branches: { cond: Pipe; body: Node[] }[]; otherwise: Node[] };

/** A parsed template; `fields` are the `.Field` names it reads. */
export interface UsernameTemplate {
  fields: string[];
  render(data: TemplateData): string;
}

type Fn = (...args: unknown[]) => unknown;

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

const text = (v: unknown): string => (v === undefined || v === null ? "" : String(v));
const int = (v: unknown, what: string): number => {
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isInteger(n) || n < 0) throw new TemplateError(`${what}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
};

/** Go's printf for the verbs templates use: %s, %d, %v, %q and %%. */
function printf(format: unknown, ...args: unknown[]): string {
  let i = 0;
  return text(format).replace(/%([%sdvq])/g, (_m, verb: string) => {
    if (verb === "%") return "%";
    if (i >= args.length) return `%!${verb}(MISSING)`;
    const arg = args[i++];
    return verb === "q" ? JSON.stringify(text(arg)) : text(arg);
  });
}

const FUNCTIONS: Record<string, Fn> = {
  printf: (format, ...args) => printf(format, ...args),
  truncate: (n, s) => text(s).slice(0, int(n, "truncate")),
  truncate_sha256: (n, s) => {
    const value = text(s);
    const max = int(n, "truncate_sha256");
    if (value.length <= max) return value;
    const hash = createHash("sha256").update(value).digest("hex");
    return `${value.slice(0, Math.max(0, max - hash.length))}${hash}`.slice(0, max);
  },
  random: (n) => Array.from(randomBytes(int(n, "random")), (b) => ALNUM[b % ALNUM.length]).join(""),
  unix_time: () => String(Math.floor(Date.now() / 1000)),
  unix_time_millis: () => String(Date.now()),
  uuid: () => randomUUID(),
  uppercase: (s) => text(s).toUpperCase(),
  lowercase: (s) => text(s).toLowerCase(),
  replace: (find, replacement, s) => text(s).split(text(find)).join(text(replacement)),
  sha256: (s) => createHash("sha256").update(text(s)).digest("hex"),
  base64: (s) => Buffer.from(text(s)).toString("base64"),
  eq: (a, ...rest) => rest.some((b) => text(a) === text(b)),
  ne: (a, b) => text(a) !== text(b),
  not: (a) => !truthy(a),
};

function truthy(value: unknown): boolean {
  return !(value === undefined || value === null || value === false || value === "" || value === 0);
}

// ---------------------------------------------------------------------------------------------
// Lexing of one action's body.

type Token = { kind: "field" | "string" | "number" | "ident" | "dot" | "pipe" | "open" | "close"; value: string };

function lexAction(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "|") {
      tokens.push({ kind: "pipe", value: c });
      i++;
    } else if (c === "(") {
      tokens.push({ kind: "open", value: c });
      i++;
    } else if (c === ")") {
      tokens.push({ kind: "close", value: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== '"') j += source[j] === "\\" ? 2 : 1;
      if (j >= source.length) throw new TemplateError("unterminated quoted string");
      try {
        tokens.push({ kind: "string", value: JSON.parse(source.slice(i, j + 1)) as string });
      } catch {
        throw new TemplateError(`invalid quoted string ${source.slice(i, j + 1)}`);
      }
      i = j + 1;
    } else if (c === "`") {
      const j = source.indexOf("`", i + 1);
      if (j < 0) throw new TemplateError("unterminated raw string");
      tokens.push({ kind: "string", value: source.slice(i + 1, j) });
      i = j + 1;
    } else if (c === ".") {
      const m = /^\.([A-Za-z_][A-Za-z0-9_]*)?/.exec(source.slice(i))!;
      tokens.push(m[1] ? { kind: "field", value: m[1] } : { kind: "dot", value: "." });
      i += m[0].length;
    } else if (/[0-9-]/.test(c)) {
      const m = /^-?[0-9]+/.exec(source.slice(i));
      if (!m) throw new TemplateError(`unexpected "${c}" in action`);
      tokens.push({ kind: "number", value: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))!;
      tokens.push({ kind: "ident", value: m[0] });
      i += m[0].length;
    } else {
      throw new TemplateError(`unexpected "${c}" in action`);
    }
  }
  return tokens;
}

/** Parses a pipeline from tokens; `stop` ends it at a closing parenthesis. */
function parsePipe(tokens: Token[], at: { i: number }, nested: boolean): Pipe {
  const pipe: Pipe = [];
  let command: Command = [];
  while (at.i < tokens.length) {
    const t = tokens[at.i];
    if (t.kind === "close") {
      if (!nested) throw new TemplateError("unexpected right paren");
      break;
    }
    at.i++;
    if (t.kind === "pipe") {
      if (command.length === 0) throw new TemplateError("missing command before '|'");
      pipe.push(command);
      command = [];
      continue;
    }
    if (t.kind === "open") {
      const inner = parsePipe(tokens, at, true);
      if (tokens[at.i]?.kind !== "close") throw new TemplateError("unclosed left paren");
      at.i++;
      command.push({ kind: "pipe", pipe: inner });
    } else if (t.kind === "field") command.push({ kind: "field", name: t.value });
    else if (t.kind === "dot") command.push({ kind: "dot" });
    else if (t.kind === "string") command.push({ kind: "string", value: t.value });
    else if (t.kind === "number") command.push({ kind: "number", value: Number(t.value) });
    else if (t.value === "true" || t.value === "false") command.push({ kind: "bool", value: t.value === "true" });
    else {
      if (!FUNCTIONS[t.value]) throw new TemplateError(`function "${t.value}" not defined`);
      command.push({ kind: "func", name: t.value });
    }
  }
  if (command.length === 0) throw new TemplateError(pipe.length ? "missing command after '|'" : "missing value for command");
  pipe.push(command);
  for (const [index, cmd] of pipe.entries()) {
    if (cmd[0].kind !== "func" && cmd.length > 1) throw new TemplateError(`can't give argument to non-function ${describeOperand(cmd[0])}`);
    if (index > 0 && cmd[0].kind !== "func") throw new TemplateError(`non executable command in pipeline stage ${index + 1}`);
  }
  return pipe;
}

function describeOperand(op: Operand): string {
  return op.kind === "field" ? `.${op.name}` : op.kind === "string" ? JSON.stringify(op.value) : op.kind;
}

// ---------------------------------------------------------------------------------------------
// Parsing of the whole template into nodes.

/** Parses a template; throws TemplateError saying what does not parse. */
export function parseUsernameTemplate(source: string): UsernameTemplate {
  const fields = new Set<string>();
  const root: Node[] = [];
  type Frame = { node: Extract<Node, { kind: "if" }>; inElse: boolean };
  const stack: Frame[] = [];
  const target = (): Node[] => {
    const top = stack[stack.length - 1];
    if (!top) return root;
    return top.inElse ? top.node.otherwise : top.node.branches[top.node.branches.length - 1].body;
  };
  const collect = (pipe: Pipe) => {
    for (const cmd of pipe) for (const op of cmd) {
      if (op.kind === "field") fields.add(op.name);
      if (op.kind === "pipe") collect(op.pipe);
    }
  };
  const parseActionPipe = (body: string): Pipe => {
    const tokens = lexAction(body);
    const at = { i: 0 };
    const pipe = parsePipe(tokens, at, false);
    if (at.i < tokens.length) throw new TemplateError(`unexpected "${tokens[at.i].value}" in action`);
    collect(pipe);
    return pipe;
  };

  let rest = source;
  let trimNext = false;
  while (rest.length > 0) {
    const open = rest.indexOf("{{");
    let chunk = open < 0 ? rest : rest.slice(0, open);
    if (trimNext) chunk = chunk.replace(/^\s+/, "");
    if (open < 0) {
      if (chunk) target().push({ kind: "text", text: chunk });
      break;
    }
    const close = rest.indexOf("}}", open + 2);
    if (close < 0) throw new TemplateError("unclosed action");
    let body = rest.slice(open + 2, close);
    if (body.startsWith("- ") || body === "-") {
      chunk = chunk.replace(/\s+$/, "");
      body = body.slice(1);
    }
    trimNext = false;
    if (body.endsWith(" -")) {
      trimNext = true;
      body = body.slice(0, -1);
    }
    if (chunk) target().push({ kind: "text", text: chunk });
    rest = rest.slice(close + 2);
    const action = body.trim();
    if (action.startsWith("/*")) continue;
    const keyword = /^(if|else|end|range|with|define|template|block)\b/.exec(action)?.[1];
    if (keyword === "if") {
      const node: Extract<Node, { kind: "if" }> = { kind: "if", branches: [{ cond: parseActionPipe(action.slice(2)), body: [] }], otherwise: [] };
      target().push(node);
      stack.push({ node, inElse: false });
    } else if (keyword === "else") {
      const top = stack[stack.length - 1];
      if (!top || top.inElse) throw new TemplateError("unexpected {{else}}");
      const elseIf = /^else\s+if\b/.exec(action);
      if (elseIf) top.node.branches.push({ cond: parseActionPipe(action.slice(elseIf[0].length)), body: [] });
      else top.inElse = true;
    } else if (keyword === "end") {
      if (!stack.pop()) throw new TemplateError("unexpected {{end}}");
    } else if (keyword) {
      throw new TemplateError(`{{${keyword}}} is not supported in username templates`);
    } else {
      target().push({ kind: "output", pipe: parseActionPipe(action) });
    }
  }
  if (stack.length) throw new TemplateError("unexpected EOF: an {{if}} has no {{end}}");

  const evalPipe = (pipe: Pipe, data: TemplateData): unknown => {
    let piped: unknown;
    pipe.forEach((cmd, index) => {
      const [head, ...args] = cmd;
      if (head.kind === "func") {
        const values = args.map((a) => evalOperand(a, data));
        if (index > 0) values.push(piped);
        piped = FUNCTIONS[head.name](...values);
      } else piped = evalOperand(head, data);
    });
    return piped;
  };
  const evalOperand = (op: Operand, data: TemplateData): unknown => {
    switch (op.kind) {
      case "field":
        if (!(TEMPLATE_FIELDS as readonly string[]).includes(op.name)) throw new TemplateError(`can't evaluate field ${op.name}`);
        return data[op.name as keyof TemplateData] ?? "";
      case "dot":
        return data;
      case "string":
      case "number":
      case "bool":
        return op.value;
      case "func":
        return FUNCTIONS[op.name]();
      case "pipe":
        return evalPipe(op.pipe, data);
    }
  };
  const renderNodes = (nodes: Node[], data: TemplateData): string =>
    nodes
      .map((node) => {
        if (node.kind === "text") return node.text;
        if (node.kind === "output") return text(evalPipe(node.pipe, data));
        const branch = node.branches.find((b) => truthy(evalPipe(b.cond, data)));
        return renderNodes(branch ? branch.body : node.otherwise, data);
      })
      .join("");

  return { fields: [...fields], render: (data) => renderNodes(root, data) };
}

/** Why a template cannot be used, or undefined: it must parse and read only the known fields. */
export function usernameTemplateProblem(source: string): string | undefined {
  try {
    const template = parseUsernameTemplate(source);
    const unknown = template.fields.filter((f) => !(TEMPLATE_FIELDS as readonly string[]).includes(f));
    if (unknown.length) return `reads ${unknown.map((f) => `.${f}`).join(", ")}; a username template has only ${TEMPLATE_FIELDS.map((f) => `.${f}`).join(", ")}`;
    return undefined;
  } catch (e) {
    return `does not parse: ${(e as Error).message}`;
  }
}

/** The service's default template: `keep-…` names within 32 characters for STS and 64 for IAM. */
export const DEFAULT_USERNAME_TEMPLATE =
  '{{ if (eq .Type "STS") }}{{ printf "keep-%s-%s" (unix_time) (random 20) | truncate 32 }}' +
  '{{ else }}{{ printf "keep-%s-%s-%s" (printf "%s-%s" (.DisplayName) (.PolicyName) | truncate 42) (unix_time) (random 20) | truncate 64 }}{{ end }}';
