/**
 * Entry point the serialized shim requires inside the provider host process. It keeps the stack
 * configuration the host passed to `configure` (the only place credentials come from, besides the
 * environment) and dispatches each call to the machine of the resource's type token.
 *
 * `configure(req)` and `call(token, method, args)` are a stable contract: state written by every
 * earlier version of the package calls them.
 */
import { ConfigLookup } from "./config";
import { createContext, OperationContext } from "./context";
import { createMachine, Machine } from "./machine";
import { tokenOf } from "./spec";
import { allSpecs } from "../resources/registry";

let lookup: ConfigLookup = () => undefined;
let context: OperationContext | undefined;
let machines: Map<string, Machine> | undefined;

const currentContext = () => (context ??= createContext(lookup));

export function configure(req: { config: { get(key: string): string | undefined } }): void {
  lookup = (key) => {
    const value = req.config.get(key);
    return value === undefined || value === null ? undefined : String(value);
  };
  context = undefined;
}

function machineFor(token: string): Machine {
  if (!machines) {
    machines = new Map();
    for (const spec of allSpecs) machines.set(tokenOf(spec), createMachine(spec, currentContext));
  }
  const machine = machines.get(token);
  if (!machine) {
    throw new Error(`${token} is not a resource type of the installed pulumi-keepstack: install the version that wrote this state, or a newer one`);
  }
  return machine;
}

type Method = "check" | "diff" | "create" | "read" | "update" | "delete";

export async function call(token: string, method: Method, args: unknown[]): Promise<unknown> {
  const machine = machineFor(token);
  const fn = machine[method] as (...a: unknown[]) => Promise<unknown>;
  if (typeof fn !== "function") throw new Error(`${token}: unknown provider method ${method}`);
  return fn.apply(machine, args);
}
