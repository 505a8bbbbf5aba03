/** The quickstart example, run as a program through the harness against the emulator. */
import * as path from "node:path";
import { Engine, summarize } from "../../harness";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { keepConfig } from "../support/keep-stack";

const exampleDir = path.join(__dirname, "..", "..", "examples", "quickstart");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const quickstart = require(path.join(exampleDir, "index.ts")) as () => Promise<Record<string, unknown>>;

describe("examples/quickstart", () => {
  let keep: KeepEmulator;
  let engine: Engine;
  beforeAll(async () => {
    keep = await startKeepEmulator();
    engine = new Engine({ project: "keepstack-quickstart", cwd: exampleDir, config: keepConfig(keep), secretConfig: ["keep:token"] });
  });
  afterAll(async () => {
    await engine.close();
    await keep.close();
  });

  test("preview, up, no-op preview, destroy", async () => {
    expect(summarize((await engine.preview(quickstart)).steps)).toEqual({ create: 3 });
    expect(keep.log.count).toBe(0);
    const up = await engine.up(quickstart);
    expect(up.outputs).toEqual({ acl: "app-readers", rgp: "business-hours", egp: "production-guard" });
    expect(keep.listPolicies("acl")).toContain("app-readers");
    expect(keep.getPolicy("egp", "production-guard")).toMatchObject({ paths: ["secret/data/production/*"], enforcement_level: "hard-mandatory" });
    expect(summarize((await engine.preview(quickstart)).steps)).toEqual({ same: 3 });
    expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 3 });
    expect(keep.listPolicies("egp")).toEqual([]);
  });
});
