/** Operation contexts for machine tests. */
import { OperationContext } from "../../provider/context";

/**
 * A context whose service clients throw: anything that reaches a service through it fails the test.
 * Local settings (stack config and environment) come from the maps given.
 */
export function throwingContext(config: Record<string, string> = {}, env: Record<string, string> = {}): OperationContext {
  const refuse = (what: string) => (): never => {
    throw new Error(`${what} was called: check and diff must not reach a service`);
  };
  return {
    config: refuse("config"),
    keep: refuse("keep()"),
    workspaces: refuse("workspaces()"),
    mesh: refuse("mesh()"),
    configValue: (key) => config[key],
    envValue: (name) => env[name],
    warn: () => undefined,
    info: () => undefined,
  };
}
