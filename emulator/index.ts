/**
 * Local emulator of the secrets, workspace and mesh services: a test double that follows the specs'
 * state tables, status codes and error bodies, used by the tests, the benchmark and the quickstart.
 * It is not a substitute for the real services.
 */
import { startKeepEmulator, KeepEmulator } from "./keep";
import { startWorkspacesEmulator, WorkspacesEmulator } from "./workspaces";
import { startMeshEmulator, MeshEmulator } from "./mesh";

export type { KeepEmulator } from "./keep";
export type { WorkspacesEmulator } from "./workspaces";
export type { MeshEmulator } from "./mesh";
export { RequestLog, Faults } from "./common";
export type { FaultSpec, RequestRecord } from "./common";

export interface EmulatorOptions {
  /** Loopback address to bind (default 127.0.0.1). */
  host?: string;
  /** Fixed ports per service; 0 or absent picks a free port. */
  ports?: { keep?: number; workspaces?: number; mesh?: number };
}

export interface Emulator {
  keep: KeepEmulator;
  workspaces: WorkspacesEmulator;
  mesh: MeshEmulator;
  /** Requests received by all services since start or the last `clearLogs`. */
  requestCount(): number;
  clearLogs(): void;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const [keep, workspaces, mesh] = await Promise.all([
    startKeepEmulator({ host, port: options.ports?.keep ?? 0 }),
    startWorkspacesEmulator({ host, port: options.ports?.workspaces ?? 0 }),
    startMeshEmulator({ host, port: options.ports?.mesh ?? 0 }),
  ]);
  const services = [keep, workspaces, mesh];
  return {
    keep,
    workspaces,
    mesh,
    requestCount: () => services.reduce((n, s) => n + s.log.count, 0),
    clearLogs: () => services.forEach((s) => s.log.clear()),
    close: async () => {
      await Promise.all(services.map((s) => s.close()));
    },
  };
}
