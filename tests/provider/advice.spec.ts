/** The status → advice table shared by resources and functions. */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { workspaces } from "pulumi-keepstack";
import { adviceFor, failureMessage } from "../../provider/advice";
import { createContext } from "../../provider/context";
import { ApiError } from "../../provider/errors";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { startWorkspacesEmulator, WorkspacesEmulator } from "../../emulator/workspaces";

const errorOf = (status: number, service = "keep") => new ApiError(service, "GET", "/v1/sys/policies/acl/x", status, []);

describe("adviceFor", () => {
  test.each([
    [0, "check that the service is reachable at the configured address (keep:address (or KEEP_ADDR))"],
    [400, "the service rejected the inputs: fix the property it names"],
    [422, "the service rejected the inputs: fix the property it names"],
    [401, "the token was refused or lacks permission: check keep:token (or KEEP_TOKEN) and what it may do"],
    [403, "the token was refused or lacks permission: check keep:token (or KEEP_TOKEN) and what it may do"],
    [404, "the object or path does not exist, or this token cannot see it"],
    [405, "the service does not support this operation on this path (check the mount path and the service edition)"],
    [409, "the object's current state does not allow this operation"],
    [412, "the service stayed unavailable: run again later"],
    [429, "the service stayed unavailable: run again later"],
    [500, "the service stayed unavailable: run again later"],
    [503, "the service stayed unavailable: run again later"],
    [599, "the service stayed unavailable: run again later"],
    [418, "see the service's message"],
  ])("status %s: %s", (status, advice) => {
    expect(adviceFor(errorOf(status))).toBe(advice);
  });

  test("names the settings of the service that answered", () => {
    expect(adviceFor(errorOf(0, "mesh"))).toBe("check that the service is reachable at the configured address (mesh:address (or MESH_HTTP_ADDR))");
    expect(adviceFor(errorOf(401, "workspaces"))).toBe(
      "the token was refused or lacks permission: check workspaces:token (or WORKSPACES_TOKEN) and what it may do",
    );
  });

  test("names the settings of a named cluster", () => {
    expect(adviceFor(errorOf(403), { cluster: "dr" })).toBe(
      "the token was refused or lacks permission: check keep-dr:token (or KEEP_DR_TOKEN) and what it may do",
    );
  });

  test("names the settings as the door whose context sent the request reads them, both doors in one process", async () => {
    const plugin = new ApiError("keep", "GET", "/v1/sys/policies/acl/x", 403, [], { names: "plugin" });
    expect(adviceFor(plugin)).toBe("the token was refused or lacks permission: check keepstack:keepToken (or KEEP_TOKEN) and what it may do");
    expect(adviceFor(errorOf(403))).toBe("the token was refused or lacks permission: check keep:token (or KEEP_TOKEN) and what it may do");
    // The same bad settings read through each door's context: each names them its own way.
    const lookup = (key: string) => ({ "keep:address": "not a url", "keep:maxRetries": "many" })[key];
    const problem = (names: "stack" | "plugin") => {
      try {
        createContext(lookup, {}, undefined, names).config("keep");
        return "no problem";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(problem("stack")).toMatch(/^keep:address \(or KEEP_ADDR\) must be an http:\/\/ or https:\/\/ URL.*; keep:maxRetries \(or KEEP_MAX_RETRIES\) must be a number/);
    expect(problem("plugin")).toMatch(/^keepstack:keepAddress \(or KEEP_ADDR\) must be an http:\/\/ or https:\/\/ URL.*; keepstack:keepMaxRetries \(or KEEP_MAX_RETRIES\) must be a number/);
    // Reading the plugin's way left nothing behind: no mode of the process.
    expect(problem("stack")).toMatch(/^keep:address/);
  });

  test("a refused token is told the permission the call needs", () => {
    expect(adviceFor(errorOf(403, "mesh"), { permission: 'service:write on "web"' })).toBe(
      'the token was refused or lacks permission: grant service:write on "web" to the token set in mesh:token (or MESH_HTTP_TOKEN)',
    );
  });

  test("a service without settings is named, never taken for another", () => {
    expect(adviceFor(errorOf(401, "ledger"))).toBe("the token was refused or lacks permission: check the token setting of ledger and what it may do");
  });
});

describe("failureMessage", () => {
  test("a service's answer gets what it said and the advice", () => {
    expect(failureMessage("keep.read() failed", errorOf(404))).toBe(
      "keep.read() failed: keep: GET /v1/sys/policies/acl/x returned 404. the object or path does not exist, or this token cannot see it.",
    );
  });

  test("any other error keeps its message, with no advice", () => {
    expect(failureMessage("keep.read() failed", new Error("bad input"))).toBe("keep.read() failed: bad input");
  });
});

describe("a function's error", () => {
  let server: http.Server;
  let address: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(403, { "content-type": "application/vnd.api+json" });
      res.end(JSON.stringify({ errors: [{ status: "403", title: "forbidden" }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test("carries the advice for the status the service answered, and the service's error as its cause", async () => {
    const config: Record<string, string> = { "workspaces:address": address, "workspaces:token": "t0k3n" };
    const ctx = createContext((key) => config[key], {});
    const error = await workspaces.listWorkspaces({ organization: "acme" }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(workspaces.WorkspacesFunctionError);
    expect((error as Error).message).toMatch(
      /^workspaces\.listWorkspaces\(organization "acme"\) failed: workspaces: GET \/api\/v2\/organizations\/acme\/workspaces\S* returned 403: forbidden\. the token was refused or lacks permission: check workspaces:token \(or WORKSPACES_TOKEN\) and what it may do\.$/,
    );
    expect((error as Error).message).not.toContain("t0k3n");
    expect(((error as Error).cause as ApiError).status).toBe(403);
  });
});

describe("failureMessage", () => {
  test("a service message that ends its own sentence is not followed by a second period", () => {
    const error = new ApiError("keep", "GET", "/v1/transform/alphabet/hex-upper", 404, [{ message: 'no handler for route "transform/alphabet/hex-upper". route entry not found.' }]);
    const message = failureMessage('keep:TransformAlphabet "transform/alphabet/hex-upper": read failed', error);
    expect(message).toContain("route entry not found. the object or path does not exist");
    expect(message).not.toContain("..");
  });
});

describe("a 404 under a namespace or an organization names the setting that chose it", () => {
  let keepEmu: KeepEmulator;
  let wsEmu: WorkspacesEmulator;
  beforeAll(async () => {
    keepEmu = await startKeepEmulator();
    wsEmu = await startWorkspacesEmulator({ rateLimitPerSecond: 0 });
  });
  afterAll(async () => {
    await keepEmu.close();
    await wsEmu.close();
  });

  test("keep:namespace first, when the stack's setting chose the namespace; the resource's input when it did", async () => {
    const config: Record<string, string> = { "keep:address": keepEmu.url, "keep:token": keepEmu.rootToken, "keep:namespace": "no-such-team" };
    const ctx = createContext((key) => config[key], {});
    const error = (await ctx.keep().request("POST", "sys/policies/acl/readers", { policy: "# x" }).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(404);
    expect(adviceFor(error)).toBe(
      'the namespace "no-such-team" may not exist: check keep:namespace (or KEEP_NAMESPACE) (LIST sys/namespaces in its parent lists the namespaces); otherwise the object or path does not exist, or this token cannot see it',
    );
    const overridden = (await ctx.keep().request("POST", "sys/policies/acl/readers", { policy: "# x" }, { namespace: "other-team" }).catch((e: unknown) => e)) as ApiError;
    expect(adviceFor(overridden)).toMatch(/^the namespace "other-team" may not exist: check the resource's `namespace` input /);
  });

  test("workspaces:organization, when the stack's setting chose the organization", async () => {
    const config: Record<string, string> = { "workspaces:address": wsEmu.url, "workspaces:token": wsEmu.tokens.user, "workspaces:organization": "no-such-org" };
    const ctx = createContext((key) => config[key], {});
    const error = await workspaces.listWorkspaces({}, ctx).catch((e: unknown) => e);
    expect((error as Error).message).toContain('the organization "no-such-org" may not exist: check workspaces:organization (or WORKSPACES_ORGANIZATION); otherwise');
  });
});
