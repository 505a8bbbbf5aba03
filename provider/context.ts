/**
 * What an operation of a resource spec gets: the clients of the services, built lazily from the
 * configuration the provider host received, and a way to tell the user something.
 */
import { ConfigLookup, resolveServiceConfig, ServiceConfig, ServiceName } from "./config";
import { KeepClient } from "./keep-client";
import { WorkspacesClient } from "./workspaces-client";
import { MeshClient } from "./mesh-client";

export interface OperationContext {
  config(service: ServiceName): ServiceConfig;
  keep(): KeepClient;
  workspaces(): WorkspacesClient;
  mesh(): MeshClient;
  /** A message for the user, shown in the engine's log. */
  warn(message: string): void;
}

/**
 * The context of functions called from a Pulumi program (not through the provider host): settings
 * come from the program's stack configuration and environment.
 */
export function programContext(): OperationContext {
  // runtime.getConfig reads the raw value without the warning Config.get gives for secret keys.
  const runtime = require("@pulumi/pulumi").runtime as { getConfig(key: string): string | undefined };
  return createContext((key) => runtime.getConfig(key));
}

/** Clients are kept per configuration so keep-alive connections are reused across operations. */
export function createContext(lookup: ConfigLookup, env: NodeJS.ProcessEnv = process.env): OperationContext {
  const configs = new Map<ServiceName, ServiceConfig>();
  const clients = new Map<ServiceName, unknown>();
  const config = (service: ServiceName) => {
    let c = configs.get(service);
    if (!c) {
      c = resolveServiceConfig(service, lookup, env);
      configs.set(service, c);
    }
    return c;
  };
  const client = <T>(service: ServiceName, make: (c: ServiceConfig) => T): T => {
    let c = clients.get(service) as T | undefined;
    if (!c) {
      c = make(config(service));
      clients.set(service, c);
    }
    return c;
  };
  return {
    config,
    keep: () => client("keep", (c) => new KeepClient(c)),
    workspaces: () => client("workspaces", (c) => new WorkspacesClient(c)),
    mesh: () => client("mesh", (c) => new MeshClient(c)),
    warn: (message) => console.error(`warning: ${message}`),
  };
}
