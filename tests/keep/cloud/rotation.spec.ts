/**
 * Root rotation as a user runs it, through the provider host: a RootConfig and a RotateRoot that
 * depends on it; up rotates once; preview and up afterwards change nothing (the rotated key is not
 * drift and the revoked declared keys are never written back); refresh reports the new key as an
 * output only; `triggers` rotates once more, riding out the provider's eventual consistency; a
 * second key on the user refuses the rotation; a settings change after a rotation is refused before
 * anything is sent. Also the requests each operation costs.
 */
import { keep } from "pulumi-keepstack";
import { EngineError, summarize } from "../../../harness";
import { cloudCredentialsAccess, CloudCredentialsAccess, registerCloudCredentialsEngine } from "../../../emulator/keep/cloud-credentials";
import { KeepStack, startKeepStack } from "../../support/keep-stack";
import { definedOutputs } from "../../support/outputs";

const DECLARED = "AKIADECLAREDROTATE01";

const program = (options: { triggers?: unknown[]; region?: string } = {}) => () => {
  const root = new keep.cloud.RootConfig("root", { accessKey: DECLARED, secretKey: { fromEnv: "ROOT_SECRET" }, region: options.region });
  const rotation = new keep.cloud.RotateRoot("rotate", { triggers: options.triggers ?? ["2025-01"] }, { dependsOn: [root] });
  return definedOutputs({ rotated: rotation.accessKey, previous: rotation.previousAccessKey, current: root.currentAccessKey });
};

/** `METHOD path status` of the secrets-service requests since the log was cleared. */
const requests = (stack: KeepStack) => stack.keep.log.entries.map((e) => `${e.method} ${e.path.replace(/^\/v1\//, "")} ${e.status}`);

describe("keep.cloud.RotateRoot", () => {
  let stack: KeepStack;
  let cloud: CloudCredentialsAccess;
  beforeAll(async () => {
    stack = await startKeepStack({ emulator: { register: registerCloudCredentialsEngine }, engine: { env: { ROOT_SECRET: "declared-secret" } } });
    cloud = cloudCredentialsAccess(stack.keep.state);
    cloud.settings.consistencyWindowMs = 0;
  });
  afterAll(() => stack.close());

  test("preview sends nothing; up writes the configuration and rotates once", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ create: 2 });
    expect(stack.keep.log.count).toBe(0);
    const up = await stack.engine.up(program());
    expect(summarize(up.steps)).toEqual({ create: 2 });
    expect(requests(stack)).toEqual([
      "GET cloudA/config/root 204",
      "POST cloudA/config/root 204",
      "GET cloudA/config/root 200",
      "GET cloudA/config/root 200",
      "POST cloudA/config/rotate-root 200",
    ]);
    const rotated = up.outputs.rotated as string;
    expect(up.outputs.previous).toBe(DECLARED);
    expect(cloud.rootConfig()?.access_key).toBe(rotated);
    expect(cloud.rootKeys()).toEqual([rotated]);
    expect(cloud.isKeyUsable(DECLARED)).toBe(false);
  });

  test("afterwards preview shows no change and up rotates nothing and writes nothing back", async () => {
    const rotated = cloud.rootConfig()?.access_key;
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 2 });
    expect(summarize((await stack.engine.up(program())).steps)).toEqual({ same: 2 });
    expect(stack.keep.log.count).toBe(0);
    expect(cloud.rootConfig()?.access_key).toBe(rotated);
  });

  test("refresh reports the service's key as currentAccessKey, and the declared key stays: still no change planned", async () => {
    const rotated = cloud.rootConfig()?.access_key;
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps.filter((s) => (s.diffs ?? []).length > 0).map((s) => [s.name, s.diffs])).toEqual([["root", ["currentAccessKey"]]]);
    const root = [...stack.engine.state.values()].find((r) => r.name === "root")!;
    expect(root.outputs).toMatchObject({ accessKey: DECLARED, currentAccessKey: rotated });
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 2 });
  });

  test("a change of triggers rotates once more, riding out the provider's refusal of the fresh key", async () => {
    // The last rotation's key is refused for a while: the next rotation is tried again meanwhile.
    cloud.settings.consistencyWindowMs = 1500;
    const rotatedByHand = await fetch(`${stack.keep.url}/v1/cloudA/config/rotate-root`, { method: "POST", headers: { "X-Keep-Token": stack.keep.rootToken } });
    const before = ((await rotatedByHand.json()) as { data: { access_key: string } }).data.access_key;
    stack.keep.log.clear();
    const up = await stack.engine.up(program({ triggers: ["2025-02"] }));
    expect(summarize(up.steps)).toEqual({ same: 1, replace: 1 });
    const rotations = requests(stack).filter((r) => r.includes("rotate-root"));
    expect(rotations.length).toBeGreaterThan(1);
    expect(rotations.slice(0, -1).every((r) => r.endsWith(" 500"))).toBe(true);
    expect(rotations.at(-1)).toBe("POST cloudA/config/rotate-root 200");
    expect(up.outputs.previous).toBe(before);
    expect(up.outputs.rotated).not.toBe(before);
    expect(cloud.rootConfig()?.access_key).toBe(up.outputs.rotated);
    cloud.settings.consistencyWindowMs = 0;
    cloud.settle();
  });

  test("a settings change after a rotation is refused before anything is written: the declared keys are revoked", async () => {
    stack.keep.log.clear();
    const error = (await stack.engine.up(program({ triggers: ["2025-02"], region: "eu-west-1" })).catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/the service uses access key AKIA\w+, not the declared AKIADECLAREDROTATE01 \(a rotation replaced it.*declare a new key pair/);
    expect(requests(stack)).toEqual(["GET cloudA/config/root 200"]);
  });

  test("with a second key on the provider user the rotation fails once, saying what to do", async () => {
    const engineKey = cloud.rootConfig()!.access_key;
    const extra = cloud.addRootKey();
    stack.keep.log.clear();
    const error = (await stack.engine.up(program({ triggers: ["2025-03"] })).catch((e) => e)) as EngineError;
    expect(error.message).toMatch(/LimitExceeded: Cannot exceed quota for AccessKeysPerUser: 2[\s\S]*delete the one the engine does not use \(AKIA\w+ is the engine's\)/);
    expect(requests(stack).filter((r) => r.includes("rotate-root"))).toEqual(["POST cloudA/config/rotate-root 500"]);
    expect(cloud.rootConfig()?.access_key).toBe(engineKey);
    cloud.deleteKey(extra);
    expect(summarize((await stack.engine.up(program({ triggers: ["2025-03"] }))).steps)).toEqual({ same: 1, replace: 1 });
  });

  test("new keys declared by the program are written, and destroy rotates nothing", async () => {
    const next = () => {
      const root = new keep.cloud.RootConfig("root", { accessKey: "AKIANEWPAIR000000001", secretKey: { fromEnv: "ROOT_SECRET" } });
      new keep.cloud.RotateRoot("rotate", { triggers: ["2025-03"] }, { dependsOn: [root] });
    };
    stack.keep.log.clear();
    const up = await stack.engine.up(next);
    expect(up.steps.find((s) => s.name === "root")).toMatchObject({ op: "update", diffs: ["accessKey"] });
    expect(requests(stack)).toEqual(["POST cloudA/config/root 204", "GET cloudA/config/root 200"]);
    expect(cloud.rootConfig()?.access_key).toBe("AKIANEWPAIR000000001");
    stack.keep.log.clear();
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 2 });
    expect(stack.keep.log.count).toBe(0);
    expect(cloud.rootConfig()?.access_key).toBe("AKIANEWPAIR000000001");
  });
});
