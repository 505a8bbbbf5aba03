/**
 * Credentials of keep.cloud roles: the functions called from a program (keys and tokens as Pulumi
 * secrets, nowhere in state, the host's output or the request log; arguments checked before any
 * request; a role read only where the role decides), riding out a fresh rotation, and the
 * Credentials resource (generated once, kept across runs, renewed by `triggers`).
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { summarize } from "../../../harness";
import { cloudCredentialsAccess, CloudCredentialsAccess, registerCloudCredentialsEngine } from "../../../emulator/keep/cloud-credentials";
import { createContext, OperationContext } from "../../../provider/context";
import { KeepStack, keepConfig, startKeepStack } from "../../support/keep-stack";

const ROLE_A = "arn:aws:iam::123456789012:role/deploy";
const ROLE_B = "arn:aws:iam::123456789012:role/audit";

/** The plain value of an Output (secret or not). */
function unwrap<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => resolve(v)));
}

const roles = () => {
  const root = new keep.cloud.RootConfig("root", { accessKey: "AKIACREDSROOT0000001", secretKey: "root-secret" });
  const lease = new keep.cloud.LeaseConfig("lease", { lease: "30m", leaseMax: "12h" });
  const people = new keep.cloud.Role("people", { name: "people", credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }, { dependsOn: [root, lease] });
  const deploy = new keep.cloud.Role("deploy", { name: "deploy", credentialType: "assumed_role", roleArns: [ROLE_A, ROLE_B], maxStsTtl: "2h" }, { dependsOn: [root] });
  const fed = new keep.cloud.Role("fed", { name: "fed", credentialType: "federation_token", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }, { dependsOn: [root] });
  return { people, deploy, fed };
};

describe("keep.cloud credentials", () => {
  let stack: KeepStack;
  let cloud: CloudCredentialsAccess;
  let ctx: OperationContext;
  beforeAll(async () => {
    stack = await startKeepStack({ emulator: { register: registerCloudCredentialsEngine } });
    cloud = cloudCredentialsAccess(stack.keep.state);
    cloud.settings.consistencyWindowMs = 0;
    const config = keepConfig(stack.keep);
    ctx = createContext((key) => config[key]);
    await stack.engine.up(roles);
  });
  afterAll(() => stack.close());

  test("getCredentials in a program: secrets as Pulumi secrets, nowhere in state, output or request log", async () => {
    let secretKey: pulumi.Output<string> | undefined;
    let token: pulumi.Output<string | undefined> | undefined;
    stack.keep.log.clear();
    const up = await stack.engine.up(async () => {
      roles();
      const iam = await keep.cloud.getCredentials({ role: "people" });
      const sts = await keep.cloud.getStsCredentials({ role: "deploy", roleArn: ROLE_B, roleSessionName: "ci", ttl: "1h" });
      secretKey = iam.secretKey;
      token = sts.securityToken;
      return {
        arn: iam.arn,
        lease: iam.leaseDuration,
        renewable: iam.renewable,
        secret: pulumi.isSecret(iam.secretKey),
        keySecret: pulumi.isSecret(iam.accessKey),
        stsArn: sts.arn,
        stsLease: sts.leaseDuration,
        tokenSecret: pulumi.isSecret(sts.securityToken),
        key: iam.secretKey,
      };
    });
    expect(up.outputs).toMatchObject({ lease: 1800, renewable: true, secret: true, keySecret: true, stsArn: "arn:aws:sts::123456789012:assumed-role/audit/ci", stsLease: 3600, tokenSecret: true });
    expect(up.outputs.arn).toMatch(/^arn:aws:iam::123456789012:user\/keep-root-people-/);
    const plainSecret = await unwrap(secretKey!);
    const plainToken = (await unwrap(token!))!;
    expect(plainSecret).toHaveLength(40);
    expect(plainToken.length).toBeGreaterThan(50);
    for (const text of [JSON.stringify(stack.engine.exportState()), up.diagnostics.join("\n"), JSON.stringify(stack.keep.log.entries)]) {
      expect(text).not.toContain(plainSecret);
      expect(text).not.toContain(plainToken);
    }
    // The stack output holding the key is marked secret.
    expect(up.outputs.key).toBe(plainSecret);
    expect(stack.keep.log.lines().filter((l) => /cloudA\/(creds|sts|roles)\//.test(l))).toEqual([
      "GET /v1/cloudA/roles/people",
      "GET /v1/cloudA/creds/people",
      "GET /v1/cloudA/roles/deploy",
      "POST /v1/cloudA/sts/deploy",
    ]);
  });

  test("arguments are checked before any request; what depends on the role, after one read of it", async () => {
    stack.keep.log.clear();
    await expect(keep.cloud.getCredentials({ role: "people", ttl: "1w" }, ctx)).rejects.toThrow(/keep\.cloud\.getCredentials: invalid arguments: ttl: must be a number of seconds, a duration/);
    await expect(keep.cloud.getCredentials({ role: "bad/name" }, ctx)).rejects.toThrow(/role: role name must not contain '\/'/);
    expect(stack.keep.log.count).toBe(0);
    await expect(keep.cloud.getCredentials({ role: "deploy" }, ctx)).rejects.toThrow(/getCredentials\(role "deploy"\): roleArn: is required: the role allows 2 role ARNs/);
    // With a role ARN and no TTL nothing depends on the role: the service checks the ARN.
    await expect(keep.cloud.getCredentials({ role: "deploy", roleArn: "arn:aws:iam::1:role/other" }, ctx)).rejects.toThrow(
      /getCredentials\(role "deploy"\) failed: .* returned 400: role_arn "arn:aws:iam::1:role\/other" is not one of the ARNs role "deploy" allows/,
    );
    await expect(keep.cloud.getCredentials({ role: "people", ttl: "1h" }, ctx)).rejects.toThrow(/ttl: applies to assumed_role and federation_token credentials only/);
    await expect(keep.cloud.getStsCredentials({ role: "people" }, ctx)).rejects.toThrow(/the role gives IAM users only, which sts\/ does not: use getCredentials/);
    await expect(keep.cloud.getCredentials({ role: "nobody" }, ctx)).rejects.toThrow(/no such role at cloudA\/roles\/nobody/);
    expect(stack.keep.log.lines()).toEqual([
      "GET /v1/cloudA/roles/deploy",
      "GET /v1/cloudA/creds/deploy?role_arn=arn:aws:iam::1:role%2Fother",
      "GET /v1/cloudA/roles/people",
      "GET /v1/cloudA/roles/people",
      "GET /v1/cloudA/roles/nobody",
    ]);
  });

  test("a federation token through sts/ with the role's TTL cap", async () => {
    const fed = await keep.cloud.getStsCredentials({ role: "fed", ttl: 7200 }, ctx);
    expect(fed.arn).toMatch(/^arn:aws:sts::123456789012:federated-user\/keep-\d{10}-/);
    expect(fed.leaseDuration).toBe(7200);
    expect(fed.renewable).toBe(false);
  });

  test("right after a rotation the provider refuses the new key for a while: the request is tried again meanwhile", async () => {
    cloud.settings.consistencyWindowMs = 1000;
    const rotated = await fetch(`${stack.keep.url}/v1/cloudA/config/rotate-root`, { method: "POST", headers: { "X-Keep-Token": stack.keep.rootToken } });
    expect(rotated.status).toBe(200);
    stack.keep.log.clear();
    const creds = await keep.cloud.getCredentials({ role: "people" }, ctx);
    expect(creds.arn).toMatch(/user\/keep-root-people-/);
    const statuses = stack.keep.log.entries.filter((e) => e.path.includes("/creds/")).map((e) => e.status);
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.slice(0, -1).every((s) => s === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(200);
    cloud.settings.consistencyWindowMs = 0;
    cloud.settle();
  });

  test("a service failure names the function and says what to do", async () => {
    stack.keep.faults.inject({ times: 10, match: /creds\/people/, status: 403 });
    await expect(keep.cloud.getCredentials({ role: "people", roleArn: undefined }, ctx)).rejects.toThrow(/keep\.cloud\.getCredentials\(role "people"\) failed: keep: GET \/v1\/cloudA\/creds\/people returned 403/);
    stack.keep.faults.clear();
  });

  describe("the Credentials resource", () => {
    const program = (triggers: unknown[] = []) => () => {
      roles();
      const kept = new keep.cloud.Credentials("ci", { role: "deploy", roleArn: ROLE_A, ttl: "1h", triggers });
      return { key: kept.accessKey, arn: kept.arn, secret: pulumi.isSecret(kept.secretKey), lease: kept.leaseDuration };
    };

    test("is generated once, kept across runs as secret outputs, and renewed by triggers", async () => {
      stack.keep.log.clear();
      expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 5, create: 1 });
      expect(stack.keep.log.count).toBe(0);
      const first = await stack.engine.up(program());
      expect(first.outputs).toMatchObject({ secret: true, lease: 3600 });
      expect(first.outputs.arn).toMatch(/assumed-role\/deploy\//);
      const state = [...stack.engine.state.values()].find((r) => r.name === "ci")!;
      expect(state.secretOutputs).toEqual(expect.arrayContaining(["accessKey", "secretKey", "securityToken"]));

      stack.keep.log.clear();
      const again = await stack.engine.up(program());
      expect(summarize(again.steps)).toEqual({ same: 6 });
      expect(again.outputs.key).toBe(first.outputs.key);
      expect(stack.keep.log.count).toBe(0);
      const refreshed = await stack.engine.refresh();
      expect(refreshed.steps.find((s) => s.name === "ci")?.op).toBe("same");

      const renewed = await stack.engine.up(program(["2025-06"]));
      expect(renewed.steps.find((s) => s.name === "ci")?.op).toBe("replace");
      expect(renewed.outputs.key).not.toBe(first.outputs.key);
    });
  });
});
