/**
 * The Policies section of the spec (`sys/policies/acl|rgp|egp`) on the emulator, over real HTTP:
 * answers shaped as the system backend's (fields at the top level and in `data`), and the
 * out-of-band policy helpers.
 */
import { startKeepEmulator } from "../../../emulator/keep";
import { call, encode, expectEnvelope, expectErrors, keep, useKeepEmulator } from "./fixture";

useKeepEmulator();

/**
 * A system-backend read: the fields at the top level and, identical, in `data`, inside the
 * envelope with `mount_type: "system"`.
 */
function expectSystemRead(body: any, fields: Record<string, unknown>): void {
  expectEnvelope(body, "system");
  expect(body.lease_duration).toBe(0);
  expect(body.data).toEqual(fields);
  const { request_id, lease_id, renewable, lease_duration, data, wrap_info, warnings, auth, mount_type, ...topLevel } = body;
  expect(topLevel).toEqual(fields);
}

describe("ACL policies", () => {
  test("create, read, update with PUT, delete", async () => {
    const hcl = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
    expect((await call("POST", "/v1/sys/policies/acl/reader", { body: { policy: hcl } })).status).toBe(204);
    const read = await call("GET", "/v1/sys/policies/acl/reader");
    expect(read.status).toBe(200);
    expectSystemRead(read.body, { name: "reader", policy: hcl });

    expect((await call("PUT", "/v1/sys/policies/acl/reader", { body: { policy: "# changed" } })).status).toBe(204);
    expectSystemRead((await call("GET", "/v1/sys/policies/acl/reader")).body, { name: "reader", policy: "# changed" });

    expect((await call("DELETE", "/v1/sys/policies/acl/reader")).status).toBe(204);
    const gone = await call("GET", "/v1/sys/policies/acl/reader");
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ errors: [] });
  });

  test("deleting an absent policy answers 204", async () => {
    expect((await call("DELETE", "/v1/sys/policies/acl/never-was")).status).toBe(204);
  });

  test("names are case-insensitive and stored lower-cased", async () => {
    expect((await call("POST", "/v1/sys/policies/acl/MixedCase", { body: { policy: "# m" } })).status).toBe(204);
    expectSystemRead((await call("GET", "/v1/sys/policies/acl/mixedcase")).body, { name: "mixedcase", policy: "# m" });
    expect((await call("GET", "/v1/sys/policies/acl/MIXEDCASE")).body.name).toBe("mixedcase");
    const list = await call("GET", "/v1/sys/policies/acl?list=true");
    expect(list.body.keys).toContain("mixedcase");
    expect(list.body.keys).not.toContain("MixedCase");
  });

  test("policy is required and must not be empty, and the error names it", async () => {
    const missing = expectErrors(await call("POST", "/v1/sys/policies/acl/nothing", { body: {} }), 400);
    expect(missing[0]).toContain("policy");
    const empty = expectErrors(await call("POST", "/v1/sys/policies/acl/nothing", { body: { policy: "" } }), 400);
    expect(empty[0]).toContain("policy");
    expect(keep().getPolicy("acl", "nothing")).toBeUndefined();
  });

  test("an ACL document the service cannot read is refused with its 400 and message, plain, JSON or base64, and nothing is stored", async () => {
    const cases: [string, string][] = [
      ['path "secret/*" { capabilities = ["reed"] }', 'failed to parse policy: path "secret/*": invalid capability "reed"'],
      ['path "secret/*" { capabilities = ["read"', "failed to parse policy: At 1:41: error parsing list, expected comma or list end, got: EOF"],
      ['paths "secret/*" { capabilities = ["read"] }', 'failed to parse policy: invalid key "paths"'],
      ['path "secret/+*" { capabilities = ["read"] }', "failed to parse policy: path \"secret/+*\": invalid use of wildcards ('+*' is forbidden)"],
      ['path "a" {\n  capabilities = ["read"]\n  capabilities = ["list"]\n}', 'failed to parse policy: The argument "capabilities" was already set. Each argument can only be defined once'],
      ['{"path": {"secret/*": {"policy": "admin"}}}', 'failed to parse policy: path "secret/*": invalid policy "admin"'],
      [encode('path "a" { capabilities = ["read"] control_group = {} }'), "failed to parse policy: no control group factors provided"],
    ];
    for (const [policy, message] of cases) {
      expect(expectErrors(await call("POST", "/v1/sys/policies/acl/refused", { body: { policy } }), 400)).toEqual([message]);
    }
    expect(keep().getPolicy("acl", "refused")).toBeUndefined();
  });

  test("a base64-encoded policy is decoded and stored decoded", async () => {
    const hcl = 'path "kv/*" {\n  capabilities = ["list"]\n}\n';
    expect((await call("POST", "/v1/sys/policies/acl/encoded", { body: { policy: encode(hcl) } })).status).toBe(204);
    expect((await call("GET", "/v1/sys/policies/acl/encoded")).body.policy).toBe(hcl);
  });

  test("text that is valid base64 but decodes to no readable text is kept as sent", async () => {
    // "////" is valid base64 whose bytes are not UTF-8 (and, kept as sent, a comment: an empty policy).
    expect((await call("POST", "/v1/sys/policies/acl/literal", { body: { policy: "////" } })).status).toBe(204);
    expect(keep().getPolicy("acl", "literal")?.policy).toBe("////");
  });

  test("list answers sorted names including root and default", async () => {
    keep().putPolicy("acl", "zeta", { policy: "# z" });
    keep().putPolicy("acl", "alpha", { policy: "# a" });
    const list = await call("GET", "/v1/sys/policies/acl?list=true");
    expect(list.status).toBe(200);
    // Lists of the system backend carry `keys` at the top level and in `data`.
    expectEnvelope(list.body, "system");
    expect(list.body.data).toEqual({ keys: list.body.keys });
    expect(list.body.keys).toEqual([...list.body.keys].sort());
    expect(list.body.keys).toEqual(expect.arrayContaining(["alpha", "default", "root", "zeta"]));
  });

  test("root cannot be modified or deleted; default can be modified but not deleted", async () => {
    expectErrors(await call("POST", "/v1/sys/policies/acl/root", { body: { policy: "# no" } }), 400);
    expectErrors(await call("DELETE", "/v1/sys/policies/acl/root"), 400);
    expectErrors(await call("DELETE", "/v1/sys/policies/acl/Default"), 400);
    expectSystemRead((await call("GET", "/v1/sys/policies/acl/root")).body, { name: "root", policy: "" });
    expect((await call("POST", "/v1/sys/policies/acl/default", { body: { policy: "# tuned" } })).status).toBe(204);
    expect(keep().getPolicy("acl", "default")?.policy).toBe("# tuned");
  });
});

describe("RGP policies", () => {
  test("enforcement_level is required and must be one of the three levels", async () => {
    const missing = expectErrors(await call("POST", "/v1/sys/policies/rgp/r1", { body: { policy: "main = rule { true }" } }), 400);
    expect(missing[0]).toContain("enforcement_level");
    const wrong = expectErrors(
      await call("POST", "/v1/sys/policies/rgp/r1", { body: { policy: "main = rule { true }", enforcement_level: "strict" } }),
      400,
    );
    expect(wrong[0]).toContain("enforcement_level");
    expect(keep().getPolicy("rgp", "r1")).toBeUndefined();
  });

  test.each(["advisory", "soft-mandatory", "hard-mandatory"])("level %s is stored and read back", async (level) => {
    const name = `rgp-${level}`;
    const policy = "main = rule { true }";
    expect((await call("POST", `/v1/sys/policies/rgp/${name}`, { body: { policy, enforcement_level: level } })).status).toBe(204);
    const read = await call("GET", `/v1/sys/policies/rgp/${name}`);
    expectSystemRead(read.body, { name, policy, enforcement_level: level });
  });

  test("policy is required; base64 is decoded; list and delete", async () => {
    expectErrors(await call("POST", "/v1/sys/policies/rgp/r2", { body: { enforcement_level: "advisory" } }), 400);
    const policy = "main = rule { 1 == 1 }";
    await call("POST", "/v1/sys/policies/rgp/R2", { body: { policy: encode(policy), enforcement_level: "advisory" } });
    expect(keep().getPolicy("rgp", "r2")).toEqual({ name: "r2", policy, enforcement_level: "advisory" });
    const list = await call("GET", "/v1/sys/policies/rgp?list=true");
    expect(list.body.keys).toEqual(expect.arrayContaining(["r2"]));
    expect(list.body.data.keys).toEqual(list.body.keys);
    expect((await call("DELETE", "/v1/sys/policies/rgp/r2")).status).toBe(204);
    expect((await call("GET", "/v1/sys/policies/rgp/r2")).status).toBe(404);
  });
});

describe("EGP policies", () => {
  const policy = "main = rule { true }";

  test("paths as a comma-separated string are trimmed, without empties", async () => {
    const body = { policy, enforcement_level: "soft-mandatory", paths: " secret/* , kv/data/app ,, " };
    expect((await call("POST", "/v1/sys/policies/egp/by-string", { body })).status).toBe(204);
    const read = await call("GET", "/v1/sys/policies/egp/by-string");
    expectSystemRead(read.body, { enforcement_level: "soft-mandatory", name: "by-string", paths: ["secret/*", "kv/data/app"], policy });
    expect(Object.keys(read.body.data)).toEqual(["enforcement_level", "name", "paths", "policy"]);
  });

  test("paths as an array of strings", async () => {
    const body = { policy, enforcement_level: "hard-mandatory", paths: ["*", " sys/mounts "] };
    expect((await call("PUT", "/v1/sys/policies/egp/by-array", { body })).status).toBe(204);
    expect((await call("GET", "/v1/sys/policies/egp/by-array")).body.paths).toEqual(["*", "sys/mounts"]);
  });

  test("paths are required and must hold at least one path of strings", async () => {
    const base = { policy, enforcement_level: "advisory" };
    expect(expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: base }), 400)[0]).toContain("paths");
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { ...base, paths: " , " } }), 400);
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { ...base, paths: [] } }), 400);
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { ...base, paths: [{ path: "a" }] } }), 400);
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { ...base, paths: ["a"], enforcement_level: "none" } }), 400);
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { paths: ["a"], enforcement_level: "advisory" } }), 400);
    expect(keep().getPolicy("egp", "bad")).toBeUndefined();
  });

  test("list answers sorted keys and a name_path_map with glob status", async () => {
    const egp = await startKeepEmulator();
    try {
      const headers = { "X-Keep-Token": egp.rootToken };
      const empty = await fetch(`${egp.url}/v1/sys/policies/egp?list=true`, { headers });
      expect(empty.status).toBe(404);
      expect(await empty.json()).toEqual({ errors: [] });
      for (const [name, paths] of [["zz", "secret/*,sys/mounts"], ["aa", ["*"]]] as const) {
        const response = await fetch(`${egp.url}/v1/sys/policies/egp/${name}`, {
          method: "POST",
          headers,
          body: JSON.stringify({ policy, enforcement_level: "advisory", paths }),
        });
        expect(response.status).toBe(204);
      }
      const list = await fetch(`${egp.url}/v1/sys/policies/egp?list=true`, { headers });
      expect(list.status).toBe(200);
      const expected = {
        keys: ["aa", "zz"],
        name_path_map: {
          aa: [{ path: "", glob: true }],
          zz: [
            { path: "secret/", glob: true },
            { path: "sys/mounts", glob: false },
          ],
        },
      };
      // Both places, as the system backend answers lists.
      const listed = (await list.json()) as any;
      expectEnvelope(listed, "system");
      expect(listed.data).toEqual(expected);
      expect({ keys: listed.keys, name_path_map: listed.name_path_map }).toEqual(expected);
    } finally {
      await egp.close();
    }
  });
});

describe("test-facing state helpers", () => {
  test("out-of-band writes and deletes are what the API then answers", async () => {
    keep().putPolicy("egp", "OOB", { policy: "main = rule { true }", enforcement_level: "advisory", paths: ["a/*"] });
    expectSystemRead((await call("GET", "/v1/sys/policies/egp/oob")).body, {
      enforcement_level: "advisory",
      name: "oob",
      paths: ["a/*"],
      policy: "main = rule { true }",
    });
    expect(keep().listPolicies("egp")).toContain("oob");
    keep().deletePolicy("egp", "oob");
    expect((await call("GET", "/v1/sys/policies/egp/oob")).status).toBe(404);
    expect(keep().getPolicy("egp", "oob")).toBeUndefined();
  });

  test("helpers name a namespace that must exist", () => {
    expect(() => keep().listPolicies("acl", "not-there")).toThrow(/not-there/);
  });
});
