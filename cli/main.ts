#!/usr/bin/env node
/**
 * The package's command: `pulumi-keepstack import` (cli/import.ts) and `pulumi-keepstack recover`
 * (cli/recover.ts, after a killed run). `pulumi-keepstack emulator` of earlier versions hands its
 * arguments to the emulator's own package where a project installed it, and otherwise names it.
 */
import { Command } from "commander";
import { EMULATOR_ADVICE, EMULATOR_PACKAGE, resolvable } from "../moved";

/** How the emulator subcommand names itself in its help. */
const EMULATOR_COMMAND = "pulumi-keepstack emulator";

/** `pulumi-keepstack emulator ...`: the emulator package's command, with `--exports` its default as it always was here. */
async function emulator(args: string[]): Promise<void> {
  const main = resolvable(`${EMULATOR_PACKAGE}/dist/main.js`);
  if (!main) throw new Error(`the emulator is not part of pulumi-keepstack any more: it is the package ${EMULATOR_PACKAGE}. ${EMULATOR_ADVICE}`);
  const { runEmulator } = (await import(main)) as { runEmulator(args: string[], defaults: { name: string; exports: boolean }): Promise<void> };
  return runEmulator(args, { name: EMULATOR_COMMAND, exports: true });
}

async function main(argv: string[]): Promise<void> {
  if (argv[2] === "emulator") return emulator(argv.slice(3));
  const program = new Command().name("pulumi-keepstack").description("Tools of the pulumi-keepstack package");
  program.command("emulator").description(`start the local emulator of the three services: the package ${EMULATOR_PACKAGE}, where it is installed`);
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
