/**
 * keep.cloud configuration and role resources through the real provider host against the
 * emulator: preview without requests, up, no-op, change, drift + refresh + up restoring, adoption,
 * destroy (configurations left on the service, said so), the secret key by reference, and the
 * role rule matrix refused in preview, each rule naming its property.
 */
import { keep } from "pulumi-keepstack";
import { EngineError, Step, summarize } from "../../../harness";
import { cloudCredentialsAccess, registerCloudCredentialsEngine } from "../../../emulator/keep/cloud-credentials";
import { waitFor } from "../../../provider/wait";
import { KeepStack, keepConfig, startKeepStack } from "../../support/keep-stack";

const MOUNT = "cloud";
const SECRET_KEY = "wJalrXUtnFEMI-config-secret";
const POLICY = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}';

interface Shape {
  region?: string;
  lease?: string;
  leaseMax?: string;
  policyDocument?: string;
  policyArns?: string[] | string;
  tags?: Record<string, string> | string[];
  roleArns?: string | string[];
  maxStsTtl?: string;
}

const program = (shape: Shape = {}) => () => {
  const root = new keep.cloud.RootConfig("root", {
    mount: MOUNT,
    accessKey: "AKIADECLARED0000001",
    secretKey: { fromConfig: "app:secretKey" },
    region: shape.region,
    maxRetries: 5,
  });
  const lease = new keep.cloud.LeaseConfig("lease", { mount: MOUNT, lease: shape.lease ?? "1h", leaseMax: shape.leaseMax ?? "24h" });
  const people = new keep.cloud.Role("people", {
    mount: MOUNT,
    name: "people",
    credentialType: "iam_user",
    policyDocument: shape.policyDocument ?? POLICY,
    policyArns: shape.policyArns ?? ["arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::aws:policy/IAMUserChangePassword"],
    iamTags: shape.tags ?? { team: "core", env: "dev" },
    userPath: "/keep/",
  });
  const deploy = new keep.cloud.Role("deploy", {
    mount: MOUNT,
    name: "deploy",
    credentialType: "assumed_role",
    roleArns: shape.roleArns ?? "arn:aws:iam::123456789012:role/deploy,arn:aws:iam::123456789012:role/audit",
    defaultStsTtl: "15m",
    maxStsTtl: shape.maxStsTtl ?? "2h",
  });
  const legacy = new keep.cloud.Role("legacy", { mount: MOUNT, name: "legacy", arn: "arn:aws:iam::123456789012:role/legacy" });
  return { root: root.id, current: root.currentAccessKey, region: root.currentRegion, lease: lease.id, people: people.id, deploy: deploy.id, legacy: legacy.id };
};

/** `[name, sorted diffs]` of steps, by name: the engine runs steps in parallel. */
const changes = (steps: Step[]) => steps.map((s) => [s.name, [...(s.diffs ?? [])].sort()]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

const role = (stack: KeepStack, name: string) => stack.keep.objects.view<Record<string, unknown>>({ mount: MOUNT, kind: "roles", name });

describe("keep.cloud configuration and roles", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack({ emulator: { register: registerCloudCredentialsEngine }, config: { "app:secretKey": SECRET_KEY } });
    stack.keep.mount(MOUNT, "cloudA");
  });
  afterAll(() => stack.close());

  test("preview of a new stack plans the creates and sends no request", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ create: 5 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("up writes each object; IDs are <mount> and <mount>/roles/<name>; the region in use is an output", async () => {
    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ create: 5 });
    expect(result.outputs).toEqual({
      root: MOUNT,
      current: "AKIADECLARED0000001",
      region: "us-east-1",
      lease: MOUNT,
      people: `${MOUNT}/roles/people`,
      deploy: `${MOUNT}/roles/deploy`,
      legacy: `${MOUNT}/roles/legacy`,
    });
    expect(cloudCredentialsAccess(stack.keep.state).rootConfig({ mount: MOUNT })).toMatchObject({ access_key: "AKIADECLARED0000001", secret_key: SECRET_KEY, max_retries: 5 });
    expect(stack.keep.objects.view({ mount: MOUNT, kind: "config", name: "lease" })).toEqual({ lease: 3600, lease_max: 86400 });
    expect(role(stack, "people")).toMatchObject({ credential_types: ["iam_user"], iam_tags: { team: "core", env: "dev" }, user_path: "/keep/", policy_document: POLICY });
    expect(role(stack, "deploy")).toMatchObject({ credential_types: ["assumed_role"], default_sts_ttl: 900, max_sts_ttl: 7200 });
    expect(role(stack, "legacy")).toMatchObject({ credential_types: ["assumed_role"], role_arns: ["arn:aws:iam::123456789012:role/legacy"] });
  });

  test("the secret key given by reference is nowhere in state, not even encrypted", async () => {
    const state = JSON.stringify(stack.engine.exportState());
    expect(state).not.toContain(SECRET_KEY);
    expect(state).toContain('"fromConfig":"app:secretKey"');
    const root = [...stack.engine.state.values()].find((r) => r.name === "root")!;
    expect(root.secretOutputs).not.toContain("secretKey");
  });

  test("equal forms are no change: reordered lists, reformatted JSON, tags as key=value, durations in other units; preview sends no request", async () => {
    const same: Shape = {
      lease: "60m",
      leaseMax: "86400s",
      policyDocument: JSON.stringify(JSON.parse(POLICY), null, 2).replace('"Version": "2012-10-17",', '"Version":   "2012-10-17",'),
      policyArns: "arn:aws:iam::aws:policy/IAMUserChangePassword, arn:aws:iam::aws:policy/ReadOnlyAccess",
      tags: ["env=dev", "team=core"],
      roleArns: ["arn:aws:iam::123456789012:role/audit", "arn:aws:iam::123456789012:role/deploy"],
      maxStsTtl: "120m",
    };
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program(same))).steps)).toEqual({ same: 5 });
    expect(stack.keep.log.count).toBe(0);
    expect(summarize((await stack.engine.up(program())).steps)).toEqual({ same: 5 });
  });

  test("a refresh with nothing changed on the service reports nothing (the default region and normalised durations are not drift)", async () => {
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps.filter((s) => (s.diffs ?? []).length > 0)).toEqual([]);
  });

  test("changing the secret key's config value plans exactly one update, and writes the new key", async () => {
    await stack.engine.setConfig(keepConfig(stack.keep, { "app:secretKey": "rotated-by-hand" }));
    const preview = await stack.engine.preview(program());
    expect(preview.steps.filter((s) => s.op !== "same").map((s) => [s.name, s.op, s.diffs])).toEqual([["root", "update", ["secretKey"]]]);
    await stack.engine.up(program());
    expect(cloudCredentialsAccess(stack.keep.state).rootConfig({ mount: MOUNT })?.secret_key).toBe("rotated-by-hand");
    expect(JSON.stringify(stack.engine.exportState())).not.toContain("rotated-by-hand");
  });

  test("changes are applied in place", async () => {
    const changed: Shape = { region: "eu-west-1", lease: "2h", tags: { team: "core" }, maxStsTtl: "4h" };
    const preview = await stack.engine.preview(program(changed));
    expect(changes(preview.steps.filter((s) => s.op === "update"))).toEqual([
      ["deploy", ["maxStsTtl"]],
      ["lease", ["lease"]],
      ["people", ["iamTags"]],
      ["root", ["region"]],
    ]);
    const up = await stack.engine.up(program(changed));
    expect(up.outputs.region).toBe("eu-west-1");
    expect(role(stack, "people")?.iam_tags).toEqual({ team: "core" });
    expect(role(stack, "deploy")?.max_sts_ttl).toBe(14400);
  });

  test("drift is seen on refresh and the next up restores the declared values", async () => {
    const changed: Shape = { region: "eu-west-1", lease: "2h", tags: { team: "core" }, maxStsTtl: "4h" };
    stack.keep.objects.change({ mount: MOUNT, kind: "roles", name: "people" }, { policy_arns: [], iam_tags: { team: "other" } });
    stack.keep.objects.change({ mount: MOUNT, kind: "config", name: "lease" }, { lease: 60 });
    stack.keep.objects.change({ mount: MOUNT, kind: "config", name: "root" }, { region: "ap-south-1" });
    const refreshed = await stack.engine.refresh();
    expect(changes(refreshed.steps.filter((s) => (s.diffs ?? []).length > 0))).toEqual([
      ["lease", ["lease"]],
      ["people", ["iamTags", "policyArns"]],
      ["root", ["currentRegion", "region"]],
    ]);
    expect(summarize((await stack.engine.up(program(changed))).steps)).toEqual({ same: 2, update: 3 });
    expect(role(stack, "people")).toMatchObject({ iam_tags: { team: "core" }, policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::aws:policy/IAMUserChangePassword"] });
    expect(stack.keep.objects.view({ mount: MOUNT, kind: "config", name: "lease" })).toEqual({ lease: 7200, lease_max: 86400 });
    expect(cloudCredentialsAccess(stack.keep.state).rootConfig({ mount: MOUNT })?.region).toBe("eu-west-1");
  });

  test("a role made outside the program is adopted and converged", async () => {
    stack.keep.objects.write({ mount: MOUNT, kind: "roles", name: "found" }, {
      credential_types: ["federation_token"],
      role_arns: [],
      policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"],
      policy_document: "",
      iam_groups: [],
      iam_tags: {},
      default_sts_ttl: 0,
      max_sts_ttl: 0,
      user_path: "",
      permissions_boundary_arn: "",
    });
    const changed: Shape = { region: "eu-west-1", lease: "2h", tags: { team: "core" }, maxStsTtl: "4h" };
    const result = await stack.engine.up(() => {
      program(changed)();
      new keep.cloud.Role("found", { mount: MOUNT, name: "found", credentialType: "federation_token", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"], maxStsTtl: "1h", adopt: true });
    });
    expect(result.steps.find((s) => s.name === "found")?.op).toBe("create");
    expect(role(stack, "found")?.max_sts_ttl).toBe(3600);
  });

  test("a read that holds invalid_data warns, naming the data", async () => {
    stack.keep.objects.change({ mount: MOUNT, kind: "roles", name: "found" }, { invalid_data: "arn:aws:iam::123456789012:group/old" });
    await stack.engine.refresh();
    // The host's stderr arrives on its own stream, possibly after the refresh's answer.
    const warning = /keep:CloudRole "cloud\/roles\/found": the service holds data of this role that an earlier version could not upgrade \(invalid_data: a legacy arn \(arn:aws:iam::123456789012:group\/old\)\)/;
    const printed = await waitFor({
      probe: async () => stack.engine.diagnostics().join("\n"),
      done: (text) => warning.test(text),
      timeoutMs: 10_000,
      describe: "the invalid_data warning",
      show: () => "not printed",
      policy: { baseDelayMs: 10, maxDelayMs: 200 },
    });
    expect(printed).toMatch(warning);
  });

  test("destroy deletes the roles and leaves both configurations, saying so", async () => {
    const result = await stack.engine.destroy();
    expect(summarize(result.steps)).toEqual({ delete: 6 });
    expect(stack.keep.objects.list({ mount: MOUNT, kind: "roles" })).toEqual([]);
    expect(stack.keep.objects.list({ mount: MOUNT, kind: "config" })).toEqual(["lease", "root"]);
    const said = result.diagnostics.join("\n");
    expect(said).toMatch(/keep:CloudRootConfig "cloud": left on the service: the engine has no delete for its root configuration/);
    expect(said).toMatch(/keep:CloudLeaseConfig "cloud": left on the service/);
  });
});

describe("keep.cloud rules, refused in preview", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack({ emulator: { register: registerCloudCredentialsEngine } });
  });
  afterAll(() => stack.close());

  const previewError = async (program: () => unknown): Promise<string> => {
    stack.keep.log.clear();
    const error = (await stack.engine.preview(program).catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(stack.keep.log.count).toBe(0);
    return error.message;
  };
  const roleError = (args: Record<string, unknown>) => previewError(() => new keep.cloud.Role("r", { name: "r", ...args } as keep.cloud.RoleArgs));
  const POLICY_ARN = "arn:aws:iam::aws:policy/ReadOnlyAccess";
  const ROLE_ARN = "arn:aws:iam::123456789012:role/x";

  test("credential types", async () => {
    expect(await roleError({})).toMatch(/credentialType: is required: iam_user, assumed_role, federation_token/);
    expect(await roleError({ credentialType: "root", policyArns: [POLICY_ARN] })).toMatch(/credentialType: must be iam_user, assumed_role, federation_token/);
  });

  test("roleArns: required for assumed_role, refused otherwise", async () => {
    expect(await roleError({ credentialType: "assumed_role" })).toMatch(/roleArns: is required with credentialType assumed_role/);
    expect(await roleError({ credentialType: "assumed_role", roleArns: " , " })).toMatch(/roleArns: is required with credentialType assumed_role/);
    expect(await roleError({ credentialType: "iam_user", policyArns: [POLICY_ARN], roleArns: [ROLE_ARN] })).toMatch(/roleArns: is valid only with credentialType assumed_role, not iam_user/);
  });

  test("policyArns or policyDocument for iam_user and federation_token; the document is JSON", async () => {
    expect(await roleError({ credentialType: "iam_user" })).toMatch(/policyArns: or policyDocument is required with credentialType iam_user/);
    expect(await roleError({ credentialType: "federation_token", policyArns: [] })).toMatch(/policyArns: or policyDocument is required with credentialType federation_token/);
    expect(await roleError({ credentialType: "iam_user", policyDocument: "{ not json" })).toMatch(/policyDocument: must be an IAM policy document as JSON/);
  });

  test("STS TTLs only for assumed_role and federation_token, default within max, durations in seconds, Go units or whole days", async () => {
    expect(await roleError({ credentialType: "iam_user", policyArns: [POLICY_ARN], defaultStsTtl: "1h" })).toMatch(/defaultStsTtl: is valid only with credentialType assumed_role or federation_token, not iam_user/);
    expect(await roleError({ credentialType: "iam_user", policyArns: [POLICY_ARN], maxStsTtl: 3600 })).toMatch(/maxStsTtl: is valid only with credentialType/);
    expect(await roleError({ credentialType: "federation_token", policyArns: [POLICY_ARN], defaultStsTtl: "2h", maxStsTtl: "60m" })).toMatch(/defaultStsTtl: must not exceed maxStsTtl/);
    expect(await roleError({ credentialType: "federation_token", policyArns: [POLICY_ARN], maxStsTtl: "1w" })).toMatch(/maxStsTtl: must be a number of seconds, a duration such as "1h", "90m" or "3600s", or days such as "7d"/);
    // The service takes whole days in every duration field but the lease configuration's.
    const days = await stack.engine.preview(() => new keep.cloud.Role("days", { name: "days", credentialType: "federation_token", policyArns: [POLICY_ARN], defaultStsTtl: "1d", maxStsTtl: "2d" }));
    expect(days.steps.map((s) => `${s.op} ${s.name}`)).toContain("create days");
    expect(await roleError({ credentialType: "federation_token", policyArns: [POLICY_ARN], defaultStsTtl: "3d", maxStsTtl: "48h" })).toMatch(/defaultStsTtl: must not exceed maxStsTtl/);
  });

  test("userPath and permissionsBoundaryArn only for iam_user, and well formed", async () => {
    expect(await roleError({ credentialType: "assumed_role", roleArns: [ROLE_ARN], userPath: "/x/" })).toMatch(/userPath: is valid only with credentialType iam_user, not assumed_role/);
    expect(await roleError({ credentialType: "federation_token", policyArns: [POLICY_ARN], permissionsBoundaryArn: POLICY_ARN })).toMatch(/permissionsBoundaryArn: is valid only with credentialType iam_user/);
    expect(await roleError({ credentialType: "iam_user", policyArns: [POLICY_ARN], userPath: "keep" })).toMatch(/userPath: must begin and end with '\/'/);
    expect(await roleError({ credentialType: "iam_user", policyArns: [POLICY_ARN], iamTags: ["team"] })).toMatch(/iamTags/);
  });

  test("legacy policy and arn: one or the other, never mixed with the current parameters", async () => {
    expect(await roleError({ policy: "{}", arn: ROLE_ARN })).toMatch(/arn: cannot be given with policy/);
    expect(await roleError({ arn: ROLE_ARN, credentialType: "assumed_role", roleArns: [ROLE_ARN] })).toMatch(/credentialType: cannot be mixed with the legacy arn[\s\S]*roleArns: cannot be mixed with the legacy arn/);
    expect(await roleError({ policy: "{}", iamGroups: ["g"] })).toMatch(/iamGroups: cannot be mixed with the legacy policy/);
    expect(await roleError({ arn: "arn:aws:iam::1:group/g" })).toMatch(/arn: must be the ARN of a role/);
  });

  test("lease configuration: durations up to hours, lease within leaseMax", async () => {
    expect(await previewError(() => new keep.cloud.LeaseConfig("l", { lease: "1d", leaseMax: "48h" }))).toMatch(/lease: must be a number of seconds or a duration .*h is the largest unit the lease configuration takes/);
    expect(await previewError(() => new keep.cloud.LeaseConfig("l", { lease: "2h", leaseMax: "90m" }))).toMatch(/lease: must not exceed leaseMax \(2h is longer than 90m\)/);
  });

  test("root configuration: a username template must parse and read only the known fields", async () => {
    const root = (usernameTemplate: string) => () => new keep.cloud.RootConfig("root", { accessKey: "AKIA1", secretKey: "s", usernameTemplate });
    expect(await previewError(root("{{ if .Type }}x"))).toMatch(/usernameTemplate: does not parse: unexpected EOF/);
    expect(await previewError(root("{{ .Name }}"))).toMatch(/usernameTemplate: reads \.Name; a username template has only \.Type, \.DisplayName, \.PolicyName/);
    expect(await previewError(root("{{ shout .Type }}"))).toMatch(/usernameTemplate: does not parse: function "shout" not defined/);
  });
});
