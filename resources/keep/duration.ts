/**
 * Durations as the secrets service reads them: a number of seconds, a Go duration string ("90s",
 * "1h30m", "24h"), or a whole number of days ("365d"). One kind of field takes no days: the
 * cloud-credentials lease configuration, where `h` is the largest unit.
 */

/** Seconds per unit of Go's `time.ParseDuration` (micro as `us`, `µs` or `μs`). */
const GO_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** The largest unit a field takes: `d` (the service's general rule) or `h` (the lease configuration). */
export type LargestUnit = "d" | "h";

/** Go's `time.ParseDuration`, in seconds: an optional sign, then `<decimal><unit>` terms (`1.5h`, `.5s`), or `0` alone. */
export function goDurationSeconds(text: string): number | undefined {
  const sign = /^[+-]/.test(text) ? text[0] : "";
  const body = text.slice(sign.length);
  if (body === "0") return 0;
  if (body === "") return undefined;
  const term = /(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;
  let total = 0;
  for (let at = 0; at < body.length; at = term.lastIndex) {
    term.lastIndex = at;
    const m = term.exec(body);
    if (!m) return undefined;
    total += Number(m[1]) * GO_UNITS[m[2]];
  }
  return sign === "-" ? -total : total;
}

/** Seconds of a duration, or undefined when it is not one (no negative durations). */
export function durationSeconds(value: string | number, largest: LargestUnit = "d"): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = value.trim();
  // The service reads an empty duration as 0 (unset), as it reads "0".
  if (text === "") return 0;
  if (/^\d+$/.test(text)) return Number(text);
  const days = /^(\d+)d$/.exec(text);
  if (days) return largest === "d" ? Number(days[1]) * 86_400 : undefined;
  return /^[+-]/.test(text) ? undefined : goDurationSeconds(text);
}
