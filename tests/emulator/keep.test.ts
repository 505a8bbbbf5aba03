/**
 * Conformance tests of the secrets service emulator against the spec: conventions, authentication,
 * error bodies, help, namespaces and the Policies section, over real HTTP on loopback.
 */
import { startServiceServer, ServiceServer } from "../../emulator/common";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { ok } from "../../emulator/keep/replies";
import { KeepRouter } from "../../emulator/keep/router";
import { KeepState } from "../../emulator/keep/state";

interface CallOptions {
  /** Token sent as X-Keep-Token; null sends none. */
  token?: string | null;
  body?: unknown;
  /** Sent as is, without a Content-Type. */
  rawBody?: string;
  headers?: Record<string, string>;
}

interface CallResult {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

let keep: KeepEmulator;

async function call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? keep.rootToken : options.token;
  if (token !== null) headers["X-Keep-Token"] = token;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  const response = await fetch(`${keep.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

function expectErrors(result: CallResult, status: number): string[] {
  expect(result.status).toBe(status);
  expect(result.body).toEqual({ errors: expect.any(Array) });
  for (const message of result.body.errors) expect(typeof message).toBe("string");
  return result.body.errors;
}

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64");

beforeAll(async () => {
  keep = await startKeepEmulator({ port: 0 });
});

afterAll(async () => {
  await keep.close();
});

beforeEach(() => {
  keep.faults.clear();
  keep.log.clear();
  keep.requireRequestHeader = false;
});

describe("authentication", () => {
  test("a request without a token is 403 permission denied", async () => {
    const result = await call("GET", "/v1/sys/policies/acl?list=true", { token: null });
    expect(result.status).toBe(403);
    expect(result.body).toEqual({ errors: ["permission denied"] });
  });

  test("an unknown token is 403 permission denied", async () => {
    const result = await call("GET", "/v1/sys/policies/acl/default", { token: "not-a-token" });
    expect(result.status).toBe(403);
    expect(result.body).toEqual({ errors: ["permission denied"] });
  });

  test("the root token is random unless given, and a given one is used", async () => {
    expect(keep.rootToken).toMatch(/.{16,}/);
    const other = await startKeepEmulator({ rootToken: "fixed-root" });
    try {
      expect(other.rootToken).toBe("fixed-root");
      const response = await fetch(`${other.url}/v1/sys/policies/acl/default`, { headers: { "X-Keep-Token": "fixed-root" } });
      expect(response.status).toBe(200);
    } finally {
      await other.close();
    }
  });

  test("Authorization: Bearer is accepted like X-Keep-Token", async () => {
    const result = await call("GET", "/v1/sys/policies/acl/default", {
      token: null,
      headers: { Authorization: `Bearer ${keep.rootToken}` },
    });
    expect(result.status).toBe(200);
    expect(result.body.name).toBe("default");
  });

  test("addToken makes a token valid", async () => {
    expect((await call("GET", "/v1/sys/policies/acl/default", { token: "added-later" })).status).toBe(403);
    keep.addToken("added-later");
    expect((await call("GET", "/v1/sys/policies/acl/default", { token: "added-later" })).status).toBe(200);
  });

  test("a route marked unauthenticated answers without a token, but its help still needs one", async () => {
    const state = new KeepState("router-root");
    const router = new KeepRouter(state);
    router.add({
      path: "sys/open/status",
      summary: "A status that needs no token.",
      unauthenticated: true,
      operations: { read: { summary: "Read the status.", handler: () => ok({ data: { up: true } }) } },
    });
    router.add({
      path: "sys/closed",
      summary: "Needs a token.",
      operations: { read: { summary: "Read.", handler: () => ok({ data: {} }) } },
    });
    const server: ServiceServer = await startServiceServer(
      { name: "keep-router", errorBody: (_s, message) => ({ errors: [message] }) },
      (app) => router.install(app),
    );
    try {
      const open = await fetch(`${server.url}/v1/sys/open/status`);
      expect(open.status).toBe(200);
      expect(await open.json()).toEqual({ data: { up: true } });
      const closed = await fetch(`${server.url}/v1/sys/closed`);
      expect(closed.status).toBe(403);
      const help = await fetch(`${server.url}/v1/sys/open/status?help=1`);
      expect(help.status).toBe(403);
    } finally {
      await server.close();
    }
  });
});

describe("error bodies and conventions", () => {
  test("an unknown path under /v1/ is 404 with errors", async () => {
    const errors = expectErrors(await call("GET", "/v1/sys/no-such-thing"), 404);
    expect(errors[0]).toContain("sys/no-such-thing");
  });

  test("a path outside /v1/ is 404 with errors", async () => {
    const errors = expectErrors(await call("GET", "/elsewhere"), 404);
    expect(errors.length).toBeGreaterThan(0);
  });

  test("invalid JSON is 400 with errors", async () => {
    const errors = expectErrors(await call("POST", "/v1/sys/policies/acl/bad-json", { rawBody: "{not json" }), 400);
    expect(errors[0]).toMatch(/JSON/);
  });

  test("a JSON body that is not an object is 400", async () => {
    expectErrors(await call("POST", "/v1/sys/policies/acl/array-body", { rawBody: "[1,2]" }), 400);
  });

  test("a body is parsed as JSON whatever its Content-Type, or without one", async () => {
    const noType = await call("POST", "/v1/sys/policies/acl/no-type", { rawBody: JSON.stringify({ policy: "# a" }) });
    expect(noType.status).toBe(204);
    const textType = await call("POST", "/v1/sys/policies/acl/text-type", {
      rawBody: JSON.stringify({ policy: "# b" }),
      headers: { "Content-Type": "text/plain" },
    });
    expect(textType.status).toBe(204);
    expect(keep.getPolicy("acl", "no-type")?.policy).toBe("# a");
    expect(keep.getPolicy("acl", "text-type")?.policy).toBe("# b");
  });

  test("an empty body is an empty object", async () => {
    const errors = expectErrors(await call("POST", "/v1/sys/policies/acl/empty-body", { rawBody: "" }), 400);
    expect(errors[0]).toContain("policy");
  });

  test("a method the path does not support is 405 with errors", async () => {
    expectErrors(await call("PATCH", "/v1/sys/policies/acl/x", { body: { policy: "# x" } }), 405);
    expectErrors(await call("POST", "/v1/sys/policies/acl", { body: { policy: "# x" } }), 405);
    expectErrors(await call("DELETE", "/v1/sys/policies/rgp"), 405);
    // The collection path only lists: a plain read is not an operation it has.
    expectErrors(await call("GET", "/v1/sys/policies/acl"), 405);
    // The policy path has no list.
    expectErrors(await call("GET", "/v1/sys/policies/acl/default?list=true"), 405);
  });

  test("a path parameter ending in a period is 404 unsupported path", async () => {
    expect((await call("GET", "/v1/sys/policies/acl/default.")).body).toEqual({ errors: ["unsupported path"] });
    const write = await call("POST", "/v1/sys/policies/acl/ops.", { body: { policy: "# x" } });
    expect(write.status).toBe(404);
    expect(write.body).toEqual({ errors: ["unsupported path"] });
    expect(keep.getPolicy("acl", "ops.")).toBeUndefined();
  });

  test("list accepts the service's boolean spellings and rejects others", async () => {
    expect((await call("GET", "/v1/sys/policies/acl?list=1")).status).toBe(200);
    expect((await call("GET", "/v1/sys/policies/acl/?list=true")).status).toBe(200);
    expectErrors(await call("GET", "/v1/sys/policies/acl?list=maybe"), 400);
  });

  test("a list with no results is 404 with an empty errors array", async () => {
    const result = await call("GET", "/v1/sys/policies/rgp?list=true");
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ errors: [] });
  });

  test("successful answers are JSON; writes answer 204 with no body", async () => {
    const read = await call("GET", "/v1/sys/policies/acl/default");
    expect(read.headers.get("content-type")).toMatch(/application\/json/);
    const write = await call("PUT", "/v1/sys/policies/acl/json-check", { body: { policy: "# j" } });
    expect(write.status).toBe(204);
    expect(write.text).toBe("");
  });
});

describe("help", () => {
  test("?help=1 on a policy path names the route and documents it relative to the path", async () => {
    const result = await call("GET", "/v1/sys/policies/acl/ops?help=1");
    expect(result.status).toBe(200);
    expect(typeof result.body.help).toBe("string");
    expect(result.body.help).toContain("sys/policies/acl/:name");
    expect(result.body.openapi.openapi).toBe("3.0.2");
    expect(result.body.openapi.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
    const self = result.body.openapi.paths["/"];
    expect(Object.keys(self)).toEqual(expect.arrayContaining(["get", "post", "delete"]));
  });

  test("?help=1 on a prefix lists the paths under it, relative to the prefix", async () => {
    const result = await call("GET", "/v1/sys/policies?help=1");
    expect(result.status).toBe(200);
    const paths = Object.keys(result.body.openapi.paths);
    expect(paths).toEqual(expect.arrayContaining(["/acl", "/acl/{name}", "/rgp", "/rgp/{name}", "/egp", "/egp/{name}"]));
    expect(result.body.openapi.paths["/acl/{name}"].parameters[0]).toEqual(expect.objectContaining({ name: "name", in: "path" }));
    expect(result.body.openapi.paths["/acl"].get.parameters[0]).toEqual(expect.objectContaining({ name: "list", in: "query" }));
  });

  test("help works with any method and in a namespace", async () => {
    keep.addNamespace("help-ns");
    const result = await call("POST", "/v1/help-ns/sys/policies/acl?help=1");
    expect(result.status).toBe(200);
    expect(result.body.help).toContain("sys/policies/acl");
    expect(Object.keys(result.body.openapi.paths)).toContain("/");
  });

  test("help needs a token", async () => {
    const result = await call("GET", "/v1/sys/policies/acl?help=1", { token: null });
    expect(result.status).toBe(403);
    expect(result.body).toEqual({ errors: ["permission denied"] });
  });

  test("help on a path with nothing under it is 404", async () => {
    expectErrors(await call("GET", "/v1/nowhere/at/all?help=1"), 404);
  });
});

describe("ACL policies", () => {
  test("create, read, update with PUT, delete", async () => {
    const hcl = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
    expect((await call("POST", "/v1/sys/policies/acl/reader", { body: { policy: hcl } })).status).toBe(204);
    const read = await call("GET", "/v1/sys/policies/acl/reader");
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ name: "reader", policy: hcl });

    expect((await call("PUT", "/v1/sys/policies/acl/reader", { body: { policy: "# changed" } })).status).toBe(204);
    expect((await call("GET", "/v1/sys/policies/acl/reader")).body).toEqual({ name: "reader", policy: "# changed" });

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
    expect((await call("GET", "/v1/sys/policies/acl/mixedcase")).body).toEqual({ name: "mixedcase", policy: "# m" });
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
    expect(keep.getPolicy("acl", "nothing")).toBeUndefined();
  });

  test("a base64-encoded policy is decoded and stored decoded", async () => {
    const hcl = 'path "kv/*" {\n  capabilities = ["list"]\n}\n';
    expect((await call("POST", "/v1/sys/policies/acl/encoded", { body: { policy: encode(hcl) } })).status).toBe(204);
    expect((await call("GET", "/v1/sys/policies/acl/encoded")).body.policy).toBe(hcl);
  });

  test("text that is valid base64 but decodes to no readable text is kept as sent", async () => {
    // "test" is valid base64 whose bytes are not UTF-8.
    expect((await call("POST", "/v1/sys/policies/acl/literal", { body: { policy: "test" } })).status).toBe(204);
    expect(keep.getPolicy("acl", "literal")?.policy).toBe("test");
  });

  test("list answers sorted names including root and default", async () => {
    keep.putPolicy("acl", "zeta", { policy: "# z" });
    keep.putPolicy("acl", "alpha", { policy: "# a" });
    const list = await call("GET", "/v1/sys/policies/acl?list=true");
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["keys"]);
    expect(list.body.keys).toEqual([...list.body.keys].sort());
    expect(list.body.keys).toEqual(expect.arrayContaining(["alpha", "default", "root", "zeta"]));
  });

  test("root cannot be modified or deleted; default can be modified but not deleted", async () => {
    expectErrors(await call("POST", "/v1/sys/policies/acl/root", { body: { policy: "# no" } }), 400);
    expectErrors(await call("DELETE", "/v1/sys/policies/acl/root"), 400);
    expectErrors(await call("DELETE", "/v1/sys/policies/acl/Default"), 400);
    expect((await call("GET", "/v1/sys/policies/acl/root")).body).toEqual({ name: "root", policy: "" });
    expect((await call("POST", "/v1/sys/policies/acl/default", { body: { policy: "# tuned" } })).status).toBe(204);
    expect(keep.getPolicy("acl", "default")?.policy).toBe("# tuned");
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
    expect(keep.getPolicy("rgp", "r1")).toBeUndefined();
  });

  test.each(["advisory", "soft-mandatory", "hard-mandatory"])("level %s is stored and read back", async (level) => {
    const name = `rgp-${level}`;
    const policy = "main = rule { true }";
    expect((await call("POST", `/v1/sys/policies/rgp/${name}`, { body: { policy, enforcement_level: level } })).status).toBe(204);
    const read = await call("GET", `/v1/sys/policies/rgp/${name}`);
    expect(read.body).toEqual({ name, policy, enforcement_level: level });
  });

  test("policy is required; base64 is decoded; list and delete", async () => {
    expectErrors(await call("POST", "/v1/sys/policies/rgp/r2", { body: { enforcement_level: "advisory" } }), 400);
    const policy = "main = rule { 1 == 1 }";
    await call("POST", "/v1/sys/policies/rgp/R2", { body: { policy: encode(policy), enforcement_level: "advisory" } });
    expect(keep.getPolicy("rgp", "r2")).toEqual({ name: "r2", policy, enforcement_level: "advisory" });
    const list = await call("GET", "/v1/sys/policies/rgp?list=true");
    expect(list.body).toEqual({ keys: expect.arrayContaining(["r2"]) });
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
    expect(read.body).toEqual({ enforcement_level: "soft-mandatory", name: "by-string", paths: ["secret/*", "kv/data/app"], policy });
    expect(Object.keys(read.body)).toEqual(["enforcement_level", "name", "paths", "policy"]);
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
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { ...base, paths: [1, 2] } }), 400);
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { ...base, paths: ["a"], enforcement_level: "none" } }), 400);
    expectErrors(await call("POST", "/v1/sys/policies/egp/bad", { body: { paths: ["a"], enforcement_level: "advisory" } }), 400);
    expect(keep.getPolicy("egp", "bad")).toBeUndefined();
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
      expect(await list.json()).toEqual({
        keys: ["aa", "zz"],
        name_path_map: {
          aa: [{ path: "", glob: true }],
          zz: [
            { path: "secret/", glob: true },
            { path: "sys/mounts", glob: false },
          ],
        },
      });
    } finally {
      await egp.close();
    }
  });
});

describe("namespaces", () => {
  beforeAll(() => {
    keep.addNamespace("team-a");
    keep.addNamespace("team-a/dev");
  });

  test("the header and the path prefix address the same namespace", async () => {
    const byHeader = await call("POST", "/v1/sys/policies/acl/shared", {
      headers: { "X-Keep-Namespace": "team-a" },
      body: { policy: "# team-a" },
    });
    expect(byHeader.status).toBe(204);
    expect((await call("GET", "/v1/team-a/sys/policies/acl/shared")).body).toEqual({ name: "shared", policy: "# team-a" });
    expect(
      (await call("GET", "/v1/sys/policies/acl/shared", { headers: { "X-Keep-Namespace": "team-a/" } })).body.policy,
    ).toBe("# team-a");
    expect(keep.getPolicy("acl", "shared", "team-a")?.policy).toBe("# team-a");
  });

  test("namespaces are isolated from each other and from the root", async () => {
    await call("POST", "/v1/team-a/dev/sys/policies/acl/only-dev", { body: { policy: "# dev" } });
    expect((await call("GET", "/v1/sys/policies/acl/only-dev")).status).toBe(404);
    expect((await call("GET", "/v1/team-a/sys/policies/acl/only-dev")).status).toBe(404);
    expect((await call("GET", "/v1/team-a/dev/sys/policies/acl/only-dev")).status).toBe(200);
    expect(keep.listPolicies("acl", "team-a/dev")).toEqual(["default", "only-dev", "root"]);
    expect(keep.listPolicies("acl")).not.toContain("only-dev");
  });

  test("every namespace has its own root and default ACL policies", async () => {
    const list = await call("GET", "/v1/team-a/dev/sys/policies/acl?list=true");
    expect(list.body.keys).toEqual(expect.arrayContaining(["default", "root"]));
    expect((await call("DELETE", "/v1/team-a/dev/sys/policies/acl/default")).status).toBe(400);
  });

  test("a header and a path prefix combine", async () => {
    keep.putPolicy("acl", "nested", { policy: "# nested" }, "team-a/dev");
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
    expect(keep.hasNamespace("team-b")).toBe(true);

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
    expect(keep.hasNamespace("team-b")).toBe(false);
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

describe("request header requirement", () => {
  test("when switched on, a request without X-Keep-Request: true is 412", async () => {
    keep.requireRequestHeader = true;
    const without = await call("GET", "/v1/sys/policies/acl/default");
    expect(without.status).toBe(412);
    expect(without.body).toEqual({ errors: [expect.stringContaining("X-Keep-Request")] });
    expectErrors(await call("GET", "/v1/sys/policies/acl/default", { headers: { "X-Keep-Request": "yes" } }), 412);
    const withHeader = await call("GET", "/v1/sys/policies/acl/default", { headers: { "X-Keep-Request": "true" } });
    expect(withHeader.status).toBe(200);
    keep.requireRequestHeader = false;
    expect((await call("GET", "/v1/sys/policies/acl/default")).status).toBe(200);
  });

  test("the start option turns it on", async () => {
    const strict = await startKeepEmulator({ requireRequestHeader: true });
    try {
      expect(strict.requireRequestHeader).toBe(true);
      const response = await fetch(`${strict.url}/v1/sys/policies/acl/default`, { headers: { "X-Keep-Token": strict.rootToken } });
      expect(response.status).toBe(412);
    } finally {
      await strict.close();
    }
  });
});

describe("faults and the request log", () => {
  test("an injected status answers with the errors body, then requests go through", async () => {
    keep.faults.inject({ times: 1, status: 503, match: /^GET \/v1\/sys\/policies\// });
    const faulted = await call("GET", "/v1/sys/policies/acl/default");
    expect(faulted.status).toBe(503);
    expect(faulted.body).toEqual({ errors: [expect.stringContaining("503")] });
    expect((await call("GET", "/v1/sys/policies/acl/default")).status).toBe(200);
    const outcomes = keep.log.entries.map((e) => [e.status, e.fault]);
    expect(outcomes[0]).toEqual([503, "status"]);
    expect(outcomes[outcomes.length - 1]).toEqual([200, undefined]);
  });

  test("a fault that does not match leaves other requests alone", async () => {
    keep.faults.inject({ times: 1, status: 500, match: /^DELETE / });
    expect((await call("GET", "/v1/sys/policies/acl/default")).status).toBe(200);
    const deleted = await call("DELETE", "/v1/sys/policies/acl/whatever");
    expect(deleted.status).toBe(500);
    expect(deleted.body).toEqual({ errors: [expect.any(String)] });
  });

  test("the log records method, path, namespace prefix, status and body, with tokens redacted", async () => {
    await call("POST", "/v1/team-a/sys/policies/acl/logged", { body: { policy: "# l" } });
    await call("GET", "/v1/sys/policies/acl/logged", {
      token: null,
      headers: { Authorization: `Bearer ${keep.rootToken}`, "X-Keep-Namespace": "team-a" },
    });
    expect(keep.log.lines()).toEqual(["POST /v1/team-a/sys/policies/acl/logged", "GET /v1/sys/policies/acl/logged"]);
    const [write, read] = keep.log.entries;
    expect(write.status).toBe(204);
    expect(write.body).toEqual({ policy: "# l" });
    expect(write.headers["x-keep-token"]).toBe("<redacted>");
    expect(read.status).toBe(200);
    expect(read.headers.authorization).toBe("<redacted>");
    expect(read.headers["x-keep-namespace"]).toBe("team-a");
    expect(JSON.stringify(keep.log.entries)).not.toContain(keep.rootToken);
  });
});

describe("test-facing state helpers", () => {
  test("out-of-band writes and deletes are what the API then answers", async () => {
    keep.putPolicy("egp", "OOB", { policy: "main = rule { true }", enforcement_level: "advisory", paths: ["a/*"] });
    expect((await call("GET", "/v1/sys/policies/egp/oob")).body).toEqual({
      enforcement_level: "advisory",
      name: "oob",
      paths: ["a/*"],
      policy: "main = rule { true }",
    });
    expect(keep.listPolicies("egp")).toContain("oob");
    keep.deletePolicy("egp", "oob");
    expect((await call("GET", "/v1/sys/policies/egp/oob")).status).toBe(404);
    expect(keep.getPolicy("egp", "oob")).toBeUndefined();
  });

  test("helpers name a namespace that must exist", () => {
    expect(() => keep.listPolicies("acl", "not-there")).toThrow(/not-there/);
  });
});
