/**
 * The cloud-credentials engine of the secrets-service emulator over raw HTTP: the root
 * configuration (no secret key on read), rotation (a new key, the old one dead, refused with two
 * keys, the provider's eventual consistency afterwards), lease durations, the role table's rules,
 * legacy roles, credentials per type with leases, and usernames from templates.
 */
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { cloudCredentialsAccess, CloudCredentialsAccess, registerCloudCredentialsEngine } from "../../emulator/keep/cloud-credentials";

let keep: KeepEmulator;
let cloud: CloudCredentialsAccess;
const MOUNT = "teams/cloud";

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${keep.url}/v1/${path}`, {
    method,
    headers: { "X-Keep-Token": keep.rootToken },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
const post = (path: string, body: unknown = {}) => call("POST", `${MOUNT}/${path}`, body);
const get = (path: string) => call("GET", `${MOUNT}/${path}`);
const ref = { mount: MOUNT };

const IAM_ROLE = { credential_type: "iam_user", policy_arns: "arn:aws:iam::aws:policy/ReadOnlyAccess" };

beforeAll(async () => {
  keep = await startKeepEmulator({ register: registerCloudCredentialsEngine });
  keep.mount(MOUNT, "cloudA");
  cloud = cloudCredentialsAccess(keep.state);
  cloud.settings.consistencyWindowMs = 0;
});
afterAll(() => keep.close());

describe("root configuration", () => {
  test("is read without the secret key; region us-east-1 when unset; max_retries -1 by default", async () => {
    expect((await get("config/root")).status).toBe(204);
    expect((await post("config/root", { access_key: "AKIAFIRST", secret_key: "s1" })).status).toBe(204);
    const read = await get("config/root");
    expect(read.body.data).toEqual({ access_key: "AKIAFIRST", region: "us-east-1", iam_endpoint: "", sts_endpoint: "", max_retries: -1 });
    expect(read.body.mount_type).toBe("cloudA");
    expect(JSON.stringify(read.body)).not.toContain("s1");
  });

  test("both keys are required, and a write replaces the whole configuration", async () => {
    expect((await post("config/root", { access_key: "AKIAFIRST" })).body).toEqual({ errors: ["'secret_key' parameter not supplied or empty"] });
    await post("config/root", { access_key: "AKIAFIRST", secret_key: "s1", region: "eu-west-1", max_retries: 3 });
    await post("config/root", { access_key: "AKIAFIRST", secret_key: "s1" });
    expect((await get("config/root")).body.data).toMatchObject({ region: "us-east-1", max_retries: -1 });
  });

  test("a username template that does not parse is a 400", async () => {
    const r = await post("config/root", { access_key: "AKIAFIRST", secret_key: "s1", username_template: "{{ if .Type }}x" });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/unable to initialize username template: .*without \{\{end\}\}/);
  });
});

describe("rotation", () => {
  let n = 0;
  beforeEach(async () => {
    cloud.settings.consistencyWindowMs = 0;
    // A fresh key each time: a rotated one stays revoked.
    await post("config/root", { access_key: `AKIAROTATE${++n}`, secret_key: "s1" });
  });

  test("makes a new key, keeps its secret, deletes the old key", async () => {
    const r = await post("config/rotate-root");
    expect(r.status).toBe(200);
    const fresh = r.body.data.access_key as string;
    expect(fresh).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect((await get("config/root")).body.data.access_key).toBe(fresh);
    expect(cloud.rootKeys(ref)).toEqual([fresh]);
    expect(cloud.isKeyUsable("AKIAROTATE1", ref)).toBe(false);
    expect(cloud.rootConfig(ref)?.secret_key).toHaveLength(40);

    // The revoked key written back stays revoked: credentials fail with the provider's refusal.
    await post("config/root", { access_key: "AKIAROTATE1", secret_key: "s1" });
    await post("roles/reader", IAM_ROLE);
    const creds = await get("creds/reader");
    expect(creds.status).toBe(400);
    expect(creds.body.errors[0]).toMatch(/^Error creating IAM user: InvalidClientTokenId/);
  });

  test("is refused (500) while the user holds a second key", async () => {
    await post("config/root", { access_key: "AKIASECOND", secret_key: "s2" });
    const extra = cloud.addRootKey(ref);
    const r = await post("config/rotate-root");
    expect(r.status).toBe(500);
    expect(r.body.errors[0]).toMatch(/^error calling CreateAccessKey: LimitExceeded: Cannot exceed quota for AccessKeysPerUser: 2/);
    expect((await get("config/root")).body.data.access_key).toBe("AKIASECOND");
    cloud.deleteKey(extra, ref);
  });

  test("the new key is refused for a while: credentials 400, another rotation 500, as the service answers", async () => {
    await post("roles/reader", IAM_ROLE);
    cloud.settings.consistencyWindowMs = 60_000;
    const fresh = (await post("config/rotate-root")).body.data.access_key;
    const creds = await get("creds/reader");
    expect(creds.status).toBe(400);
    expect(creds.body.errors[0]).toMatch(/^Error creating IAM user: InvalidClientTokenId: The security token included in the request is invalid/);
    const again = await post("config/rotate-root");
    expect(again.status).toBe(500);
    expect(again.body.errors[0]).toMatch(/^error calling GetUser: InvalidClientTokenId/);
    // A test may make the window answer with another status.
    cloud.settings.consistencyStatus = 412;
    expect((await get("creds/reader")).status).toBe(412);
    delete cloud.settings.consistencyStatus;
    expect(cloud.isKeyUsable(fresh, ref)).toBe(false);
  });

  test("without root credentials there is nothing to rotate (400)", async () => {
    keep.mount("empty", "cloudA");
    const r = await call("POST", "empty/config/rotate-root");
    expect(r).toEqual({ status: 400, body: { errors: ["Cannot call config/rotate-root when either access_key or secret_key is empty"] } });
  });
});

describe("lease configuration", () => {
  test("durations are read normalised; h is the largest unit", async () => {
    expect((await post("config/lease", { lease: "90m", lease_max: 86400 })).status).toBe(204);
    expect((await get("config/lease")).body.data).toEqual({ lease: "1h30m0s", lease_max: "24h0m0s" });
    const r = await post("config/lease", { lease: "1d", lease_max: "2d" });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/invalid lease: "1d" is not a duration/);
    expect((await post("config/lease", { lease: "1h" })).body.errors).toEqual(["'lease_max' parameter not supplied or empty"]);
  });
});

describe("roles", () => {
  const refused = async (body: Record<string, unknown>) => {
    const r = await post("roles/r", body);
    expect(r.status).toBe(400);
    return r.body.errors[0] as string;
  };

  test("every rule of the role table is a 400 naming it", async () => {
    expect(await refused({})).toBe("did not supply credential_type");
    expect(await refused({ credential_type: "root" })).toMatch(/unrecognized credential_type "root"/);
    expect(await refused({ credential_type: "assumed_role" })).toBe("role_arns is required with credential type assumed_role");
    expect(await refused({ ...IAM_ROLE, role_arns: ["arn:aws:iam::1:role/x"] })).toBe("cannot supply role_arns when not using assumed_role credential type");
    expect(await refused({ credential_type: "iam_user" })).toBe("at least one of policy_arns or policy_document is required with credential type iam_user");
    expect(await refused({ credential_type: "federation_token" })).toBe("at least one of policy_arns or policy_document is required with credential type federation_token");
    expect(await refused({ ...IAM_ROLE, default_sts_ttl: "1h" })).toBe("default_sts_ttl is valid only with credential types assumed_role and federation_token");
    expect(await refused({ ...IAM_ROLE, max_sts_ttl: 3600 })).toBe("max_sts_ttl is valid only with credential types assumed_role and federation_token");
    expect(await refused({ credential_type: "federation_token", policy_arns: ["a"], default_sts_ttl: "2h", max_sts_ttl: "1h" })).toBe("default_sts_ttl cannot exceed max_sts_ttl");
    expect(await refused({ credential_type: "federation_token", policy_arns: ["a"], user_path: "/x/" })).toBe("user_path is valid only with credential type iam_user");
    expect(await refused({ credential_type: "federation_token", policy_arns: ["a"], permissions_boundary_arn: "arn:aws:iam::1:policy/b" })).toBe(
      "permissions_boundary_arn is valid only with credential type iam_user",
    );
    expect(await refused({ ...IAM_ROLE, user_path: "x" })).toMatch(/invalid user_path "x"/);
    expect(await refused({ ...IAM_ROLE, policy_document: "{nope" })).toMatch(/invalid policy_document: not valid JSON/);
    expect(await refused({ ...IAM_ROLE, iam_tags: ["team"] })).toMatch(/invalid iam_tags: "team" is not of the form key=value/);
    expect(await refused({ policy: "{}", arn: "arn:aws:iam::1:role/x" })).toBe("only one of the legacy parameters policy and arn may be given");
    expect(await refused({ policy: "{}", credential_type: "iam_user", iam_groups: "g" })).toBe("legacy parameter policy cannot be mixed with credential_type, iam_groups");
  });

  test("a role reads back with credential_types; lists as strings or arrays; tags as a map; TTLs in seconds", async () => {
    expect(
      (
        await post("roles/deploy", {
          credential_type: "assumed_role",
          role_arns: "arn:aws:iam::123456789012:role/a, arn:aws:iam::123456789012:role/b",
          iam_groups: ["ops"],
          default_sts_ttl: "30m",
          max_sts_ttl: "2h",
        })
      ).status,
    ).toBe(204);
    expect((await get("roles/deploy")).body.data).toEqual({
      credential_types: ["assumed_role"],
      role_arns: ["arn:aws:iam::123456789012:role/a", "arn:aws:iam::123456789012:role/b"],
      policy_arns: [],
      policy_document: "",
      iam_groups: ["ops"],
      iam_tags: {},
      default_sts_ttl: 1800,
      max_sts_ttl: 7200,
      user_path: "",
      permissions_boundary_arn: "",
    });
    await post("roles/people", { ...IAM_ROLE, iam_tags: ["team=core", "env=dev"], policy_document: '{ "Version": "2012-10-17" }' });
    expect((await get("roles/people")).body.data).toMatchObject({ iam_tags: { team: "core", env: "dev" }, user_path: "/", policy_document: '{"Version":"2012-10-17"}' });
    // A write keeps what it does not mention; an empty value clears.
    await post("roles/people", { iam_tags: {} });
    expect((await get("roles/people")).body.data).toMatchObject({ iam_tags: {}, credential_types: ["iam_user"], policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
  });

  test("legacy policy and arn are upgraded to the current form", async () => {
    await post("roles/legacy-policy", { policy: '{"Version": "2012-10-17"}' });
    expect((await get("roles/legacy-policy")).body.data).toMatchObject({ credential_types: ["iam_user", "federation_token"], policy_document: '{"Version":"2012-10-17"}' });
    await post("roles/legacy-role", { arn: "arn:aws:iam::123456789012:role/admin" });
    expect((await get("roles/legacy-role")).body.data).toMatchObject({ credential_types: ["assumed_role"], role_arns: ["arn:aws:iam::123456789012:role/admin"] });
    await post("roles/legacy-managed", { arn: "arn:aws:iam::aws:policy/ReadOnlyAccess" });
    expect((await get("roles/legacy-managed")).body.data).toMatchObject({ credential_types: ["iam_user"], policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
  });

  test("a missing role is a 404 on read and on delete; list gives the names", async () => {
    expect((await get("roles/absent")).status).toBe(404);
    expect((await call("DELETE", `${MOUNT}/roles/absent`)).status).toBe(404);
    expect((await call("GET", `${MOUNT}/roles?list=true`)).body.data.keys).toEqual(expect.arrayContaining(["deploy", "people"]));
    expect((await call("DELETE", `${MOUNT}/roles/legacy-managed`)).status).toBe(204);
  });
});

describe("credentials", () => {
  beforeAll(async () => {
    cloud.settings.consistencyWindowMs = 0;
    await post("config/root", { access_key: "AKIACREDS", secret_key: "sc" });
    await post("config/lease", { lease: "1h", lease_max: "24h" });
    await post("roles/people", { ...IAM_ROLE, user_path: "/keep/", iam_tags: { team: "core" }, iam_groups: "ops" });
    await post("roles/deploy", { credential_type: "assumed_role", role_arns: ["arn:aws:iam::123456789012:role/a", "arn:aws:iam::123456789012:role/b"], max_sts_ttl: "2h" });
    await post("roles/single", { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/only", default_sts_ttl: "20m" });
    await post("roles/fed", { credential_type: "federation_token", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
    await post("roles/legacy", { policy: '{"Version":"2012-10-17"}' });
  });

  test("an IAM user: keys without a token, a renewable lease of the lease configuration, a user named by the default template", async () => {
    const r = await get("creds/people");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ lease_duration: 3600, renewable: true, data: { security_token: null } });
    expect(r.body.lease_id).toMatch(new RegExp(`^${MOUNT}/creds/people/`));
    const user = cloud.generated(ref).at(-1)!;
    expect(user).toMatchObject({ kind: "iam_user", accessKey: r.body.data.access_key, path: "/keep/", tags: { team: "core" }, groups: ["ops"] });
    expect(user.name).toMatch(/^keep-root-people-\d{10}-[A-Za-z0-9]{20}$/);
    expect(r.body.data.arn).toBe(`arn:aws:iam::123456789012:user/keep/${user.name}`);
    expect((await call("GET", `${MOUNT}/creds/people?ttl=1h`)).body.errors).toEqual(["ttl is valid only with credential types assumed_role and federation_token"]);
  });

  test("an assumed role: role_arn required when several are allowed, capped TTL, not renewable", async () => {
    expect((await get("creds/deploy")).body.errors).toEqual(['role_arn must be supplied: role "deploy" allows 2 role ARNs']);
    expect((await call("GET", `${MOUNT}/creds/deploy?role_arn=arn:aws:iam::1:role/x`)).status).toBe(400);
    const r = await call("GET", `${MOUNT}/creds/deploy?role_arn=arn:aws:iam::123456789012:role/b&ttl=5h&role_session_name=ci`);
    expect(r.body).toMatchObject({ lease_duration: 7200, renewable: false, data: { arn: "arn:aws:sts::123456789012:assumed-role/b/ci" } });
    expect(r.body.data.security_token).toEqual(expect.any(String));
    const single = await post("sts/single");
    expect(single.body.lease_duration).toBe(1200);
    expect(single.body.data.arn).toMatch(/^arn:aws:sts::123456789012:assumed-role\/only\/keep-root-single-/);
    expect((await post("sts/single", { ttl: "5m" })).body.errors[0]).toMatch(/DurationSeconds must be between 900/);
  });

  test("a federation token: STS username of at most 32 characters; sts/ refuses IAM-only roles", async () => {
    const r = await post("sts/fed", { ttl: "1h" });
    expect(r.body.lease_duration).toBe(3600);
    const user = cloud.generated(ref).at(-1)!;
    expect(user.name).toMatch(/^keep-\d{10}-[A-Za-z0-9]{16}$/);
    expect(user.name).toHaveLength(32);
    expect((await post("sts/people")).body.errors[0]).toMatch(/has only credential type iam_user/);
  });

  test("a legacy policy role gives IAM users through creds/ and federation tokens through sts/", async () => {
    expect((await get("creds/legacy")).body.data.security_token).toBeNull();
    expect(cloud.generated(ref).at(-1)!.kind).toBe("iam_user");
    expect((await post("sts/legacy")).body.data.security_token).toEqual(expect.any(String));
    expect(cloud.generated(ref).at(-1)!.kind).toBe("federation_token");
  });

  test("a custom template: conditional on the type, pipes; too long a name is a 500", async () => {
    await post("config/root", {
      access_key: "AKIACREDS",
      secret_key: "sc",
      username_template: '{{ if eq .Type "STS" }}fed-{{ unix_time }}{{ else }}{{ printf "%s.%s" .DisplayName .PolicyName | uppercase }}{{ end }}',
    });
    await get("creds/people");
    expect(cloud.generated(ref).at(-1)!.name).toBe("ROOT.PEOPLE");
    await post("sts/fed");
    expect(cloud.generated(ref).at(-1)!.name).toMatch(/^fed-\d{10}$/);
    await post("config/root", { access_key: "AKIACREDS", secret_key: "sc", username_template: "{{ random 40 }}" });
    const r = await post("sts/fed");
    expect(r).toEqual({ status: 500, body: { errors: ["the username generated by the template exceeds the STS username length limits of 32 chars"] } });
    await post("config/root", { access_key: "AKIACREDS", secret_key: "sc" });
  });

  test("an unknown role is a 400", async () => {
    expect((await get("creds/nobody")).body).toEqual({ errors: ['role "nobody" not found'] });
  });
});
