/**
 * Durations as the secrets service decodes request fields, written from the spec for the emulator
 * alone: a JSON number or a string of digits is whole seconds; otherwise a Go duration ("90s",
 * "1h30m", "1.5h", "300ms"); and a whole number of days with `d` ("365d") where the field takes
 * days. The cloud-credentials lease configuration is the one place the spec names `h` as the largest
 * suffix, so its fields are read without days.
 */

/** Seconds per unit of Go's `time.ParseDuration`. */
const GO_UNITS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  "\u00b5s": 1e-6,
  "\u03bcs": 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** Go's duration grammar: a sequence of `<decimal><unit>`, or "0" alone; no sign (the service refuses negative durations). */
function goDurationSeconds(text: string): number | undefined {
  if (text === "0") return 0;
  let i = 0;
  let total = 0;
  let terms = 0;
  while (i < text.length) {
    const start = i;
    while (isDigit(text[i])) i++;
    let digits = i - start;
    if (text[i] === ".") {
      i++;
      const fraction = i;
      while (isDigit(text[i])) i++;
      digits += i - fraction;
    }
    if (digits === 0) return undefined;
    const amount = Number(text.slice(start, i));
    const unitStart = i;
    while (i < text.length && !isDigit(text[i]) && text[i] !== ".") i++;
    const unit = GO_UNITS[text.slice(unitStart, i)];
    if (unit === undefined) return undefined;
    total += amount * unit;
    terms++;
  }
  return terms > 0 ? total : undefined;
}

export interface DurationRule {
  /** Whether `<n>d` (whole days) is taken: every duration field but the cloud lease configuration's. */
  days: boolean;
}

/** Whole seconds of a duration field's value, or undefined when the service would refuse it. */
export function parseDuration(value: unknown, rule: DurationRule): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (text === "") return 0;
  if (/^[0-9]+$/.test(text)) return Number(text);
  if (text.endsWith("d")) {
    const days = text.slice(0, -1);
    return rule.days && /^[0-9]+$/.test(days) ? Number(days) * 86_400 : undefined;
  }
  const seconds = goDurationSeconds(text);
  return seconds === undefined ? undefined : Math.floor(seconds);
}

/** A duration as the service writes one back: Go's `Duration.String()` of whole seconds ("1h0m0s", "90s"). */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return "0s";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
