/**
 * Username templates of the cloud-credentials engine. The service renders them with Go's
 * text/template; the provider only checks them, in preview, so a template that cannot work is
 * refused there, naming what is wrong (`usernameTemplateProblem`). It takes the subset the service's
 * default template and common custom ones use: `{{ .Field }}`, literals, function calls,
 * parentheses, pipes (`x | truncate 32`), `{{ if … }}…{{ else if … }}…{{ else }}…{{ end }}`, comments
 * and trim markers (`{{-`, `-}}`), with Go's functions and the service's (`FUNCTIONS`).
 */

/** The fields a template sees: `Type` is `IAM` or `STS`. */
const TEMPLATE_FIELDS = ["Type", "DisplayName", "PolicyName"] as const;

class TemplateError extends Error {
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

/** Go's template functions, then the ones the service adds. */
const FUNCTIONS = new Set([
  ...["and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne"],
  ...["random", "truncate", "truncate_sha256", "uppercase", "lowercase", "replace", "sha256", "base64", "unix_time", "unix_time_millis", "timestamp", "uuid"],
]);

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
      if (!FUNCTIONS.has(t.value)) throw new TemplateError(`function "${t.value}" not defined`);
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
// The whole template.

/** The `.Field` names a template reads; throws TemplateError saying what does not parse. */
function usernameTemplateFields(source: string): string[] {
  const fields = new Set<string>();
  const collect = (pipe: Pipe) => {
    for (const cmd of pipe) for (const op of cmd) {
      if (op.kind === "field") fields.add(op.name);
      if (op.kind === "pipe") collect(op.pipe);
    }
  };
  const checkPipe = (body: string) => {
    const tokens = lexAction(body);
    const at = { i: 0 };
    const pipe = parsePipe(tokens, at, false);
    if (at.i < tokens.length) throw new TemplateError(`unexpected "${tokens[at.i].value}" in action`);
    collect(pipe);
  };
  // Whether each open {{if}} is in its {{else}} branch.
  const ifs: boolean[] = [];
  let rest = source;
  for (let open = rest.indexOf("{{"); open >= 0; open = rest.indexOf("{{")) {
    const close = rest.indexOf("}}", open + 2);
    if (close < 0) throw new TemplateError("unclosed action");
    // Trim markers (`{{- `, ` -}}`) trim the text around the action.
    const action = rest.slice(open + 2, close).replace(/^-(\s|$)/, "").replace(/\s-$/, "").trim();
    rest = rest.slice(close + 2);
    if (action.startsWith("/*")) {
      // A comment is the whole action, as in Go.
      if (!action.endsWith("*/") || action.length < 4) throw new TemplateError("comment ends before closing delimiter");
      continue;
    }
    const keyword = /^(if|else|end|range|with|define|template|block)\b/.exec(action)?.[1];
    if (keyword === "if") {
      checkPipe(action.slice(2));
      ifs.push(false);
    } else if (keyword === "else") {
      if (ifs.length === 0 || ifs[ifs.length - 1]) throw new TemplateError("unexpected {{else}}");
      const elseIf = /^else\s+if\b/.exec(action);
      if (elseIf) checkPipe(action.slice(elseIf[0].length));
      else ifs[ifs.length - 1] = true;
    } else if (keyword === "end") {
      if (ifs.pop() === undefined) throw new TemplateError("unexpected {{end}}");
    } else if (keyword) {
      throw new TemplateError(`{{${keyword}}} is not supported in username templates`);
    } else {
      checkPipe(action);
    }
  }
  if (ifs.length) throw new TemplateError("unexpected EOF: an {{if}} has no {{end}}");
  return [...fields];
}

/** Why a template cannot be used, or undefined: it must parse and read only the known fields. */
export function usernameTemplateProblem(source: string): string | undefined {
  try {
    const unknown = usernameTemplateFields(source).filter((f) => !(TEMPLATE_FIELDS as readonly string[]).includes(f));
    if (unknown.length) return `reads ${unknown.map((f) => `.${f}`).join(", ")}; a username template has only ${TEMPLATE_FIELDS.map((f) => `.${f}`).join(", ")}`;
    return undefined;
  } catch (e) {
    return `does not parse: ${(e as Error).message}`;
  }
}
