#!/usr/bin/env node
/**
 * The package's command: `pulumi-keepstack import` (cli/import.ts), `pulumi-keepstack recover`
 * (cli/recover.ts, after a killed run) and `pulumi-keepstack emulator`,
 * the local emulator of the three services for a program's tests in CI (emulator/main.ts). Each
 * loads only what it needs: the emulator runs without the provider and the Pulumi SDK.
 */
import { Command } from "commander";

/** How the emulator subcommand names itself in its help. */
const EMULATOR_COMMAND = "pulumi-keepstack emulator";

async function main(argv: string[]): Promise<void> {
  // The emulator has its own options (emulator/main.ts, shared with `npm run emulator`).
  if (argv[2] === "emulator") return (await import("../emulator/main")).runEmulator(argv.slice(3), { name: EMULATOR_COMMAND, exports: true });
  const program = new Command().name("pulumi-keepstack").description("Tools of the pulumi-keepstack package");
  program
    .command("emulator")
    .description("start the local emulator of the three services (a test double) and print `export` lines for eval; see `emulator --help`");
  (await import("./import")).addImportCommands(program);
  (await import("./recover")).addRecoverCommand(program);
  await program.parseAsync(argv);
}

if (require.main === module) {
  main(process.argv).catch(async (e) => {
    // A service's refusal gets the advice the provider gives for it (which setting to check).
    const { ApiError } = await import("../provider/errors");
    const { failureMessage } = await import("../provider/advice");
    console.error(e instanceof ApiError ? failureMessage("error", e) : `error: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  });
}
