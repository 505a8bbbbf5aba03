/** examples/workspaces, run as a program through the harness against the workspace service emulator. */
import * as path from "node:path";
import { Engine, summarize } from "../../harness";
import { startWorkspacesEmulator, WorkspacesEmulator } from "../../emulator/workspaces";
import { workspacesConfig } from "./workspaces-stack";

const exampleDir = path.join(__dirname, "..", "..", "examples", "workspaces");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require(path.join(exampleDir, "index.ts")) as () => Promise<Record<string, unknown>>;

describe("examples/workspaces", () => {
  let emu: WorkspacesEmulator;
  let engine: Engine;
  beforeAll(async () => {
    emu = await startWorkspacesEmulator({ rateLimitPerSecond: 0, uploadDelayMs: 5 });
    engine = new Engine({ project: "workspaces-example", cwd: exampleDir, config: workspacesConfig(emu), secretConfig: ["workspaces:token"] });
  });
  afterAll(async () => {
    await engine.close();
    await emu.close();
  });

  test("preview, up, no-op preview, destroy", async () => {
    expect(summarize((await engine.preview(example)).steps)).toEqual({ create: 3 });
    expect(emu.log.count).toBe(0);

    const up = await engine.up(example);
    expect(summarize(up.steps)).toEqual({ create: 3 });
    const network = emu.findWorkspace("acme", "network-production")!;
    expect(up.outputs).toMatchObject({
      networkWorkspaceId: network.id,
      configurationVersionId: expect.stringMatching(/^cv-/),
      configurationStatus: "uploaded",
      sandboxWorkspaceId: emu.findWorkspace("acme", "sandbox")!.id,
    });
    expect(network.attributes).toMatchObject({ "iac-version": "~> 1.9", "trigger-patterns": ["modules/network/**/*.tf"] });
    const version = emu.getConfigurationVersion(String(up.outputs.configurationVersionId))!;
    expect(version).toMatchObject({ status: "uploaded", autoQueueRuns: false });

    expect(summarize((await engine.preview(example)).steps)).toEqual({ same: 3 });
    expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 3 });
    expect(emu.getConfigurationVersion(version.id)).toBeUndefined();
    expect(emu.findWorkspace("acme", "network-production")).toBeUndefined();
    expect(emu.findWorkspace("acme", "sandbox")).toBeUndefined();
  });
});
