/**
 * What left the package, and where it went: the subpaths `pulumi-keepstack/emulator` and
 * `pulumi-keepstack/harness` of earlier versions stay, so a program written for them meets a message
 * naming what to do instead of "Cannot find module".
 */

/** The package the emulator is now, for the tests of a program (a development dependency). */
export const EMULATOR_PACKAGE = "keepstack-emulator";

/** How to install and start it, for messages. */
export const EMULATOR_ADVICE = `npm install --save-dev ${EMULATOR_PACKAGE}, then npx ${EMULATOR_PACKAGE} --detach (or require("${EMULATOR_PACKAGE}"))`;

/** Where `name` resolves, from the program's working directory first (the project's install), then from this package. */
export function resolvable(name: string): string | undefined {
  try {
    return require.resolve(name, { paths: [process.cwd(), __dirname] });
  } catch {
    return undefined;
  }
}

/** Fails, naming `what` and the package to install, unless the emulator's package loads from here (where the subpath loads it). */
export function requireEmulatorPackage(what: string): void {
  try {
    require.resolve(EMULATOR_PACKAGE);
  } catch {
    throw new Error(`${what} is not part of pulumi-keepstack any more: the emulator is the package ${EMULATOR_PACKAGE}. Install it: ${EMULATOR_ADVICE}`);
  }
}
