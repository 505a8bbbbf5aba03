/**
 * The three service emulators and one engine harness configured for all of them: a "lane" of the
 * campaigns, which run cases on several lanes at once. Each lane also keeps a census of what the
 * services hold, so a case can tell what it left behind: the workspace and mesh services read over
 * HTTP, the secrets service followed through its change feed (every write and delete it makes).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Engine } from "../../harness";
import { startKeepClusters } from "../../emulator/keep/replication";
import { cloudCredentialsAccess, registerCloudCredentialsEngine } from "../../emulator/keep/cloud-credentials";
import { startMeshEmulator } from "../../emulator/mesh";
import { startWorkspacesEmulator } from "../../emulator/workspaces";
import { pluginSettingName, ServiceModule } from "../../provider/config";
import { createContext, OperationContext } from "../../provider/context";
import { followCensus } from "../support/census";
import { packedInstall } from "../support/packed-install";
import type { ServiceServer } from "../../emulator/common";
import type { SampleEnv } from "../support/samples";

export interface Lane {
  env: SampleEnv;
  engine: Engine;
  /** A context of the provider's own clients on this lane's configuration (for the specs' `list`). */
  context: OperationContext;
  servers: ServiceServer[];
  /** Every credential of the emulators: none may appear in a message, the state or the host's output. */
  secrets: string[];
  /** Keys of every object the services hold now. */
  census(): Promise<Set<string>>;
  /** What the providers printed or logged so far. */
  hostOutput(): string;
  /** The config prefix of each of `servers` (`keep`, `workspaces`, `mesh`, `keep-dr`). */
  servicePrefixes: string[];
  /** The last lines of the engine's progress (steps, and requests still waiting): what a late case was doing. */
  recent(): string[];
  /**
   * Set when a case outlived its deadline: the case may still be running on this lane's engine, so
   * the lane takes no more cases (another would share its state and its services).
   */
  retired: boolean;
  /** Request timeouts (seconds) by config prefix; the others take the lane's own (restarts the provider host). */
  setTimeouts(timeouts: Record<string, number>): Promise<void>;
  close(): Promise<void>;
}

export interface LaneOptions {
  postgresConnectionString: string;
  /** Timeout of one request attempt, in seconds (the campaigns' timeout faults wait past it). */
  timeoutSeconds: number;
}

/** Lines of progress a lane keeps. */
const RECENT_LINES = 8;

export async function startLane(options: LaneOptions): Promise<Lane> {
  const [clusters, workspaces, mesh] = await Promise.all([
    // Cluster "main" is the `keep:` connection; "dr" (`keep-dr:`) is there for replication.
    startKeepClusters(["main", "dr"], { main: { register: registerCloudCredentialsEngine } }),
    // Rate limiting off and uploads processed as they end: the faults are injected, not incidental,
    // and a case sends the same requests however loaded the machine is.
    startWorkspacesEmulator({ rateLimitPerSecond: 0, uploadDelayMs: 0 }),
    startMeshEmulator({ deletionDelayMs: 0 }),
  ]);
  const { main: keep, dr } = clusters.clusters;
  // The cloud provider's eventual consistency is a subject of its own tests, not of the faults.
  cloudCredentialsAccess(keep.state).settings.consistencyWindowMs = 0;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "campaign-"));
  const tuning = (service: string) => ({
    [`${service}:retryBaseDelayMs`]: "2",
    [`${service}:timeoutSeconds`]: String(options.timeoutSeconds),
  });
  const servicePrefixes = ["keep", "workspaces", "mesh", "keep-dr"];
  const config: Record<string, string> = {
    "keep:address": keep.url,
    "keep:token": keep.rootToken,
    ...tuning("keep"),
    "keep-dr:address": dr.url,
    "keep-dr:token": dr.rootToken,
    ...tuning("keep-dr"),
    "workspaces:address": workspaces.url,
    "workspaces:token": workspaces.tokens.user,
    "workspaces:organization": workspaces.organization,
    ...tuning("workspaces"),
    "mesh:address": mesh.url,
    "mesh:token": mesh.rootToken,
    ...tuning("mesh"),
  };
  // The plugin door's settings: the default connection's as `keepstack:` keys, the named cluster "dr"
  // through its environment variables (the plugin has no keys for named clusters).
  const pluginConfig = (from: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(from)
        .filter(([key]) => /^(keep|workspaces|mesh):/.test(key))
        .map(([key, value]) => {
          const [service, setting] = key.split(":");
          return [`keepstack:${pluginSettingName(service as ServiceModule, setting)}`, value];
        }),
    );
  const drEnv = (from: Record<string, string>) => ({
    KEEP_DR_ADDR: from["keep-dr:address"],
    KEEP_DR_TOKEN: from["keep-dr:token"],
    KEEP_DR_RETRY_BASE_MS: from["keep-dr:retryBaseDelayMs"],
    KEEP_DR_TIMEOUT: from["keep-dr:timeoutSeconds"],
  });
  const secretConfig = ["keep:token", "keep-dr:token", "workspaces:token", "mesh:token", "keepstack:keepToken", "keepstack:workspacesToken", "keepstack:meshToken"];
  // Both doors' hosts load the package as a user gets it: from `npm pack` of this checkout.
  const recent: string[] = [];
  const progress = (line: string) => {
    recent.push(line.trim());
    if (recent.length > RECENT_LINES) recent.shift();
  };
  const engine = new Engine({ project: "campaigns", cwd: packedInstall(), config: { ...config, ...pluginConfig(config) }, env: drEnv(config), secretConfig, progress });

  const census = followCensus({ clusters: [keep, dr], workspaces, mesh });

  const servers: ServiceServer[] = [keep, workspaces, mesh, dr];
  return {
    env: { keep, clusters: { main: keep, dr }, workspaces, mesh, postgresConnectionString: options.postgresConnectionString, scratch },
    engine,
    context: createContext((key) => config[key], {}),
    servers,
    secrets: [keep.rootToken, dr.rootToken, mesh.rootToken, ...Object.values(workspaces.tokens)],
    census,
    hostOutput: () => engine.diagnostics().join("\n"),
    recent: () => [...recent],
    retired: false,
    servicePrefixes,
    setTimeouts: async (timeouts) => {
      const changed = { ...config };
      for (const [prefix, seconds] of Object.entries(timeouts)) changed[`${prefix}:timeoutSeconds`] = String(seconds);
      await engine.setConfig({ ...changed, ...pluginConfig(changed) }, drEnv(changed));
    },
    close: async () => {
      await engine.close();
      await Promise.all(servers.map((s) => s.close()));
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}
