/**
 * Entry point the serialized shim requires inside the provider host process. It keeps the stack
 * configuration the host passed to `configure` (the only place credentials come from, besides the
 * environment) and dispatches each call to the machine of the resource's type token.
 *
 * Today's shim asks for `provider(type)`. `dispatch(type, args)` and `call(type, method, args)`
 * are a stable contract too: the shims in state written by earlier versions of the package call them.
 */
import { ConfigLookup } from "../provider/config";
import { createContext, OperationContext } from "../provider/context";
import type { Machine } from "../provider/object-machine";
import { machineOf } from "../provider/machine";
import { shortTypeOf, tokenOfShortType } from "../provider/spec";
import { specOfShortType } from "./catalog";

let lookup: ConfigLookup = () => undefined;
let context: OperationContext | undefined;
/** Machines by short type, made on first use: the host loads only the modules of the types it is asked about. */
const machines = new Map<string, Machine>();

const currentContext = () => (context ??= createContext(lookup));

export function configure(req: { config: { get(key: string): string | undefined } }): void {
  lookup = (key) => {
    const value = req.config.get(key);
    return value === undefined || value === null ? undefined : String(value);
  };
  context = undefined;
}

function machineFor(given: string): Machine {
  // Shims of earlier versions pass the full token; today's, the short type.
  const type = shortTypeOf(given);
  let machine = machines.get(type);
  if (!machine) {
    const spec = specOfShortType(type);
    if (!spec) {
      throw new Error(`${tokenOfShortType(type)} is not a resource type of the installed pulumi-keepstack: install the version that wrote this state, or a newer one`);
    }
    machine = machineOf(spec, currentContext);
    machines.set(type, machine);
  }
  return machine;
}

type Method = "check" | "diff" | "create" | "read" | "update" | "delete";

type Props = Record<string, unknown>;

/**
 * The provider object the host asks a type's shim for. Its answers are the machine's; declared
 * plainly, so this module's declarations name no schema library (a program checks them).
 */
export interface HostProvider {
  configure: typeof configure;
  check(olds: Props, news: Props): Promise<unknown>;
  diff(id: string, olds: Props, news: Props): Promise<unknown>;
  create(inputs: Props): Promise<unknown>;
  read(id: string, props: Props): Promise<unknown>;
  update(id: string, olds: Props, news: Props): Promise<unknown>;
  delete(id: string, props: Props): Promise<unknown>;
}

const providers = new Map<string, HostProvider>();

/** The provider object of a type, as today's shim asks for it: one per type, its machine made on first use. */
export function provider(type: string): HostProvider {
  let found = providers.get(type);
  if (!found) {
    found = {
      configure,
      check: (olds: Props, news: Props) => machineFor(type).check(olds, news),
      diff: (id: string, olds: Props, news: Props) => machineFor(type).diff(id, olds, news),
      create: (inputs: Props) => machineFor(type).create(inputs),
      read: (id: string, props: Props) => machineFor(type).read(id, props),
      update: (id: string, olds: Props, news: Props) => machineFor(type).update(id, olds, news),
      delete: (id: string, props: Props) => machineFor(type).delete(id, props),
    };
    providers.set(type, found);
  }
  return found;
}

export async function call(type: string, method: Method, args: unknown[]): Promise<unknown> {
  const machine = machineFor(type);
  const fn = machine[method] as (...a: unknown[]) => Promise<unknown>;
  if (typeof fn !== "function") throw new Error(`${type}: unknown provider method ${method}`);
  return fn.apply(machine, args);
}

function isConfigureRequest(value: unknown): value is Parameters<typeof configure>[0] {
  const config = (value as { config?: { get?: unknown } } | undefined)?.config;
  return typeof config?.get === "function";
}

/**
 * The shim's shared function for configure, check, create and read, told apart by their arguments:
 * configure gets a request whose `config` has a `get` function; read gets an ID (a string) first;
 * check gets two property bags; create gets one. Properties arriving from the engine are plain data.
 */
export async function dispatch(type: string, args: unknown[]): Promise<unknown> {
  if (isConfigureRequest(args[0])) return configure(args[0]);
  if (typeof args[0] === "string") return call(type, "read", args);
  return call(type, args.length >= 2 ? "check" : "create", args);
}
