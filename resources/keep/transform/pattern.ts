/**
 * Template patterns of the transform engine. The service compiles them with an RE2-like dialect
 * (Go's `regexp`): no lookaround, no backreferences, named groups written `(?P<name>...)` or
 * `(?<name>...)`, leading inline flags `(?i)`. Each capture group marks characters that are
 * transformed. Formats (`encode_format`, `decode_formats`) refer to groups as `$1`, `${1}`,
 * `$name` or `${name}`, as Go's `Regexp.Expand` reads them.
 *
 * The provider checks them in preview (no request): a pattern the service would refuse, and a
 * format naming a group the pattern lacks, are refused there.
 */

/** A pattern the service accepts, compiled to its JavaScript equivalent. */
export interface CompiledPattern {
  /** With the `d` flag, so matches carry each group's indices. */
  regex: RegExp;
  /** Number of capture groups. */
  groups: number;
  /** Names of the named groups, in order. */
  names: string[];
}

export class PatternError extends Error {
  override readonly name = "PatternError";
}

const INLINE_FLAGS: Record<string, string> = { i: "i", m: "m", s: "s" };

/** Compiles a pattern of the service's dialect, or throws PatternError saying what it refuses. */
export function compilePattern(pattern: string): CompiledPattern {
  let source = pattern;
  let flags = "d";
  // Go accepts flags at the start as `(?ims)`; JavaScript takes them as regex flags.
  const leading = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (leading) {
    for (const flag of leading[1]) {
      if (!INLINE_FLAGS[flag]) throw new PatternError(`inline flag "${flag}" is not supported (use i, m or s)`);
      if (!flags.includes(flag)) flags += flag;
    }
    source = source.slice(leading[0].length);
  }
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1];
      if (next === undefined) throw new PatternError("ends with a lone backslash");
      if (!inClass && /[1-9]/.test(next)) throw new PatternError(`backreference \\${next} at ${i}: the service's regular expressions have no backreferences`);
      if (!inClass && next === "k" && source[i + 2] === "<") throw new PatternError(`named backreference at ${i}: the service's regular expressions have no backreferences`);
      if (next === "p" || next === "P") flags += flags.includes("u") ? "" : "u";
      out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal in both dialects.
      if (source[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (source[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (c === "(" && source[i + 1] === "?") {
      const rest = source.slice(i + 2);
      if (/^(=|!|<=|<!)/.test(rest)) throw new PatternError(`lookaround at ${i}: the service's regular expressions have no lookahead or lookbehind`);
      if (rest.startsWith(">")) throw new PatternError(`atomic group at ${i}: not part of the service's dialect`);
      const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      if (named) {
        out += `(?<${named[1]}>`;
        i += 1 + named[0].length;
        continue;
      }
      if (rest.startsWith(":")) {
        out += "(?:";
        i += 2;
        continue;
      }
      throw new PatternError(`group syntax "(?${rest.slice(0, 3)}" at ${i} is not supported (inline flags only at the start)`);
    }
    out += c;
  }
  if (inClass) throw new PatternError("has an unterminated character class");
  let regex: RegExp;
  try {
    regex = new RegExp(out, flags);
  } catch (e) {
    throw new PatternError(`does not compile: ${(e as Error).message.replace(/^Invalid regular expression: /, "")}`);
  }
  const probe = new RegExp(`${out}|`, flags.replace("d", "")).exec("")!;
  return { regex, groups: probe.length - 1, names: Object.keys(probe.groups ?? {}) };
}

/** A reference to a group in a format: a number or a name. */
export type GroupRef = number | string;

/** The group references of a format (`$1-$2`, `${last}`), in order; `$$` is a literal dollar. */
export function formatRefs(format: string): GroupRef[] {
  const refs: GroupRef[] = [];
  const re = /\$(?:\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g;
  for (const m of format.matchAll(re)) {
    const name = m[1] ?? m[2];
    if (name === undefined) continue;
    refs.push(/^\d+$/.test(name) ? Number(name) : name);
  }
  return refs;
}

/** References of `format` that `pattern` has no group for. */
export function missingGroups(compiled: CompiledPattern, format: string): GroupRef[] {
  return formatRefs(format).filter((ref) => (typeof ref === "number" ? ref < 1 || ref > compiled.groups : !compiled.names.includes(ref)));
}
