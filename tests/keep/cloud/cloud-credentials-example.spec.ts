/** examples/cloud-credentials, run as a program through the harness against the emulator. */
import * as path from "node:path";
import { Engine, summarize } from "../../../harness";
import { KeepEmulator, startKeepEmulator } from "../../../emulator/keep";
import { cloudCredentialsAccess, registerCloudCredentialsEngine } from "../../../emulator/keep/cloud-credentials";
import { keepConfig } from "../../support/keep-stack";

const exampleDir = path.join(__dirname, "..", "..", "..", "examples", "cloud-credentials");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require(path.join(exampleDir, "index.ts")) as () => Record<string, unknown>;

const SECRET_KEY = "example-root-secret-key";

describe("examples/cloud-credentials", () => {
  let keep: KeepEmulator;
  let engine: Engine;
  const config = (rotation: string) => ({ ...keepConfig(keep), "cloud:accessKey": "AKIAEXAMPLE000000001", "cloud:secretKey": SECRET_KEY, "cloud:rotation": rotation });
  beforeAll(async () => {
    keep = await startKeepEmulator({ register: registerCloudCredentialsEngine });
    cloudCredentialsAccess(keep.state).settings.consistencyWindowMs = 200;
    engine = new Engine({ project: "keepstack-cloud-credentials", cwd: exampleDir, config: config("2025-01"), secretConfig: ["keep:token", "cloud:secretKey"] });
  });
  afterAll(async () => {
    await engine.close();
    await keep.close();
  });

  test("preview, up, a second up that keeps the CI credentials, a rotation, destroy", async () => {
    const cloud = cloudCredentialsAccess(keep.state);
    keep.log.clear();
    expect(summarize((await engine.preview(example)).steps)).toEqual({ create: 6 });
    expect(keep.log.count).toBe(0);

    const up = await engine.up(example);
    expect(summarize(up.steps)).toEqual({ create: 6 });
    expect(up.outputs.rootAccessKey).toBe(cloud.rootConfig()?.access_key);
    expect(up.outputs.rootAccessKey).not.toBe("AKIAEXAMPLE000000001");
    expect(up.outputs.ciArn).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deploy-staging\//);
    expect(up.outputs.readerArn).toMatch(/^arn:aws:iam::123456789012:user\/keep\/keep-root-developers-/);
    const state = JSON.stringify(engine.exportState());
    expect(state).not.toContain(SECRET_KEY);
    expect(state).not.toContain(up.outputs.readerSecretKey as string);

    const again = await engine.up(example);
    expect(summarize(again.steps)).toEqual({ same: 6 });
    expect(again.outputs.ciAccessKey).toBe(up.outputs.ciAccessKey);
    expect(again.outputs.rootAccessKey).toBe(up.outputs.rootAccessKey);

    await engine.setConfig(config("2025-02"));
    const rotated = await engine.up(example);
    expect(rotated.steps.filter((s) => s.op !== "same").map((s) => [s.name, s.op])).toEqual([["rotation", "replace"]]);
    expect(rotated.outputs.rootAccessKey).not.toBe(up.outputs.rootAccessKey);
    expect(cloud.rootKeys()).toEqual([rotated.outputs.rootAccessKey]);

    expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 6 });
    expect(keep.objects.list({ mount: "cloudA", kind: "roles" })).toEqual([]);
  });
});
