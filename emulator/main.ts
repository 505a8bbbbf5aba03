#!/usr/bin/env node
/**
 * `npm run emulator`: starts the local emulator (a test double of the three services) and prints
 * each service's address and root token. Ports: --keep-port, --workspaces-port, --mesh-port.
 */
import { Command } from "commander";
import { startEmulator } from "./index";

async function main(): Promise<void> {
  const program = new Command()
    .name("keepstack-emulator")
    .description("Local emulator of the secrets, workspace and mesh services (a test double)")
    .option("--keep-port <port>", "port of the secrets service", "8200")
    .option("--workspaces-port <port>", "port of the workspace service", "8280")
    .option("--mesh-port <port>", "port of the mesh service", "8500")
    .parse();
  const opts = program.opts<{ keepPort: string; workspacesPort: string; meshPort: string }>();
  const emu = await startEmulator({
    ports: { keep: Number(opts.keepPort), workspaces: Number(opts.workspacesPort), mesh: Number(opts.meshPort) },
  });
  console.log("Local emulator of the three services (a test double, not the real services):");
  console.log(`  secrets service     KEEP_ADDR=${emu.keep.url}  KEEP_TOKEN=${emu.keep.rootToken}`);
  console.log(
    `  workspace service   WORKSPACES_ADDR=${emu.workspaces.url}  WORKSPACES_TOKEN=${emu.workspaces.tokens.user}  WORKSPACES_ORGANIZATION=${emu.workspaces.organization}`,
  );
  console.log(`  mesh service        MESH_HTTP_ADDR=${emu.mesh.url}  MESH_HTTP_TOKEN=${emu.mesh.rootToken}`);
  console.log("Press Ctrl-C to stop.");
  const stop = () => {
    void emu.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
