/** The service names attributes in kebab case (`auto-apply`); the package's inputs and outputs are camel case. */

export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** A copy of an object whose keys (at every level) are camel case. */
export function camelKeys<T = Record<string, unknown>>(value: unknown): T {
  if (Array.isArray(value)) return value.map((v) => camelKeys(v)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelCase(k), camelKeys(v)])) as T;
  }
  return value as T;
}

export function has(object: Record<string, unknown> | undefined, key: string): boolean {
  return !!object && Object.prototype.hasOwnProperty.call(object, key);
}
