/** The specs of emulator/ and its engines, run in one test file (see tests/support/specs.ts). */
import * as path from "node:path";
import { includeSpecs } from "../support/specs";

includeSpecs(__dirname);
includeSpecs(path.join(__dirname, "keep"));
includeSpecs(path.join(__dirname, "transform"));
