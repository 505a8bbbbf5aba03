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
    .option("--key-shares <n>", "unseal key shares of the secrets service", "5")
    .option("--key-threshold <t>", "shares needed to unseal (and to rekey)", "3")
    .option("--stored-keys", "a seal that stores the master key: one recovery key, rekeys are 1-of-1")
    .parse();
  const opts = program.opts<{ keepPort: string; workspacesPort: string; meshPort: string; keyShares: string; keyThreshold: string; storedKeys?: boolean }>();
  const emu = await startEmulator({
    ports: { keep: Number(opts.keepPort), workspaces: Number(opts.workspacesPort), mesh: Number(opts.meshPort) },
  });
  console.log("Local emulator of the three services (a test double, not the real services):");
  console.log(`  secrets service     KEEP_ADDR=${emu.keep.url}  KEEP_TOKEN=${emu.keep.rootToken}`);
  console.log(
    `  workspace service   WORKSPACES_ADDR=${emu.workspaces.url}  WORKSPACES_TOKEN=${emu.workspaces.tokens.user}  WORKSPACES_ORGANIZATION=${emu.workspaces.organization}`,
  );
  console.log(`  mesh service        MESH_HTTP_ADDR=${emu.mesh.url}  MESH_HTTP_TOKEN=${emu.mesh.rootToken}`);
  await emu.keep.seal.initialize(opts.storedKeys ? { storedKeys: true } : { shares: Number(opts.keyShares), threshold: Number(opts.keyThreshold) });
  const shares = emu.keep.seal.shares();
  console.log(`Secrets service ${opts.storedKeys ? "recovery key" : "unseal key shares"} (${shares.threshold} of ${shares.keys.length} rebuild the master key):`);
  shares.keys.forEach((hex, i) => console.log(`  ${opts.storedKeys ? "Recovery Key" : "Unseal Key"} ${i + 1}: ${hex}  (base64 ${shares.keysBase64[i]})`));
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
