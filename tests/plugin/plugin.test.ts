/** The specs of plugin/, run in one test file (see tests/support/specs.ts). */
import { includeSpecs } from "../support/specs";

includeSpecs(__dirname);
