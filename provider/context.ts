/**
 * What an operation of a resource spec gets: the clients of the services, built lazily from the
 * configuration the provider host received, the local settings (stack config and environment, for
 * secrets given by reference), and a way to tell the user something.
 */
import { ConfigLookup, resolveServiceConfig, ServiceConfig } from "./config";
import type { ServiceModule, SettingNames } from "./config";
import type { KeepClient } from "./keep-client";
import type { WorkspacesClient } from "./workspaces-client";
import type { MeshClient } from "./mesh-client";

export interface OperationContext {
  /** Connection settings of a service; `cluster` names a connection other than the default one. */
  config(service: ServiceModule, cluster?: string): ServiceConfig;
  keep(cluster?: string): KeepClient;
  workspaces(): WorkspacesClient;
  mesh(): MeshClient;
  /** A raw stack config value (`keep:token`, `app:dbPassword`); no service is called. */
  configValue(key: string): string | undefined;
  /** An environment variable of the provider host (the `pulumi` process's environment). */
  envValue(name: string): string | undefined;
  /** A message for the user, shown in the engine's log. */
  warn(message: string): void;
  /** Information for the user (an operation that found nothing to do, a configuration left in place). */
  info(message: string): void;
  /**
   * A changed service address replaces the resources (the plugin's `DiffConfig` asks the engine to),
   * so a check lets it pass; the dynamic door has no such step, and refuses it instead.
   */
  addressChangeReplaces?: boolean;
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

/** Where a context's messages go: standard error by default; the plugin sends them to the engine's log. */
export interface MessageSink {
  warn(message: string): void;
  info(message: string): void;
}

const STANDARD_ERROR: MessageSink = {
  warn: (message) => console.error(`warning: ${message}`),
  info: (message) => console.error(message),
};

/** Clients are kept per configuration so keep-alive connections are reused across operations. */
/** `names`: how the door whose context this is names the settings in its messages. */
export function createContext(lookup: ConfigLookup, env: NodeJS.ProcessEnv = process.env, messages: MessageSink = STANDARD_ERROR, names: SettingNames = "stack"): OperationContext {
  const configs = new Map<string, ServiceConfig>();
  const clients = new Map<string, unknown>();
  const keyOf = (service: ServiceModule, cluster?: string) => (cluster ? `${service}-${cluster}` : service);
  const config = (service: ServiceModule, cluster?: string) => {
    const key = keyOf(service, cluster);
    let c = configs.get(key);
    if (!c) {
      c = resolveServiceConfig(service, lookup, env, cluster, names);
      configs.set(key, c);
    }
    return c;
  };
  const client = <T>(service: ServiceModule, cluster: string | undefined, make: (c: ServiceConfig) => T): T => {
    const key = keyOf(service, cluster);
    let c = clients.get(key) as T | undefined;
    if (!c) {
      c = make(config(service, cluster));
      clients.set(key, c);
    }
    return c;
  };
  return {
    config,
    // Each service's client (and its contract) is loaded when first used: a program of one service's
    // resources does not load the others' in the provider host.
    keep: (cluster) => client("keep", cluster, (c) => new (require("./keep-client") as typeof import("./keep-client")).KeepClient(c, messages.info)),
    workspaces: () => client("workspaces", undefined, (c) => new (require("./workspaces-client") as typeof import("./workspaces-client")).WorkspacesClient(c, messages.info)),
    mesh: () => client("mesh", undefined, (c) => new (require("./mesh-client") as typeof import("./mesh-client")).MeshClient(c, messages.info)),
    configValue: (key) => lookup(key),
    envValue: (name) => env[name],
    warn: (message) => messages.warn(message),
    info: (message) => messages.info(message),
  };
}
