/**
 * Readers for request-body fields of the secrets service emulator. They decode as the service's
 * field decoder does, weakly, because independent clients rely on it: a boolean may come as
 * "true"/"false" (or "1"/"0", "t"/"f"), an integer as "10", a list as a comma-separated string,
 * a string as a number or boolean. Errors name the field.
 */
import { DurationRule, parseDuration } from "./durations";
import { badRequest } from "./replies";

export type RequestBody = Record<string, unknown>;

const absent = (value: unknown) => value === undefined || value === null || value === "";

/** A string field; `required` rejects absent and empty values as the service does. */
export function readString(body: RequestBody, field: string, options: { required: true }): string;
export function readString(body: RequestBody, field: string, options?: { required?: false }): string | undefined;
export function readString(body: RequestBody, field: string, options: { required?: boolean } = {}): string | undefined {
  const value = body[field];
  if (absent(value)) {
    if (options.required) throw badRequest(`'${field}' parameter not supplied or empty`);
    return undefined;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string") throw badRequest(`'${field}' must be a string`);
  return value;
}

/**
 * A list field given as a comma-separated string or an array of strings; items are trimmed and
 * empty ones dropped. Returns undefined when the field is absent.
 */
export function readStringList(body: RequestBody, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  let items: unknown[];
  if (typeof value === "string") items = value.split(",");
  else if (Array.isArray(value)) items = value;
  else throw badRequest(`'${field}' must be a comma-separated string or an array of strings`);
  return items
    .map((item) => {
      if (typeof item === "number" || typeof item === "boolean") return String(item);
      if (typeof item !== "string") throw badRequest(`'${field}' must contain only strings`);
      return item.trim();
    })
    .filter((item) => item !== "");
}

/** Spellings of a boolean the service's decoder takes from a string (Go's `strconv.ParseBool`). */
const BOOLEAN_WORDS: Record<string, boolean> = {
  "1": true, t: true, T: true, true: true, TRUE: true, True: true,
  "0": false, f: false, F: false, false: false, FALSE: false, False: false,
};

/** A boolean field: a JSON boolean, a number (non-zero is true) or one of `strconv.ParseBool`'s words. */
export function readBool(body: RequestBody, field: string): boolean | undefined {
  const value = body[field];
  if (absent(value)) return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  if (typeof value === "string" && value in BOOLEAN_WORDS) return BOOLEAN_WORDS[value];
  throw badRequest(`'${field}' must be a boolean: ${JSON.stringify(value)}`);
}

/** An integer field: a JSON number or a string of one ("10", "-1"); `min` bounds it. */
export function readInteger(body: RequestBody, field: string, options: { min?: number } = {}): number | undefined {
  const value = body[field];
  if (absent(value)) return undefined;
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n)) throw badRequest(`'${field}' must be an integer: ${JSON.stringify(value)}`);
  if (options.min !== undefined && n < options.min) throw badRequest(`'${field}' must be at least ${options.min}: ${n}`);
  return n;
}

/** A duration field in whole seconds (see `parseDuration` for what each rule takes). */
export function readDuration(body: RequestBody, field: string, rule: DurationRule = { days: true }): number | undefined {
  const value = body[field];
  if (absent(value)) return undefined;
  const seconds = parseDuration(value, rule);
  if (seconds === undefined) {
    const units = rule.days ? "seconds, a Go duration such as \"90m\", or days such as \"30d\"" : "seconds or a Go duration such as \"90m\" ('h' is the largest unit)";
    throw badRequest(`invalid ${field}: ${JSON.stringify(value)} is not a duration (${units})`);
  }
  return seconds;
}

/** One of a fixed set of values. */
export function readEnum<T extends string>(
  body: RequestBody,
  field: string,
  allowed: readonly T[],
  options: { required: true },
): T;
export function readEnum<T extends string>(
  body: RequestBody,
  field: string,
  allowed: readonly T[],
  options?: { required?: false },
): T | undefined;
export function readEnum<T extends string>(
  body: RequestBody,
  field: string,
  allowed: readonly T[],
  options: { required?: boolean } = {},
): T | undefined {
  const value = options.required ? readString(body, field, { required: true }) : readString(body, field);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw badRequest(`invalid '${field}' "${value}": must be one of ${allowed.join(", ")}`);
  }
  return value as T;
}
