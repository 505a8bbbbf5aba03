/**
 * HCL 1, as the secrets service reads policy documents: its own scanner and parser, and the JSON
 * form read by the same library (a document whose first non-space character is `{`), with JSON's
 * nested objects flattened into multi-key items as HCL 1 does. Written from HCL 1's grammar for
 * this package, quirks included, because a preview that refuses what the service accepts (or the
 * reverse) is a preview that lies:
 * - lists may start with or repeat commas (`[, "a",, "b"]`), objects may separate items by commas;
 * - an assignment with nothing after it at the end of the document (`name =`) is dropped, not refused;
 * - an assignment repeated in one object (`capabilities = [...]` twice) is refused; a repeated block is not;
 * - in JSON, booleans and nested lists inside a list are skipped, `null` is an empty string, and
 *   whatever follows the first complete object (or an item without a following comma) is ignored.
 * The tree keeps positions (line and column, counted in characters) for the errors users read.
 */

export interface Position {
  line: number;
  column: number;
}

export type LiteralKind = "NUMBER" | "FLOAT" | "BOOL" | "STRING" | "HEREDOC";

export interface HclLiteral {
  kind: "literal";
  type: LiteralKind;
  /** The token as written (a string with its quotes). */
  text: string;
  /** A JSON string (unquoted by JSON's rules). */
  json?: boolean;
  pos: Position;
}
export interface HclList {
  kind: "list";
  items: HclNode[];
  pos: Position;
}
export interface HclObject {
  kind: "object";
  items: HclItem[];
  pos: Position;
}
export type HclNode = HclLiteral | HclList | HclObject;

export interface HclKey {
  /** The token as written (a quoted key keeps its quotes). */
  text: string;
  /** The key's value (a quoted key unquoted). */
  value: string;
  pos: Position;
}

/** `keys = value` (assign set) or `keys { ... }`. */
export interface HclItem {
  keys: HclKey[];
  assign?: Position;
  value: HclNode;
}

export class HclSyntaxError extends Error {
  override readonly name = "HclSyntaxError";
  constructor(
    readonly pos: Position | undefined,
    readonly reason: string,
  ) {
    super(pos ? `line ${pos.line}, column ${pos.column}: ${reason}` : reason);
  }
}

/** Parses a document as the service's HCL 1 library does (HCL or JSON, told apart by the first character). */
export function parseHcl(text: string): HclItem[] {
  const firstNonSpace = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*(.)/su.exec(text)?.[1];
  if (firstNonSpace === "{") return new JsonParser(text).document();
  return new HclParser(text.replace(/\r\n/g, "\n")).document();
}

// ---------------------------------------------------------------------------------------------
// Scanner: one for both forms; `json` switches the few rules where JSON's scanner differs.

type TokenType =
  | "IDENT" | "STRING" | "HEREDOC" | "NUMBER" | "FLOAT" | "BOOL" | "NULL" | "COMMENT" | "EOF" | "ILLEGAL"
  | "LBRACE" | "RBRACE" | "LBRACK" | "RBRACK" | "COMMA" | "ASSIGN" | "COLON" | "PERIOD" | "ADD" | "SUB";

interface Token {
  type: TokenType;
  text: string;
  pos: Position;
}

const EOF = "";
const isDecimal = (c: string) => c >= "0" && c <= "9";
const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);
const isLetter = (c: string) => /^[a-zA-Z_]$/.test(c) || (c > "\u007f" && /^\p{L}$/u.test(c));
const isDigit = (c: string) => isDecimal(c) || (c > "\u007f" && /^\p{Nd}$/u.test(c));
const isWhitespace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";
const digitValue = (c: string) => (isDecimal(c) ? c.charCodeAt(0) - 48 : /^[a-f]$/.test(c) ? c.charCodeAt(0) - 87 : /^[A-F]$/.test(c) ? c.charCodeAt(0) - 55 : 16);

class Scanner {
  /** The code points of the text: the text itself when it has no surrogates (indexing it is then the same). */
  private readonly chars: string | string[];
  private index = 0;
  private line = 1;
  private column = 0;
  private previousLine = 1;
  private previousColumn = 0;
  /** The first scanning error; the document is refused when there is one, whatever the parser says. */
  error?: HclSyntaxError;

  constructor(
    src: string,
    private readonly json: boolean,
  ) {
    // A lone surrogate reaches the service as U+FFFD (JSON decoding replaces it).
    this.chars = /[\ud800-\udfff]/.test(src) ? Array.from(src, (c) => (c.length === 1 && c >= "\ud800" && c <= "\udfff" ? "\ufffd" : c)) : src;
  }

  /** The text of code points `start` to `end`. */
  private textOf(start: number, end: number): string {
    return typeof this.chars === "string" ? this.chars.slice(start, end) : this.chars.slice(start, end).join("");
  }

  private fail(message: string): void {
    this.error ??= new HclSyntaxError({ line: this.line, column: Math.max(this.column, 1) }, message);
  }

  private next(): string {
    if (this.index >= this.chars.length) {
      this.column++;
      return EOF;
    }
    const c = this.chars[this.index++];
    this.previousLine = this.line;
    this.previousColumn = this.column;
    this.column++;
    if (c === "\n") {
      this.line++;
      this.column = 0;
    }
    if (c === "\u0000") {
      // Both scanners read NUL as the end of input; HCL's also calls it an error, JSON's does not.
      if (!this.json) this.fail("unexpected null character (0x00)");
      return EOF;
    }
    if (c === "\ue123" && !this.json) {
      this.fail("unicode code point U+E123 reserved for internal use");
      return "\ufffd";
    }
    return c;
  }

  private unread(): void {
    this.index--;
    this.line = this.previousLine;
    this.column = this.previousColumn;
  }

  private peek(): string {
    return this.chars[this.index] ?? EOF;
  }

  scan(): Token {
    let c = this.next();
    while (isWhitespace(c)) c = this.next();
    const start = this.index - (c === EOF ? 0 : 1);
    const pos = { line: this.line, column: Math.max(this.column, 1) };
    let type: TokenType = "ILLEGAL";
    if (isLetter(c)) {
      const word = this.identifier();
      if (word === "true" || word === "false") type = "BOOL";
      else if (!this.json) type = "IDENT";
      else if (word === "null") type = "NULL";
      else this.fail("illegal char");
    } else if (isDecimal(c)) {
      type = this.number(c);
    } else {
      switch (c) {
        case EOF:
          type = "EOF";
          break;
        case '"':
          type = "STRING";
          this.string();
          break;
        case "#":
        case "/":
          if (this.json) this.fail(`illegal char: ${c}`);
          else {
            type = "COMMENT";
            this.comment(c);
          }
          break;
        case ".":
          type = "PERIOD";
          if (isDecimal(this.peek())) {
            type = "FLOAT";
            this.exponent(this.mantissa(this.peek()));
          }
          break;
        case "<":
          if (this.json) this.fail(`illegal char: ${c}`);
          else {
            type = "HEREDOC";
            this.heredoc();
          }
          break;
        case "[": type = "LBRACK"; break;
        case "]": type = "RBRACK"; break;
        case "{": type = "LBRACE"; break;
        case "}": type = "RBRACE"; break;
        case ",": type = "COMMA"; break;
        case "=":
          if (this.json) this.fail(`illegal char: ${c}`);
          else type = "ASSIGN";
          break;
        case ":":
          if (this.json) type = "COLON";
          else this.fail("illegal char");
          break;
        case "+":
          if (this.json) this.fail(`illegal char: ${c}`);
          else type = "ADD";
          break;
        case "-":
          if (isDecimal(this.peek())) type = this.number(this.next());
          else if (this.json) this.fail("illegal char");
          else type = "SUB";
          break;
        default:
          this.fail(this.json ? `illegal char: ${c}` : "illegal char");
      }
    }
    return { type, text: this.textOf(start, this.index), pos };
  }

  private identifier(): string {
    const start = this.index - 1;
    let c = this.next();
    while (isLetter(c) || isDigit(c) || c === "-" || (!this.json && c === ".")) c = this.next();
    if (c !== EOF) this.unread();
    return this.textOf(start, this.index);
  }

  private number(first: string): TokenType {
    if (this.json) return this.jsonNumber(first);
    let c = first;
    if (c === "0") {
      c = this.next();
      if (c === "x" || c === "X") {
        c = this.next();
        let found = false;
        while (isHex(c)) {
          c = this.next();
          found = true;
        }
        if (!found) this.fail("illegal hexadecimal number");
        if (c !== EOF) this.unread();
        return "NUMBER";
      }
      let illegalOctal = false;
      while (isDecimal(c)) {
        c = this.next();
        if (c === "8" || c === "9") illegalOctal = true;
      }
      if (this.floatTail(c)) return "FLOAT";
      if (illegalOctal) this.fail("illegal octal number");
      if (c !== EOF) this.unread();
      return "NUMBER";
    }
    return this.decimalTail(c);
  }

  private jsonNumber(first: string): TokenType {
    const zero = first === "0";
    const startIndex = this.index;
    const type = this.decimalTail(first);
    if (type === "NUMBER" && zero && this.index !== startIndex) this.fail("numbers cannot start with 0");
    return type;
  }

  private decimalTail(first: string): TokenType {
    this.mantissa(first);
    const c = this.next();
    if (this.floatTail(c)) return "FLOAT";
    if (c !== EOF) this.unread();
    return "NUMBER";
  }

  /** After a number's digits, at `c` (read): an exponent or a fraction makes it a float. */
  private floatTail(c: string): boolean {
    if (c === "e" || c === "E") {
      this.exponent(c);
      return true;
    }
    if (c !== ".") return false;
    const after = this.fraction(c);
    if (after === "e" || after === "E") this.exponent(this.next());
    return true;
  }

  private mantissa(first: string): string {
    let c = first;
    let scanned = false;
    while (isDecimal(c)) {
      c = this.next();
      scanned = true;
    }
    if (scanned && c !== EOF) this.unread();
    return c;
  }

  private fraction(c: string): string {
    return c === "." ? this.mantissa(this.peek()) : c;
  }

  private exponent(first: string): string {
    let c = first;
    if (c === "e" || c === "E") {
      c = this.next();
      if (c === "-" || c === "+") c = this.next();
      c = this.mantissa(c);
    }
    return c;
  }

  private comment(first: string): void {
    if (first === "#" || (first === "/" && this.peek() !== "*")) {
      if (first === "/" && this.peek() !== "/") {
        this.fail("expected '/' for comment");
        return;
      }
      let c = this.next();
      while (c !== "\n" && c !== EOF) c = this.next();
      if (c !== EOF) this.unread();
      return;
    }
    this.next();
    let c = this.next();
    for (;;) {
      if (c === EOF) {
        this.fail("comment not terminated");
        return;
      }
      const before = c;
      c = this.next();
      if (before === "*" && c === "/") return;
    }
  }

  private heredoc(): void {
    if (this.next() !== "<") {
      this.fail("heredoc expected second '<', didn't see it");
      return;
    }
    const anchorStart = this.index;
    let c = this.next();
    if (c === "-") c = this.next();
    while (isLetter(c) || isDigit(c)) c = this.next();
    if (c === EOF) {
      this.fail("heredoc not terminated");
      return;
    }
    if (c === "\r" && this.peek() === "\n") c = this.next();
    if (c !== "\n") {
      this.fail("invalid characters in heredoc anchor");
      return;
    }
    const anchor = this.textOf(anchorStart, this.index - 1).replace(/\r$/, "");
    if (anchor === "" || anchor === "-") {
      this.fail("zero-length heredoc anchor");
      return;
    }
    const closing = new RegExp(`^[ \\t\\n\\v\\f\\r]*${anchor.replace(/^-/, "")}\\r*$`, "u");
    let lineStart = this.index;
    for (;;) {
      const ch = this.next();
      if (ch === "\n") {
        const line = this.textOf(lineStart, this.index - 1);
        if (line.length >= anchor.length && closing.test(line)) return;
        lineStart = this.index;
      }
      if (ch === EOF) {
        this.fail("heredoc not terminated");
        return;
      }
    }
  }

  private string(): void {
    let braces = 0;
    for (;;) {
      const c = this.next();
      if ((c === "\n" && (braces === 0 || this.json)) || c === EOF) {
        this.fail("literal not terminated");
        return;
      }
      if (c === '"' && (braces === 0 || this.json)) return;
      if (braces === 0 && c === "$" && this.peek() === "{") {
        braces++;
        this.next();
      } else if (braces > 0 && c === "{") braces++;
      if (braces > 0 && c === "}") braces--;
      if (c === "\\") this.escape();
    }
  }

  private escape(): void {
    const c = this.next();
    if ("abfnrtv\\\"".includes(c) && c !== EOF) return;
    if (c >= "0" && c <= "7") this.digits(c, 8, 3);
    else if (c === "x") this.digits(this.next(), 16, 2);
    else if (c === "u") this.digits(this.next(), 16, 4);
    else if (c === "U") this.digits(this.next(), 16, 8);
    else this.fail("illegal char escape");
  }

  private digits(first: string, base: number, count: number): void {
    let c = first;
    let left = count;
    while (left > 0 && digitValue(c) < base) {
      c = this.next();
      if (c === EOF && !this.json) break;
      left--;
    }
    if (left > 0) this.fail("illegal char escape");
    if (c !== EOF && (this.json || left !== count)) this.unread();
  }
}

// ---------------------------------------------------------------------------------------------
// Values of literal tokens.

/** The text of a quoted string, as the service's library unquotes it (HCL keeps `${...}` as written). */
export function unquote(text: string, json = false): string {
  const body = text.slice(1, -1);
  if (text.length < 2 || text[0] !== '"' || text[text.length - 1] !== '"') throw new Error(`invalid string ${text}`);
  if (!json && !body.includes("$") && !body.includes("{") && body.includes("\n")) throw new Error(`invalid string ${text}`);
  let out = "";
  let i = 0;
  while (i < body.length) {
    if (!json && body[i] === "$" && body[i + 1] === "{") {
      let depth = 1;
      let j = i + 2;
      while (j < body.length && depth > 0) {
        if (body[j] === "{") depth++;
        else if (body[j] === "}") depth--;
        j++;
      }
      if (depth !== 0) throw new Error(`invalid string ${text}`);
      out += body.slice(i, j);
      i = j;
      continue;
    }
    const c = body[i];
    if (c === "\n" || c === '"') throw new Error(`invalid string ${text}`);
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = body[i + 1];
    const simple: Record<string, string> = { a: "\u0007", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", '"': '"' };
    if (e !== undefined && e in simple) {
      out += simple[e];
      i += 2;
    } else if (e === "x" || e === "u" || e === "U") {
      const width = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex) || parseInt(hex, 16) > 0x10ffff) throw new Error(`invalid string ${text}`);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += 2 + width;
    } else if (e !== undefined && e >= "0" && e <= "7") {
      const oct = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw new Error(`invalid string ${text}`);
      out += String.fromCharCode(parseInt(oct, 8));
      i += 4;
    } else throw new Error(`invalid string ${text}`);
  }
  return out;
}

/** The text of a heredoc: the lines between its anchors (`<<-` strips the closing line's indentation). */
export function heredocText(text: string): string {
  const firstBreak = text.indexOf("\n");
  if (text[2] !== "-") return text.slice(firstBreak + 1, text.length - firstBreak + 1);
  const lines = text.slice(firstBreak + 1, text.length - firstBreak + 2).split("\n");
  const indent = lines[lines.length - 1];
  if (!lines.every((l) => l.startsWith(indent))) return text.slice(firstBreak + 1, text.length - firstBreak + 1).replace(/[ \t]+$/, "");
  return lines.map((l, k) => (k === lines.length - 1 ? "" : l.slice(indent.length))).join("\n");
}

/** The string a literal decodes to where the service wants a string, or undefined (booleans, floats). */
export function literalString(node: HclLiteral): string | undefined {
  switch (node.type) {
    case "NUMBER":
      return node.text;
    case "STRING":
      return node.text === "" ? "" : unquote(node.text, node.json);
    case "HEREDOC":
      return heredocText(node.text);
    default:
      return undefined;
  }
}

const keyOf = (token: Token, json = false): HclKey => ({
  text: token.text,
  value: token.type === "STRING" ? unquote(token.text, json) : token.text,
  pos: token.pos,
});

// ---------------------------------------------------------------------------------------------
// HCL parser.

/** Signals the end of the input where the grammar lets a list of items stop. */
class EndOfInput {}

class HclParser {
  private readonly scanner: Scanner;
  private token: Token = { type: "EOF", text: "", pos: { line: 1, column: 1 } };
  private buffered = false;

  constructor(src: string) {
    this.scanner = new Scanner(src, false);
  }

  document(): HclItem[] {
    let items: HclItem[] | undefined;
    let failure: unknown;
    try {
      items = this.objectList(false);
    } catch (e) {
      failure = e;
    }
    if (this.scanner.error) throw this.scanner.error;
    if (failure) throw failure;
    return items!;
  }

  private scan(): Token {
    if (this.buffered) {
      this.buffered = false;
      return this.token;
    }
    do this.token = this.scanner.scan();
    while (this.token.type === "COMMENT");
    return this.token;
  }

  private unscan(): void {
    this.buffered = true;
  }

  private objectList(inObject: boolean): HclItem[] {
    const items: HclItem[] = [];
    const assigned = new Set<string>();
    for (;;) {
      if (inObject) {
        const next = this.scan();
        this.unscan();
        if (next.type === "RBRACE") break;
      }
      let item: HclItem;
      try {
        item = this.objectItem();
      } catch (e) {
        if (e instanceof EndOfInput) break;
        throw e;
      }
      if (item.assign) {
        for (const key of item.keys) {
          if (assigned.has(key.text)) {
            throw new HclSyntaxError(key.pos, `the argument ${JSON.stringify(key.text)} was already set: each argument can only be defined once`);
          }
          assigned.add(key.text);
        }
      }
      items.push(item);
      if (this.scan().type !== "COMMA") this.unscan();
    }
    return items;
  }

  private objectItem(): HclItem {
    const keys: HclKey[] = [];
    let ended: "assign" | "lbrace" | "eof" | "rbrace" | undefined;
    for (;;) {
      const t = this.scan();
      if (t.type === "EOF") {
        if (keys.length === 0) throw new EndOfInput();
        ended = "eof";
        break;
      }
      if (t.type === "ASSIGN") {
        if (keys.length > 1) throw new HclSyntaxError(t.pos, "nested object expected: LBRACE got: ASSIGN");
        if (keys.length === 0) throw new HclSyntaxError(t.pos, "no object keys found!");
        ended = "assign";
        break;
      }
      if (t.type === "LBRACE") {
        if (keys.length === 0) throw new HclSyntaxError(t.pos, "expected: IDENT | STRING got: LBRACE");
        ended = "lbrace";
        break;
      }
      if (t.type === "IDENT" || t.type === "STRING") {
        keys.push(keyOf(t));
        continue;
      }
      if (keys.length > 0 && t.type === "RBRACE") {
        ended = "rbrace";
        break;
      }
      if (t.type === "ILLEGAL") throw new HclSyntaxError(t.pos, "illegal character");
      throw new HclSyntaxError(t.pos, `expected: IDENT | STRING | ASSIGN | LBRACE got: ${t.type}`);
    }
    if (ended === "assign") {
      const assign = this.token.pos;
      return { keys, assign, value: this.value() };
    }
    if (ended === "lbrace") return { keys, value: this.objectType() };
    throw new HclSyntaxError(this.token.pos, `key '${keys.map((k) => k.text).join(" ")}' expected start of object ('{') or assignment ('=')`);
  }

  private value(): HclNode {
    const t = this.scan();
    switch (t.type) {
      case "NUMBER":
      case "FLOAT":
      case "BOOL":
      case "STRING":
      case "HEREDOC":
        return { kind: "literal", type: t.type, text: t.text, pos: t.pos };
      case "LBRACE":
        return this.objectType();
      case "LBRACK":
        return this.listType();
      case "EOF":
        throw new EndOfInput();
      default:
        throw new HclSyntaxError(t.pos, `unexpected ${describe(t)}: expected a value`);
    }
  }

  private objectType(): HclObject {
    const pos = this.token.pos;
    const items = this.objectList(true);
    const close = this.scan();
    if (close.type !== "RBRACE") throw new HclSyntaxError(close.pos, `object expected closing RBRACE got: ${close.type}`);
    return { kind: "object", items, pos };
  }

  private listType(): HclList {
    const pos = this.token.pos;
    const items: HclNode[] = [];
    let needComma = false;
    for (;;) {
      const t = this.scan();
      if (needComma && t.type !== "COMMA" && t.type !== "RBRACK") {
        throw new HclSyntaxError(t.pos, `error parsing list, expected comma or list end, got: ${t.type}`);
      }
      switch (t.type) {
        case "BOOL":
        case "NUMBER":
        case "FLOAT":
        case "STRING":
        case "HEREDOC":
          items.push({ kind: "literal", type: t.type, text: t.text, pos: t.pos });
          needComma = true;
          break;
        case "COMMA":
          needComma = false;
          break;
        case "LBRACE":
          items.push(this.objectType());
          needComma = true;
          break;
        case "LBRACK":
          items.push(this.listType());
          break;
        case "RBRACK":
          return { kind: "list", items, pos };
        default:
          throw new HclSyntaxError(t.pos, `unexpected token while parsing list: ${t.type}`);
      }
    }
  }
}

function describe(t: Token): string {
  return t.type === "EOF" ? "end of document" : `${t.type} ${JSON.stringify(t.text)}`;
}

// ---------------------------------------------------------------------------------------------
// JSON parser (HCL 1's own: lenient in the ways the module comment lists).

class JsonParser {
  private readonly scanner: Scanner;
  private token: Token = { type: "EOF", text: "", pos: { line: 1, column: 1 } };

  constructor(src: string) {
    this.scanner = new Scanner(src, true);
  }

  document(): HclItem[] {
    let root: HclObject | undefined;
    let failure: unknown;
    try {
      const t = this.scan();
      if (t.type === "LBRACE") root = this.objectType();
      else if (t.type !== "EOF") throw new HclSyntaxError(t.pos, `expected an object, got ${describe(t)}`);
    } catch (e) {
      failure = e;
    }
    if (this.scanner.error) throw this.scanner.error;
    if (failure) throw failure;
    if (!root) throw new HclSyntaxError(undefined, "EOF token found");
    return flatten(root.items);
  }

  private scan(): Token {
    this.token = this.scanner.scan();
    return this.token;
  }

  /** Go's JSON reader forgives any error met on a closing brace, keeping the items read before it. */
  private objectType(): HclObject {
    const pos = this.token.pos;
    const items: HclItem[] = [];
    try {
      for (;;) {
        const item = this.objectItem();
        if (!item) break;
        items.push(item);
        if (this.scan().type !== "COMMA") break;
      }
    } catch (e) {
      if (!(e instanceof HclSyntaxError) || this.token.type !== "RBRACE") throw e;
    }
    return { kind: "object", items, pos };
  }

  private objectItem(): HclItem | undefined {
    const keys: HclKey[] = [];
    for (;;) {
      const t = this.scan();
      if (t.type === "EOF") return undefined;
      if (t.type === "STRING") {
        keys.push(keyOf(t, true));
        continue;
      }
      if (t.type === "COLON" && keys.length > 0) break;
      throw new HclSyntaxError(t.pos, t.type === "ILLEGAL" ? "illegal" : `expected: STRING got: ${t.type}`);
    }
    const assign = this.token.pos;
    const value = this.value();
    return value && { keys, assign, value };
  }

  private value(): HclNode | undefined {
    const t = this.scan();
    switch (t.type) {
      case "NUMBER":
      case "FLOAT":
      case "BOOL":
      case "STRING":
        return { kind: "literal", type: t.type, text: t.text, json: t.type === "STRING", pos: t.pos };
      case "NULL":
        return { kind: "literal", type: "STRING", text: "", pos: t.pos };
      case "LBRACE":
        return this.objectType();
      case "LBRACK":
        return this.listType();
      case "EOF":
        return undefined;
      default:
        throw new HclSyntaxError(t.pos, `expected a value, got ${describe(t)}`);
    }
  }

  private listType(): HclList {
    const pos = this.token.pos;
    const items: HclNode[] = [];
    for (;;) {
      const t = this.scan();
      switch (t.type) {
        case "NUMBER":
        case "FLOAT":
        case "STRING":
          items.push({ kind: "literal", type: t.type, text: t.text, json: t.type === "STRING", pos: t.pos });
          break;
        case "LBRACE":
          items.push(this.objectType());
          break;
        case "COMMA":
        case "BOOL":
        case "LBRACK":
          break;
        case "RBRACK":
          return { kind: "list", items, pos };
        default:
          throw new HclSyntaxError(t.pos, `unexpected token while parsing list: ${t.type}`);
      }
    }
  }
}

/**
 * JSON's nested objects as HCL blocks: an item whose value is a non-empty object of objects (or a
 * non-empty list of objects) becomes one item per member, its keys extended, recursively.
 */
function flatten(items: HclItem[]): HclItem[] {
  const out: HclItem[] = [];
  const expand = (item: HclItem): void => {
    const v = item.value;
    if (v.kind === "object" && v.items.length > 0 && v.items.every((sub) => sub.value.kind === "object")) {
      for (const sub of v.items) expand({ keys: [...item.keys, ...sub.keys], assign: item.assign, value: sub.value });
      return;
    }
    if (v.kind === "list" && v.items.length > 0 && v.items.every((e) => e.kind === "object")) {
      for (const e of v.items) expand({ keys: item.keys, assign: item.assign, value: e });
      return;
    }
    out.push({ ...item, value: flattenValue(v) });
  };
  for (const item of items) expand(item);
  return out;
}

function flattenValue(node: HclNode): HclNode {
  if (node.kind === "object") return { ...node, items: flatten(node.items) };
  if (node.kind === "list") return { ...node, items: node.items.map(flattenValue) };
  return node;
}
