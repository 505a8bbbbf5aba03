/**
 * Template patterns as the transform engine reads them, written for the emulator alone: the service
 * compiles `pattern` with Go's RE2 syntax, so the emulator translates that syntax into a JavaScript
 * regular expression it can run, refusing what RE2 refuses (backreferences, lookaround, unknown
 * escapes, duplicate group names). Capture groups are numbered by their opening parenthesis, as in
 * Go; the emulator keeps the names itself, so a Go name JavaScript would refuse (`(?P<1st>...)`) works.
 *
 * Formats (`encode_format`, `decode_formats`) are Go's `Regexp.Expand` templates: `$1`, `${1}`,
 * `$name`, `${name}`, `$$`; the longest run of word characters after `$` is the name.
 */

export class PatternSyntaxError extends Error {
  override readonly name = "PatternSyntaxError";
}

/** A compiled template pattern. */
export interface GoPattern {
  /** Runs the pattern; with the `d` flag, so a match has each group's indices. */
  regex: RegExp;
  /** Number of capture groups. */
  groups: number;
  /** Group number of each name. */
  names: Map<string, number>;
}

/** POSIX classes RE2 takes inside brackets (`[[:alpha:]]`), as JavaScript class contents. */
const POSIX_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** Perl classes as RE2 defines them: ASCII only (`\s` is not JavaScript's Unicode whitespace). */
const PERL_CLASSES: Record<string, { inside: string; negated: boolean }> = {
  d: { inside: "0-9", negated: false },
  D: { inside: "0-9", negated: true },
  s: { inside: "\\t\\n\\f\\r ", negated: false },
  S: { inside: "\\t\\n\\f\\r ", negated: true },
  w: { inside: "0-9A-Za-z_", negated: false },
  W: { inside: "0-9A-Za-z_", negated: true },
};

/** Single-character escapes RE2 knows, as JavaScript writes them. */
const CHARACTER_ESCAPES: Record<string, string> = { a: "\\x07", f: "\\f", t: "\\t", n: "\\n", r: "\\r", v: "\\v" };

/** Characters with a meaning in a JavaScript pattern (with the `u` flag, only these may be escaped). */
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

/** RE2's flags: case folding, multi-line `^`/`$`, `.` matching `\n`, ungreedy repetitions. */
interface Mode {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

/** The general categories Go's `\p{...}` knows (any other name is a script, or refused). */
const GENERAL_CATEGORIES = /^(Any|C[cfos]?|L[Cl-mo-u]?|L[ltu]|M[cen]?|N[dlo]?|P[cdefios]?|S[ckmo]?|Z[lps]?)$/;

/** The characters a class's contents leave out, as class contents (with the `u` flag). */
function complementOf(inside: string): string {
  const members = new RegExp(`[${inside}]`, "u");
  let out = "";
  for (let code = 0; code < 0x80; code++) if (!members.test(String.fromCharCode(code))) out += hex(code);
  return `${out}\\u0080-\\u{10ffff}`;
}

/** A literal character as JavaScript pattern text, inside or outside a class. */
function literal(c: string, inClass: boolean): string {
  if (JS_SYNTAX.has(c) || (inClass && c === "-")) return `\\${c}`;
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
  return c;
}

const hex = (code: number) => (code <= 0xffff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`);

/**
 * A counted repetition (`{n}`, `{n,m}`, `{n,}`) and the counted repetitions inside what it repeats:
 * what RE2 weighs when it bounds the size of a pattern.
 */
interface CountedRepeat {
  min: number;
  /** Undefined for `{n,}`. */
  max?: number;
  inside: CountedRepeat[];
}

/**
 * RE2's bound on nested counts (Go's `repeatIsValid`): a count takes its share of `n` (1000 at the
 * outermost), what it repeats must fit in what is left (integer division), and `{0}` holds nothing.
 */
function countsFit(repeat: CountedRepeat, n: number): boolean {
  if (repeat.max === 0) return true;
  const m = repeat.max ?? repeat.min;
  if (m > n) return false;
  const left = m > 0 ? Math.floor(n / m) : n;
  return repeat.inside.every((inner) => countsFit(inner, left));
}

class Translator {
  private at = 0;
  /**
   * The counted repetitions at the top level of each open group (the pattern's own first), and how
   * many of those at the end of the current group's list the last operand holds.
   */
  private readonly counted: CountedRepeat[][] = [[]];
  private lastOperandCounts = 0;
  private out = "";
  private groups = 0;
  private readonly names = new Map<string, number>();
  private flags = new Set(["d"]);
  /** What a repetition operator here would repeat: an atom, nothing, or another repetition. */
  private before: "atom" | "nothing" | "repetition" | "repeated" = "nothing";
  /** Where the last operand starts in `out`, and where each open group does. */
  private operandStart = 0;
  private readonly groupStarts: number[] = [];
  /** RE2's flags where the translator stands; a group restores its opener's flags when it closes. */
  private mode: Mode = { i: false, m: false, s: false, U: false };
  private readonly outer: Mode[] = [];

  constructor(private readonly source: string) {}

  translate(): GoPattern {
    let depth = 0;
    while (this.at < this.source.length) {
      const c = this.source[this.at];
      if (c === "(") {
        this.outer.push({ ...this.mode });
        const start = this.out.length;
        if (this.openGroup()) {
          depth++;
          this.groupStarts.push(start);
          this.counted.push([]);
          this.before = "nothing";
        } else {
          // `(?flags)` changes no operand: a repetition after it repeats what came before, even a repetition.
          this.outer.pop();
          if (this.before === "repetition") this.before = "repeated";
        }
        continue;
      }
      if (c === "|") {
        this.out += "|";
        this.at++;
        this.before = "nothing";
        continue;
      }
      if (c === "*" || c === "+" || c === "?") {
        this.repeat(c);
        continue;
      }
      if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
        if (m) {
          const min = Number(m[1]);
          const max = m[2] ? (m[3] ? Number(m[3]) : undefined) : min;
          if (min > 1000 || (max !== undefined && (max > 1000 || max < min))) this.fail(`invalid repeat count: ${m[0]}`);
          this.repeat(m[0]);
          // What it repeats leaves the group's list for the new count's.
          const level = this.counted[this.counted.length - 1];
          const repeat: CountedRepeat = { min, max, inside: level.splice(level.length - this.lastOperandCounts) };
          if ((min >= 2 || (max ?? 0) >= 2) && !countsFit(repeat, 1000)) this.fail(`invalid repeat count: ${m[0]}`);
          level.push(repeat);
          this.lastOperandCounts = 1;
          continue;
        }
      }
      if (c === ")") {
        if (depth === 0) this.fail("unexpected )");
        depth--;
        // An uncounted group holds its counts for whoever repeats it next; else they stay where they are.
        const inner = this.counted.pop()!;
        this.counted[this.counted.length - 1].push(...inner);
        this.lastOperandCounts = inner.length;
        this.mode = this.outer.pop()!;
        this.out += ")";
        this.at++;
        this.operandStart = this.groupStarts.pop()!;
        this.before = "atom";
        continue;
      }
      this.operandStart = this.out.length;
      this.lastOperandCounts = 0;
      if (c === "\\") this.out += this.escape(false);
      else if (c === "[") this.out += this.characterClass();
      else if (c === "." || c === "^" || c === "$") {
        // Written out, so each part of the pattern keeps the flags in force where it stands.
        // Assertions sit in a group: RE2 lets them be repeated (`^+`), JavaScript only a group of them.
        if (c === ".") this.out += this.mode.s ? "[\\s\\S]" : "[^\\n]";
        else if (c === "^") this.out += this.mode.m ? "(?:(?<![^\\n]))" : "(?:(?<![\\s\\S]))";
        else this.out += this.mode.m ? "(?:(?![^\\n]))" : "(?:(?![\\s\\S]))";
        this.at++;
      } else {
        // Braces that start no repetition, and a stray `]` or `}`, are literals in RE2.
        this.out += this.folded(c, false);
        this.at += c.length;
      }
      this.before = "atom";
    }
    if (depth > 0) this.fail("missing closing )");
    let regex: RegExp;
    try {
      regex = new RegExp(this.out, [...this.flags].join(""));
    } catch (e) {
      this.fail((e as Error).message.replace(/^Invalid regular expression: /, ""));
    }
    return { regex: regex!, groups: this.groups, names: this.names };
  }

  private fail(message: string): never {
    throw new PatternSyntaxError(message);
  }

  /** A literal, matching either case where `i` is in force (RE2's simple case folding). */
  private folded(c: string, inClass: boolean): string {
    const variants = this.mode.i ? [...new Set([c, c.toLowerCase(), c.toUpperCase()])].filter((v) => [...v].length === 1) : [c];
    if (variants.length === 1) return literal(c, inClass);
    const inside = variants.map((v) => literal(v, true)).join("");
    return inClass ? inside : `[${inside}]`;
  }

  /** A repetition operator (`*`, `+`, `?`, `{n,m}`) and its lazy `?`. */
  private repeat(operator: string): void {
    if (this.before === "repetition") this.fail(`invalid nested repetition operator: ${operator}`);
    if (this.before === "nothing") this.fail(`missing argument to repetition operator: ${operator}`);
    if (this.before === "repeated") this.out = `${this.out.slice(0, this.operandStart)}(?:${this.out.slice(this.operandStart)})`;
    this.out += operator;
    this.at += operator.length;
    let lazy = this.source[this.at] === "?";
    if (lazy) this.at++;
    // Under `U` the two forms swap: `a+` is lazy and `a+?` greedy.
    if (this.mode.U) lazy = !lazy;
    if (lazy) this.out += "?";
    this.before = "repetition";
  }

  /** Opens a group at `(`, or applies `(?flags)` to the rest of the current one; false when no group opened. */
  private openGroup(): boolean {
    const rest = this.source.slice(this.at);
    if (!rest.startsWith("(?")) {
      this.groups++;
      this.out += "(";
      this.at++;
      return true;
    }
    const flagged = /^\(\?([imsU]*)(?:(-)([imsU]*))?([:)])/.exec(rest);
    if (flagged && !(flagged[2] && flagged[3] === "")) {
      const mode = { ...this.mode };
      for (const f of flagged[1]) mode[f as keyof Mode] = true;
      for (const f of flagged[3] ?? "") mode[f as keyof Mode] = false;
      this.at += flagged[0].length;
      this.mode = mode;
      if (flagged[4] === ")") return false;
      this.out += "(?:";
      return true;
    }
    const named = /^\(\?P?<([^>]*)>/.exec(rest);
    if (named) {
      const name = named[1];
      if (!/^[A-Za-z0-9_]+$/.test(name)) this.fail(`invalid named capture: ${named[0]}`);
      if (this.names.has(name)) this.fail(`duplicate capture group name: ${name}`);
      this.names.set(name, ++this.groups);
      this.out += "(";
      this.at += named[0].length;
      return true;
    }
    if (/^\(\?(=|!|<=|<!)/.test(rest)) this.fail(`invalid or unsupported Perl syntax: lookaround ${rest.slice(0, 4)}`);
    this.fail(`invalid or unsupported Perl syntax: ${rest.slice(0, 3)}`);
  }

  /** An escape at `this.at` (a backslash), as JavaScript text. */
  private escape(inClass: boolean): string {
    const next = this.source[this.at + 1];
    if (next === undefined) this.fail("trailing backslash at end of expression");
    this.at += 2;
    // `\1` alone would be a backreference, which RE2 has not; followed by an octal digit it is an octal escape, like `\0`.
    if (/[1-7]/.test(next) && !/[0-7]/.test(this.source[this.at] ?? "")) this.fail(`invalid escape sequence: \\${next} (RE2 has no backreferences)`);
    if (/[89]/.test(next)) this.fail(`invalid escape sequence: \\${next}`);
    if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{0,2}/.exec(this.source.slice(this.at))![0];
      this.at += digits.length;
      return hex(parseInt(`${next}${digits}`, 8));
    }
    if (next in CHARACTER_ESCAPES) return CHARACTER_ESCAPES[next];
    if (next in PERL_CLASSES) {
      const perl = PERL_CLASSES[next];
      if (inClass) {
        if (!perl.negated) return perl.inside;
        this.flags.add("u");
        return complementOf(perl.inside);
      }
      return `[${perl.negated ? "^" : ""}${perl.inside}]`;
    }
    if (next === "x") {
      const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(this.source.slice(this.at));
      const plain = /^[0-9A-Fa-f]{2}/.exec(this.source.slice(this.at));
      const digits = braced?.[1] ?? plain?.[0];
      if (!digits) this.fail("invalid escape sequence: \\x");
      this.at += (braced ?? plain)![0].length;
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) this.fail(`invalid escape sequence: \\x{${digits}}`);
      if (code > 0xffff) this.flags.add("u");
      return hex(code);
    }
    if (next === "p" || next === "P") {
      const braced = /^\{\^?([A-Za-z_]+)\}/.exec(this.source.slice(this.at));
      const single = /^[A-Za-z]/.exec(this.source.slice(this.at));
      const name = braced?.[1] ?? single?.[0];
      if (!name) this.fail(`invalid character class range: \\${next}`);
      this.at += (braced ?? single)![0].length;
      this.flags.add("u");
      const negated = (next === "P") !== Boolean(braced?.[0].startsWith("{^"));
      // Go takes general categories and script names alike; JavaScript names a script as such.
      const property = GENERAL_CATEGORIES.test(name) ? name : `Script=${name}`;
      return `\\${negated ? "P" : "p"}{${property}}`;
    }
    if (!inClass && (next === "b" || next === "B")) return `(?:\\${next})`;
    if (!inClass && next === "A") return "(?:(?<![\\s\\S]))";
    if (!inClass && next === "z") return "(?:(?![\\s\\S]))";
    if (!inClass && next === "Q") {
      const end = this.source.indexOf("\\E", this.at);
      const quoted = this.source.slice(this.at, end < 0 ? undefined : end);
      this.at = end < 0 ? this.source.length : end + 2;
      return [...quoted].map((c) => literal(c, false)).join("");
    }
    // RE2 lets any punctuation be escaped to stand for itself; letters and digits it does not know are errors.
    if (!/^[!-/:-@[-`{-~]$/.test(next)) this.fail(`invalid escape sequence: \\${next}`);
    return literal(next, inClass);
  }

  /** A bracket expression, as JavaScript class text. */
  private characterClass(): string {
    this.at++;
    let text = "[";
    if (this.source[this.at] === "^") {
      text += "^";
      this.at++;
    }
    let first = true;
    /** After a range's `-`: its end is one character, never a named class (`[.-[:a]` ends the range at `[`). */
    let rangeEnd = false;
    for (;;) {
      const c = this.source[this.at];
      if (c === undefined) this.fail("missing closing ]");
      if (c === "]" && !first) {
        this.at++;
        break;
      }
      first = false;
      const endsRange = rangeEnd;
      rangeEnd = false;
      if (c === "[" && !endsRange) {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.source.slice(this.at));
        if (posix) {
          const inside = POSIX_CLASSES[posix[2]];
          if (!inside) this.fail(`invalid character class range: ${posix[0]}`);
          if (posix[1]) this.flags.add("u");
          text += posix[1] ? complementOf(inside) : inside;
          this.at += posix[0].length;
          continue;
        }
      }
      if (c === "\\") {
        text += this.escape(true);
        continue;
      }
      if (c === "-" && this.source[this.at + 1] !== "]" && text !== "[" && text !== "[^") {
        text += "-";
        this.at++;
        rangeEnd = true;
        continue;
      }
      text += this.folded(c, true);
      this.at += c.length;
    }
    if (text === "[" || text === "[^") this.fail("missing closing ]");
    return `${text}]`;
  }
}

/** Compiles a pattern of RE2 syntax, or throws `PatternSyntaxError` with RE2's kind of message. */
export function compileGoPattern(source: string): GoPattern {
  return new Translator(source).translate();
}

/** One piece of an expand template: literal text or a group reference. */
type TemplatePart = { text: string } | { ref: number | string };

/** Splits a `Regexp.Expand` template; a `$` that starts no valid reference is literal text, as in Go. */
function templateParts(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let i = 0;
  let text = "";
  while (i < template.length) {
    const dollar = template.indexOf("$", i);
    if (dollar < 0) {
      text += template.slice(i);
      break;
    }
    text += template.slice(i, dollar);
    i = dollar + 1;
    if (template[i] === "$") {
      text += "$";
      i++;
      continue;
    }
    const braced = template[i] === "{";
    const m = /^[A-Za-z0-9_]+/.exec(template.slice(braced ? i + 1 : i));
    if (!m || (braced && template[i + 1 + m[0].length] !== "}")) {
      text += "$";
      continue;
    }
    if (text) parts.push({ text });
    text = "";
    parts.push({ ref: /^\d+$/.test(m[0]) ? Number(m[0]) : m[0] });
    i += m[0].length + (braced ? 2 : 0);
  }
  if (text) parts.push({ text });
  return parts;
}

/** The group references of a template, in order. */
export function templateReferences(template: string): (number | string)[] {
  return templateParts(template).flatMap((p) => ("ref" in p ? [p.ref] : []));
}

/** References of `template` that name no group of `pattern`. */
export function unknownReferences(pattern: GoPattern, template: string): (number | string)[] {
  return templateReferences(template).filter((ref) => (typeof ref === "number" ? ref < 1 || ref > pattern.groups : !pattern.names.has(ref)));
}

/** The template with each reference replaced by its group's text; a group that is missing or captured nothing gives "". */
export function expandTemplate(pattern: GoPattern, template: string, groupText: (group: number) => string | undefined): string {
  return templateParts(template)
    .map((p) => {
      if ("text" in p) return p.text;
      const group = typeof p.ref === "number" ? p.ref : pattern.names.get(p.ref);
      return group === undefined ? "" : groupText(group) ?? "";
    })
    .join("");
}
