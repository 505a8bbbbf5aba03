/**
 * Connection settings of the three services, read from the stack configuration the provider host
 * passes to `configure` and from the environment of the `pulumi` process. Never captured in the
 * serialized provider, so credentials never reach the state.
 */
import * as fs from "node:fs";
import { ConfigError } from "./errors";

/** The three services, by the module name their settings and type tokens use. */
export type ServiceModule = "keep" | "workspaces" | "mesh";

/**
 * How a door names the settings in its messages: the stack config keys the dynamic resources read
 * (`keep:token`), or the provider plugin's (`keepstack:keepToken`). Both come from `SETTINGS`.
 */
export type SettingNames = "stack" | "plugin";

export interface ServiceConfig {
  service: ServiceModule;
  /** Named cluster (`keep-dr:` settings) or undefined for the default connection. */
  cluster?: string;
  address: string;
  token?: string;
  /** Secrets and mesh services: default namespace. */
  namespace?: string;
  /** Workspace service: default organization. */
  organization?: string;
  /** Mesh service: default admin partition. */
  partition?: string;
  /** PEM text of extra trusted CA certificates. */
  caCert?: string;
  skipTlsVerify: boolean;
  maxRetries: number;
  retryBaseDelayMs: number;
  timeoutMs: number;
  /** Secrets service: send `X-Keep-Request: true` (required behind proxies with require_request_header). */
  requestHeader: boolean;
  /** Addresses the same cluster was reached at before: objects recorded there are this cluster's. */
  previousAddresses: string[];
  /** How messages about these settings name them (the door that read them). */
  names: SettingNames;
}

/** A setting: its stack config key (under the service prefix), its environment variable, its default. */
export interface Setting {
  key: string;
  env?: string;
  default?: string;
  description: string;
  /** What the value reads as (default: a string); the plugin's schema and `CheckConfig` type it so. */
  type?: "boolean" | "integer" | "number";
  /** A credential: kept secret, never shown. */
  secret?: boolean;
  /**
   * Tuning shared by every named cluster of the service: a cluster without its own value takes the
   * default connection's. Connection settings (address, token, namespace, TLS) never fall back.
   */
  shared?: boolean;
}

const common = (prefix: string): Setting[] => [
  {
    key: "previousAddresses",
    env: `${prefix}_PREVIOUS_ADDRS`,
    description: "addresses the same cluster was reached at before, comma-separated: objects made there are taken as this cluster's when the address changes (otherwise a changed address is refused, or replaces them through the plugin)",
  },
  { key: "caCert", env: `${prefix}_CACERT`, description: "PEM text, or path to a PEM file, of CA certificates to trust" },
  { key: "skipTlsVerify", env: `${prefix}_SKIP_VERIFY`, default: "false", type: "boolean", description: "disable TLS certificate verification (only when asked)" },
  { key: "maxRetries", env: `${prefix}_MAX_RETRIES`, default: "4", shared: true, type: "integer", description: "retries of 412 and 5xx answers, resets and timeouts (429 answers have their own budget of at least 30)" },
  { key: "retryBaseDelayMs", env: `${prefix}_RETRY_BASE_MS`, default: "250", shared: true, type: "number", description: "first retry delay; doubles each retry, with jitter; Retry-After wins when longer" },
  { key: "timeoutSeconds", env: `${prefix}_TIMEOUT`, default: "60", shared: true, type: "number", description: "timeout of one request attempt" },
];

/** The configuration table of every service; the README renders the same facts. */
export const SETTINGS: Record<ServiceModule, Setting[]> = {
  keep: [
    { key: "address", env: "KEEP_ADDR", default: "https://127.0.0.1:8200", description: "base URL of the secrets service" },
    { key: "token", env: "KEEP_TOKEN", secret: true, description: "token sent as X-Keep-Token (secret)" },
    { key: "namespace", env: "KEEP_NAMESPACE", description: "namespace sent as X-Keep-Namespace" },
    ...common("KEEP"),
    { key: "requestHeader", default: "false", shared: true, type: "boolean", description: "send X-Keep-Request: true on every request" },
  ],
  workspaces: [
    { key: "address", env: "WORKSPACES_ADDR", description: "base URL of the workspace service (required)" },
    { key: "token", env: "WORKSPACES_TOKEN", secret: true, description: "token sent as Authorization: Bearer (secret)" },
    { key: "organization", env: "WORKSPACES_ORGANIZATION", description: "default organization" },
    ...common("WORKSPACES"),
  ],
  mesh: [
    { key: "address", env: "MESH_HTTP_ADDR", default: "http://127.0.0.1:8500", description: "base URL of the mesh service" },
    { key: "token", env: "MESH_HTTP_TOKEN", secret: true, description: "token sent as X-Mesh-Token (secret)" },
    { key: "namespace", env: "MESH_NAMESPACE", description: "default namespace" },
    { key: "partition", env: "MESH_PARTITION", description: "default admin partition" },
    ...common("MESH"),
  ],
};

/** Reads one stack config key such as `keep:address`. */
export type ConfigLookup = (key: string) => string | undefined;

function parseBoolean(value: string, name: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no|)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}"`, name.split(" ")[0]);
}

function parseNumber(value: string, name: string, min: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new ConfigError(`${name} must be a number >= ${min}, got "${value}"`, name.split(" ")[0]);
  return n;
}

/** A CA given as PEM text is used as is; anything else is a path to a PEM file. */
function loadCa(value: string, name: string): string {
  if (value.includes("-----BEGIN")) return value;
  try {
    return fs.readFileSync(value, "utf8");
  } catch (e) {
    throw new ConfigError(`${name}: cannot read CA file ${value}: ${(e as Error).message}`, name.split(" ")[0]);
  }
}

/** A cluster name: lower-case letters, digits and dashes; it names `<service>-<cluster>:` settings. */
export const CLUSTER_NAME = /^[a-z][a-z0-9-]*$/;

/** The config prefix of a connection: `keep`, or `keep-dr` for the cluster `dr`. */
export function configPrefix(service: ServiceModule, cluster?: string): string {
  return cluster ? `${service}-${cluster}` : service;
}

/** The environment variable of a setting for a cluster: `KEEP_ADDR` becomes `KEEP_DR_ADDR`. */
export function envName(env: string, cluster?: string): string {
  if (!cluster) return env;
  const head = env.split("_")[0];
  return `${head}_${cluster.toUpperCase().replace(/-/g, "_")}${env.slice(head.length)}`;
}

/** What an address of each service looks like, for messages. */
const EXAMPLE_ADDRESS: Record<ServiceModule, string> = {
  keep: "https://keep.example.com:8200",
  workspaces: "https://workspaces.example.com",
  mesh: "https://mesh.example.com:8501",
};

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\/[^/\s]/i.test(text)) return false;
  try {
    return Boolean(new URL(text).hostname);
  } catch {
    return false;
  }
}

export function resolveServiceConfig(
  service: ServiceModule,
  lookup: ConfigLookup,
  env: NodeJS.ProcessEnv = process.env,
  cluster?: string,
  names: SettingNames = "stack",
): ServiceConfig {
  const { config, problems } = readServiceConfig(service, lookup, env, cluster, names);
  if (problems.length === 1) throw problems[0];
  // Every bad setting at once: a user fixes them in one round, not one per preview.
  if (problems.length) throw new ConfigError(problems.map((p) => p.message).join("; "), problems[0].setting, problems.every((p) => p.missing));
  return config!;
}

/** Each problem of a service's settings (a missing address among them, marked `missing`), and the settings when there is none. */
export function serviceConfigProblems(service: ServiceModule, lookup: ConfigLookup, env: NodeJS.ProcessEnv = process.env, cluster?: string, names: SettingNames = "stack"): ConfigError[] {
  return readServiceConfig(service, lookup, env, cluster, names).problems;
}

function readServiceConfig(
  service: ServiceModule,
  lookup: ConfigLookup,
  env: NodeJS.ProcessEnv,
  cluster: string | undefined,
  names: SettingNames,
): { config?: ServiceConfig; problems: ConfigError[] } {
  if (cluster !== undefined && !CLUSTER_NAME.test(cluster)) {
    return { problems: [new ConfigError(`cluster "${cluster}" is not a valid cluster name (lower-case letters, digits and dashes)`)] };
  }
  const raw: Record<string, string | undefined> = {};
  const label: Record<string, string> = {};
  // An empty value is no value, in stack config as in the environment: it never hides the other.
  const valueOf = (s: Setting, c?: string): string | undefined => {
    const fromConfig = lookup(`${configPrefix(service, c)}:${s.key}`);
    const fromEnv = s.env ? env[envName(s.env, c)] : undefined;
    return (fromConfig === "" ? undefined : fromConfig) ?? (fromEnv === "" ? undefined : fromEnv);
  };
  for (const s of SETTINGS[service]) {
    // A named cluster has no default address: a missing setting must not reach the default cluster.
    const fallback = cluster && s.key === "address" ? undefined : s.default;
    raw[s.key] = valueOf(s, cluster) ?? (cluster && s.shared ? valueOf(s) : undefined) ?? fallback;
    label[s.key] = settingLabel(service, s.key, cluster, names);
  }
  const problems: ConfigError[] = [];
  /** The value `read` gives, or `fallback` with its problem kept. */
  const read = <T>(fallback: T, read: () => T): T => {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(e);
      return fallback;
    }
  };
  const address = (raw.address ?? "").replace(/\/+$/, "");
  if (!raw.address) {
    const what = cluster ? `cluster "${cluster}"` : service;
    problems.push(new ConfigError(`${what}: no address configured: set ${label.address}`, label.address.split(" ")[0], true));
  } else if (!isHttpUrl(address)) {
    // A host without its scheme is the usual slip: name the URL it meant, when that is one.
    const meant = `https://${address.replace(/^[a-z]+:\/*/i, "")}`;
    const hint = isHttpUrl(meant) ? `: did you mean ${meant}?` : `, such as ${EXAMPLE_ADDRESS[service]}`;
    problems.push(new ConfigError(`${label.address} must be an http:// or https:// URL${hint} (got "${address}")`, label.address.split(" ")[0]));
  }
  const config: ServiceConfig = {
    service,
    cluster,
    address,
    token: raw.token || undefined,
    namespace: raw.namespace || undefined,
    organization: raw.organization || undefined,
    partition: raw.partition || undefined,
    caCert: raw.caCert ? read(undefined, () => loadCa(raw.caCert!, label.caCert)) : undefined,
    skipTlsVerify: read(false, () => parseBoolean(raw.skipTlsVerify ?? "false", label.skipTlsVerify)),
    maxRetries: read(4, () => parseNumber(raw.maxRetries ?? "4", label.maxRetries, 0)),
    retryBaseDelayMs: read(250, () => parseNumber(raw.retryBaseDelayMs ?? "250", label.retryBaseDelayMs, 0)),
    timeoutMs: read(60, () => parseNumber(raw.timeoutSeconds ?? "60", label.timeoutSeconds, 0.001)) * 1000,
    requestHeader: raw.requestHeader ? read(false, () => parseBoolean(raw.requestHeader!, label.requestHeader)) : false,
    previousAddresses: (raw.previousAddresses ?? "").split(",").map((a) => a.trim()).filter(Boolean),
    names,
  };
  return problems.length ? { problems } : { config, problems };
}

/** The provider plugin's package name: its settings are `keepstack:<service><Setting>`. */
export const PLUGIN_PACKAGE = "keepstack";

/** The plugin's name of a service's setting: `keepAddress` for the secrets service's `address`. */
export function pluginSettingName(service: ServiceModule, key: string): string {
  return `${service}${key[0].toUpperCase()}${key.slice(1)}`;
}

/** The label of a setting for messages as a door names it, e.g. `keep:token (or KEEP_TOKEN)`. */
export function settingLabel(service: ServiceModule, key: string, cluster?: string, names: SettingNames = "stack"): string {
  const s = SETTINGS[service].find((x) => x.key === key);
  const env = s?.env ? envName(s.env, cluster) : undefined;
  if (names === "plugin") {
    // The plugin has no keys for named clusters: an explicit provider is its way to a second one.
    if (cluster) return env ? `${env} (the environment), or an explicit keepstack provider` : "an explicit keepstack provider";
    const name = `${PLUGIN_PACKAGE}:${pluginSettingName(service, key)}`;
    return env ? `${name} (or ${env})` : name;
  }
  const name = `${configPrefix(service, cluster)}:${key}`;
  return env ? `${name} (or ${env})` : name;
}

/** An address as the cluster it names: scheme and host in lower case, no default port, no trailing slash. */
export function clusterOfAddress(address: string): string {
  try {
    const url = new URL(address);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`.toLowerCase();
  } catch {
    return address.replace(/\/+$/, "").toLowerCase();
  }
}

/** Whether an address recorded with an object names the cluster a service's settings reach now. */
export function isSameCluster(recorded: string, config: Pick<ServiceConfig, "address" | "previousAddresses">): boolean {
  const cluster = clusterOfAddress(recorded);
  return [config.address, ...config.previousAddresses].some((a) => clusterOfAddress(a) === cluster);
}
