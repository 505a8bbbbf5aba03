/**
 * Template patterns of the transform engine. The service compiles them with Go's `regexp` (RE2
 * syntax: no lookaround, no backreferences, named groups written `(?P<name>...)` or
 * `(?<name>...)`, `\pL`, `\x{41}`, `\Q...\E`, repeats up to 1000). Each capture group marks
 * characters that are transformed. Formats (`encode_format`, `decode_formats`) refer to groups as `$1`, `${1}`,
 * `$name` or `${name}`, as Go's `Regexp.Expand` reads them.
 *
 * The provider checks them in preview (no request): a pattern the service would refuse, and a
 * format naming a group the pattern lacks, are refused there.
 */

/** What preview needs of a pattern the service accepts: its groups. */
export interface CompiledPattern {
  /** Number of capture groups. */
  groups: number;
  /** Names of the named groups, in order. */
  names: string[];
}

export class PatternError extends Error {
  override readonly name = "PatternError";
}

interface Re2 {
  compile(pattern: string): { groupCount(): number; namedGroups(): Record<string, number> };
}
let re2: Re2 | undefined;

/**
 * Reads a pattern with Go's regexp syntax (re2js, a port of Go's parser through RE2/J), or throws
 * PatternError with Go's own message. Loaded on first use: a program without templates never pays for it.
 */
export function compilePattern(pattern: string): CompiledPattern {
  re2 ??= (require("re2js") as { RE2JS: Re2 }).RE2JS;
  try {
    const compiled = re2.compile(pattern);
    const named = Object.entries(compiled.namedGroups()).sort((a, b) => a[1] - b[1]);
    return { groups: compiled.groupCount(), names: named.map(([name]) => name) };
  } catch (e) {
    const message = (e as Error).message.replace(/^error parsing regexp: /, "");
    throw new PatternError(`${message}${hintFor(message)}`);
  }
}

/** What Go's message leaves unsaid for the two features users most often bring from other dialects. */
function hintFor(message: string): string {
  if (/^invalid escape sequence: `\\[1-9]`/.test(message)) return " (the service's regular expressions have no backreferences)";
  if (/`\(\?<?[=!]/.test(message)) return " (the service's regular expressions have no lookahead or lookbehind)";
  return "";
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
