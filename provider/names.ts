/** The secrets and mesh services name fields in snake case (`max_ttl`); the package's inputs are camel case. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
