/** The specs of keep/policies/, run in one test file (see tests/support/specs.ts). */
import { includeSpecs } from "../../support/specs";

includeSpecs(__dirname);
