/**
 * Readers for request-body fields of the secrets service emulator, applying the service's
 * loose input rules (lists as comma-separated strings or arrays) and naming the field in errors.
 */
import { badRequest } from "./replies";

export type RequestBody = Record<string, unknown>;

/** A string field; `required` rejects absent and empty values as the service does. */
export function readString(body: RequestBody, field: string, options: { required: true }): string;
export function readString(body: RequestBody, field: string, options?: { required?: false }): string | undefined;
export function readString(body: RequestBody, field: string, options: { required?: boolean } = {}): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === "") {
    if (options.required) throw badRequest(`'${field}' parameter not supplied or empty`);
    return undefined;
  }
  // The service's field decoder accepts numbers and booleans for string fields.
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
  return items.map((item) => {
    if (typeof item !== "string") throw badRequest(`'${field}' must contain only strings`);
    return item.trim();
  }).filter((item) => item !== "");
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
