/**
 * `pulumi-keepstack/harness` of earlier versions: the engine harness is a development tool of this
 * package's repository and no longer ships with it. A program's tests run it with what Pulumi users
 * already have: the Pulumi CLI or its Automation API, against the emulator (`keepstack-emulator`).
 */
import { EMULATOR_PACKAGE } from "./index";

throw new Error(
  `pulumi-keepstack/harness is not part of pulumi-keepstack any more: test a program with the Pulumi CLI or its Automation API ` +
    `(LocalWorkspace of @pulumi/pulumi/automation) against the emulator, the package ${EMULATOR_PACKAGE} (see docs/testing.md)`,
);
