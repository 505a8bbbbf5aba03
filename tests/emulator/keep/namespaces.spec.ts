/** Namespaces on the secrets-service emulator: header and path prefix, isolation, `sys/namespaces`. */
import { call, expectErrors, keep, useKeepEmulator } from "./fixture";

useKeepEmulator();

describe("namespaces", () => {
  beforeAll(() => {
    keep().addNamespace("team-a");
    keep().addNamespace("team-a/dev");
  });

  test("the header and the path prefix address the same namespace", async () => {
    const byHeader = await call("POST", "/v1/sys/policies/acl/shared", {
      headers: { "X-Keep-Namespace": "team-a" },
      body: { policy: "# team-a" },
    });
    expect(byHeader.status).toBe(204);
    expect((await call("GET", "/v1/team-a/sys/policies/acl/shared")).body.data).toEqual({ name: "shared", policy: "# team-a" });
    expect(
      (await call("GET", "/v1/sys/policies/acl/shared", { headers: { "X-Keep-Namespace": "team-a/" } })).body.policy,
    ).toBe("# team-a");
    expect(keep().getPolicy("acl", "shared", "team-a")?.policy).toBe("# team-a");
  });

  test("namespaces are isolated from each other and from the root", async () => {
    await call("POST", "/v1/team-a/dev/sys/policies/acl/only-dev", { body: { policy: "# dev" } });
    expect((await call("GET", "/v1/sys/policies/acl/only-dev")).status).toBe(404);
    expect((await call("GET", "/v1/team-a/sys/policies/acl/only-dev")).status).toBe(404);
    expect((await call("GET", "/v1/team-a/dev/sys/policies/acl/only-dev")).status).toBe(200);
    expect(keep().listPolicies("acl", "team-a/dev")).toEqual(["default", "only-dev", "root"]);
    expect(keep().listPolicies("acl")).not.toContain("only-dev");
  });

  test("every namespace has its own root and default ACL policies", async () => {
    const list = await call("GET", "/v1/team-a/dev/sys/policies/acl?list=true");
    expect(list.body.keys).toEqual(expect.arrayContaining(["default", "root"]));
    expect((await call("DELETE", "/v1/team-a/dev/sys/policies/acl/default")).status).toBe(400);
  });

  test("a header and a path prefix combine", async () => {
    keep().putPolicy("acl", "nested", { policy: "# nested" }, "team-a/dev");
    const combined = await call("GET", "/v1/dev/sys/policies/acl/nested", { headers: { "X-Keep-Namespace": "team-a/" } });
    expect(combined.status).toBe(200);
    expect(combined.body.policy).toBe("# nested");
    const headerOnly = await call("GET", "/v1/sys/policies/acl/nested", { headers: { "X-Keep-Namespace": "team-a/dev" } });
    expect(headerOnly.body.policy).toBe("# nested");
  });

  test("a request into a namespace that does not exist is 404", async () => {
    expectErrors(await call("GET", "/v1/sys/policies/acl/default", { headers: { "X-Keep-Namespace": "missing" } }), 404);
    expectErrors(await call("GET", "/v1/missing/sys/policies/acl/default"), 404);
    expectErrors(await call("POST", "/v1/team-a/missing/sys/policies/acl/x", { body: { policy: "# x" } }), 404);
  });

  test("namespaces are created, read, listed and deleted through sys/namespaces", async () => {
    const created = await call("POST", "/v1/sys/namespaces/team-b", { body: { custom_metadata: { owner: "ops" } } });
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({ custom_metadata: { owner: "ops" }, id: expect.any(String), path: "team-b/" });
    expect(keep().hasNamespace("team-b")).toBe(true);

    const nested = await call("PUT", "/v1/sys/namespaces/qa", { headers: { "X-Keep-Namespace": "team-b" } });
    expect(nested.status).toBe(200);
    expect(nested.body.data.path).toBe("team-b/qa/");

    const read = await call("GET", "/v1/sys/namespaces/team-b");
    expect(read.body.data.path).toBe("team-b/");

    const rootList = await call("GET", "/v1/sys/namespaces?list=true");
    expect(rootList.body.data.keys).toEqual(expect.arrayContaining(["team-a/", "team-b/"]));
    expect(rootList.body.data.key_info["team-b/"].path).toBe("team-b/");
    const childList = await call("GET", "/v1/team-b/sys/namespaces?list=true");
    expect(childList.body.data.keys).toEqual(["qa/"]);
    const emptyList = await call("GET", "/v1/team-b/qa/sys/namespaces?list=true");
    expect(emptyList.status).toBe(404);
    expect(emptyList.body).toEqual({ errors: [] });

    await call("POST", "/v1/team-b/sys/policies/acl/temp", { body: { policy: "# temp" } });
    expectErrors(await call("DELETE", "/v1/sys/namespaces/team-b"), 400);
    expect((await call("DELETE", "/v1/team-b/sys/namespaces/qa")).status).toBe(204);
    expect((await call("DELETE", "/v1/sys/namespaces/team-b")).status).toBe(204);
    expect(keep().hasNamespace("team-b")).toBe(false);
    expectErrors(await call("GET", "/v1/team-b/sys/policies/acl/temp"), 404);
    expect((await call("GET", "/v1/sys/namespaces/team-b")).status).toBe(404);

    // A namespace created again starts empty.
    await call("POST", "/v1/sys/namespaces/team-b");
    expect((await call("GET", "/v1/team-b/sys/policies/acl/temp")).status).toBe(404);
  });

  test("namespace custom metadata can be patched", async () => {
    await call("POST", "/v1/sys/namespaces/team-c", { body: { custom_metadata: { a: "1", b: "2" } } });
    const patched = await call("PATCH", "/v1/sys/namespaces/team-c", { body: { custom_metadata: { a: null, c: "3" } } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.custom_metadata).toEqual({ b: "2", c: "3" });
  });

  test("reserved and conflicting namespace names are refused", async () => {
    expectErrors(await call("POST", "/v1/sys/namespaces/sys"), 400);
    expectErrors(await call("POST", "/v1/sys/namespaces/root"), 400);
    expect((await call("POST", "/v1/sys/namespaces/bad.")).status).toBe(404);
  });
});
