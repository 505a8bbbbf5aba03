/**
 * `pulumi-keepstack/emulator` of earlier versions: the emulator is the package `keepstack-emulator`
 * now. Where that package is installed, this subpath hands it on; where it is not, loading it says
 * which package to install.
 */
import { requireEmulatorPackage } from "./index";

requireEmulatorPackage('require("pulumi-keepstack/emulator")');
export * from "keepstack-emulator";
