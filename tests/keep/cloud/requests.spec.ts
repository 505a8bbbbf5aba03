/**
 * Requests each keep.cloud operation sends, counted from the emulator's request log through the
 * provider host: preview none; create, update, refresh and destroy of each resource; a rotation;
 * credentials.
 */
import { keep } from "pulumi-keepstack";
import { cloudCredentialsAccess, registerCloudCredentialsEngine } from "../../../emulator/keep/cloud-credentials";
import { KeepStack, startKeepStack } from "../../support/keep-stack";

const ROLE_ARN = "arn:aws:iam::123456789012:role/deploy";

describe("keep.cloud requests per operation", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack({ emulator: { register: registerCloudCredentialsEngine } });
    // Counted without the provider's eventual consistency: each refused try would add one request.
    cloudCredentialsAccess(stack.keep.state).settings.consistencyWindowMs = 0;
  });
  afterAll(() => stack.close());

  /** `METHOD path` of each request during `run`, sorted (steps run in parallel). */
  const count = async (run: () => Promise<unknown>): Promise<string[]> => {
    stack.keep.log.clear();
    await run();
    return stack.keep.log.entries.map((e) => `${e.method} ${e.path.replace(/^\/v1\/cloudA\//, "")}`).sort();
  };
  const program = (v: { region?: string; lease?: string; tags?: Record<string, string>; triggers?: string[]; accessKey?: string } = {}) => () => {
    const root = new keep.cloud.RootConfig("root", { accessKey: v.accessKey ?? "AKIACOUNT00000000001", secretKey: "s", region: v.region });
    new keep.cloud.LeaseConfig("lease", { lease: v.lease ?? "1h", leaseMax: "24h" });
    const role = new keep.cloud.Role("deploy", { name: "deploy", credentialType: "assumed_role", roleArns: [ROLE_ARN], iamTags: v.tags }, { dependsOn: [root] });
    const rotation = new keep.cloud.RotateRoot("rotate", { triggers: v.triggers ?? ["1"] }, { dependsOn: [root] });
    new keep.cloud.Credentials("ci", { role: "deploy", roleArn: ROLE_ARN }, { dependsOn: [role, rotation] });
  };

  test("preview: none; create: root 3, lease 2, role 2, rotation 2, credentials 1", async () => {
    expect(await count(() => stack.engine.preview(program()))).toEqual([]);
    expect(await count(() => stack.engine.up(program()))).toEqual([
      "GET config/lease", // lease: nothing there before the first write (one owner)
      "GET config/root", // root: nothing there before the first write
      "GET config/root", // root: read back after the write
      "GET config/root", // rotation: the key it replaces
      "GET creds/deploy", // credentials (the role ARN is given: no role read)
      "GET roles/deploy", // role: nothing there before the first write
      "POST config/lease",
      "POST config/root",
      "POST config/rotate-root",
      "POST roles/deploy",
    ]);
  });

  test("no-op up: none; refresh: one read per configuration and role, none for operations", async () => {
    expect(await count(() => stack.engine.up(program()))).toEqual([]);
    expect(await count(() => stack.engine.refresh())).toEqual(["GET config/lease", "GET config/root", "GET roles/deploy"]);
  });

  test("update: lease 1, role 1; root with new keys 2, other settings after a rotation 1 (refused)", async () => {
    expect(await count(() => stack.engine.up(program({ lease: "2h", tags: { team: "core" } })))).toEqual(["POST config/lease", "POST roles/deploy"]);
    // After the rotation the declared keys are revoked: one read finds that, nothing is written.
    expect(await count(() => stack.engine.up(program({ lease: "2h", tags: { team: "core" }, region: "eu-west-1" })).catch(() => undefined))).toEqual(["GET config/root"]);
    expect(await count(() => stack.engine.up(program({ lease: "2h", tags: { team: "core" }, region: "eu-west-1", accessKey: "AKIACOUNT00000000002" })))).toEqual([
      "GET config/root",
      "POST config/root",
    ]);
  });

  test("a new rotation: 2 (read, rotate); kept credentials stay; destroy: role 1, the rest none", async () => {
    const v = { lease: "2h", tags: { team: "core" }, region: "eu-west-1", accessKey: "AKIACOUNT00000000002" };
    expect(await count(() => stack.engine.up(program({ ...v, triggers: ["2"] })))).toEqual(["GET config/root", "POST config/rotate-root"]);
    expect(await count(() => stack.engine.destroy())).toEqual(["DELETE roles/deploy"]);
  });
});
