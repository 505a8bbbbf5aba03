/**
 * Durations as the secrets service reads them: a number of seconds, a Go duration string ("90s",
 * "1h30m", "24h"), or a whole number of days ("365d"). One kind of field takes no days: the
 * cloud-credentials lease configuration, where `h` is the largest unit.
 */

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, "µs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** The largest unit a field takes: `d` (the service's general rule) or `h` (the lease configuration). */
export type LargestUnit = "d" | "h";

/** Seconds of a duration, or undefined when it is not one. */
export function durationSeconds(value: string | number, largest: LargestUnit = "d"): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const days = /^(\d+)d$/.exec(text);
  if (days) return largest === "d" ? Number(days[1]) * 86_400 : undefined;
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * UNIT_SECONDS[m[2]];
  return total;
}
