/**
 * The secrets-service emulator's request pipeline against the spec's conventions: authentication,
 * error bodies and their content type, help, the request-header switch, faults and the request log.
 */
import { startServiceServer, ServiceServer } from "../../../emulator/common";
import { startKeepEmulator } from "../../../emulator/keep";
import { ok } from "../../../emulator/keep/replies";
import { KeepRouter } from "../../../emulator/keep/router";
import { KeepState } from "../../../emulator/keep/state";
import { call, expectErrors, keep, useKeepEmulator } from "./fixture";

useKeepEmulator();

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
    expect(keep().rootToken).toMatch(/.{16,}/);
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
      headers: { Authorization: `Bearer ${keep().rootToken}` },
    });
    expect(result.status).toBe(200);
    expect(result.body.name).toBe("default");
  });

  test("addToken makes a token valid", async () => {
    expect((await call("GET", "/v1/sys/policies/acl/default", { token: "added-later" })).status).toBe(403);
    keep().addToken("added-later");
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
    expect(keep().getPolicy("acl", "no-type")?.policy).toBe("# a");
    expect(keep().getPolicy("acl", "text-type")?.policy).toBe("# b");
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
    expect(keep().getPolicy("acl", "ops.")).toBeUndefined();
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
    keep().addNamespace("help-ns");
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

describe("request header requirement", () => {
  test("when switched on, a request without X-Keep-Request: true is 412", async () => {
    keep().requireRequestHeader = true;
    const without = await call("GET", "/v1/sys/policies/acl/default");
    expect(without.status).toBe(412);
    expect(without.body).toEqual({ errors: [expect.stringContaining("X-Keep-Request")] });
    expectErrors(await call("GET", "/v1/sys/policies/acl/default", { headers: { "X-Keep-Request": "yes" } }), 412);
    const withHeader = await call("GET", "/v1/sys/policies/acl/default", { headers: { "X-Keep-Request": "true" } });
    expect(withHeader.status).toBe(200);
    keep().requireRequestHeader = false;
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
    keep().faults.inject({ times: 1, status: 503, match: /^GET \/v1\/sys\/policies\// });
    const faulted = await call("GET", "/v1/sys/policies/acl/default");
    expect(faulted.status).toBe(503);
    expect(faulted.body).toEqual({ errors: [expect.stringContaining("503")] });
    expect((await call("GET", "/v1/sys/policies/acl/default")).status).toBe(200);
    const outcomes = keep().log.entries.map((e) => [e.status, e.fault]);
    expect(outcomes[0]).toEqual([503, "status"]);
    expect(outcomes[outcomes.length - 1]).toEqual([200, undefined]);
  });

  test("a fault that does not match leaves other requests alone", async () => {
    keep().faults.inject({ times: 1, status: 500, match: /^DELETE / });
    expect((await call("GET", "/v1/sys/policies/acl/default")).status).toBe(200);
    const deleted = await call("DELETE", "/v1/sys/policies/acl/whatever");
    expect(deleted.status).toBe(500);
    expect(deleted.body).toEqual({ errors: [expect.any(String)] });
  });

  test("the log records method, path, namespace prefix, status and body, with tokens redacted", async () => {
    keep().addNamespace("team-a");
    await call("POST", "/v1/team-a/sys/policies/acl/logged", { body: { policy: "# l" } });
    await call("GET", "/v1/sys/policies/acl/logged", {
      token: null,
      headers: { Authorization: `Bearer ${keep().rootToken}`, "X-Keep-Namespace": "team-a" },
    });
    expect(keep().log.lines()).toEqual(["POST /v1/team-a/sys/policies/acl/logged", "GET /v1/sys/policies/acl/logged"]);
    const [write, read] = keep().log.entries;
    expect(write.status).toBe(204);
    expect(write.body).toEqual({ policy: "# l" });
    expect(write.headers["x-keep-token"]).toBe("<redacted>");
    expect(read.status).toBe(200);
    expect(read.headers.authorization).toBe("<redacted>");
    expect(read.headers["x-keep-namespace"]).toBe("team-a");
    expect(JSON.stringify(keep().log.entries)).not.toContain(keep().rootToken);
  });
});

describe("content type of answers", () => {
  // Some clients read the `errors` list only when the type is exactly application/json.
  test("errors of every origin are sent as exactly application/json", async () => {
    const routeMissing = await call("GET", "/v1/sys/nothing-here");
    const outsideV1 = await call("GET", "/elsewhere");
    const badJson = await call("POST", "/v1/sys/policies/acl/x", { rawBody: "{" });
    const denied = await call("GET", "/v1/sys/policies/acl/default", { token: null });
    keep().faults.inject({ times: 1, status: 503 });
    const injected = await call("GET", "/v1/sys/policies/acl/default");
    keep().requireRequestHeader = true;
    const missingHeader = await call("GET", "/v1/sys/policies/acl/default");
    for (const [result, status] of [
      [routeMissing, 404],
      [outsideV1, 404],
      [badJson, 400],
      [denied, 403],
      [injected, 503],
      [missingHeader, 412],
    ] as const) {
      expectErrors(result, status);
    }
  });

  test("successful JSON answers are exactly application/json too", async () => {
    const read = await call("GET", "/v1/sys/policies/acl/default");
    expect(read.status).toBe(200);
    expect(read.headers.get("content-type")).toBe("application/json");
    const help = await call("GET", "/v1/sys/policies?help=1");
    expect(help.headers.get("content-type")).toBe("application/json");
  });
});
