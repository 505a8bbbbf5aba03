/** The workspace-service client against the emulator: headers, JSON:API errors, retries, pagination, the archive store. */
import { Readable } from "node:stream";
import { startWorkspacesEmulator, WorkspacesEmulator } from "../../emulator/workspaces";
import { ApiError } from "../../provider/errors";
import { queryString as encodeQuery } from "../../provider/service-client";
import { clientFor, workspacesConfig } from "./workspaces-stack";

describe("WorkspacesClient", () => {
  let emu: WorkspacesEmulator;
  let workspaceId: string;
  const client = (extra: Record<string, string> = {}) => clientFor(workspacesConfig(emu, extra));

  beforeAll(async () => {
    emu = await startWorkspacesEmulator({ rateLimitPerSecond: 0, uploadDelayMs: 5 });
    workspaceId = (await client().write("POST", "/organizations/acme/workspaces", "workspaces", { name: "client-test" })).id;
  });
  afterAll(() => emu.close());
  beforeEach(() => {
    emu.log.clear();
    emu.faults.clear();
    emu.setRateLimit(undefined);
  });

  test("JSON:API headers and the bearer token on API requests", async () => {
    await client().read(`/workspaces/${workspaceId}`);
    const [entry] = emu.log.entries;
    expect(entry.headers.accept).toBe("application/vnd.api+json");
    expect(entry.headers.authorization).toBe("<redacted>");
    await client().write("PATCH", `/workspaces/${workspaceId}`, "workspaces", { description: "x" });
    expect(emu.log.entries[1].headers["content-type"]).toBe("application/vnd.api+json");
  });

  test("query parameters are percent-encoded, brackets included", () => {
    expect(encodeQuery({ "page[number]": "2", "page[size]": "100", include: "ingress-attributes" })).toBe(
      "?page%5Bnumber%5D=2&page%5Bsize%5D=100&include=ingress-attributes",
    );
  });

  test("a JSON:API error object becomes one clear error: status, title, detail, source pointer; never the token", async () => {
    const error = (await client()
      .write("POST", "/organizations/acme/workspaces", "workspaces", { name: "bad name!" })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      "workspaces: POST /api/v2/organizations/acme/workspaces returned 422: invalid attribute: name is invalid: only letters, numbers, - and _ are allowed (at /data/attributes/name)",
    );
    expect(error.details).toEqual([{ message: expect.stringContaining("name is invalid"), pointer: "/data/attributes/name" }]);
    expect(JSON.stringify(error)).not.toContain(emu.tokens.user);
    expect(error.message).not.toContain(emu.tokens.user);
  });

  test("a read of something absent is undefined; a refused token is a 401 error", async () => {
    expect(await client().read("/workspaces/ws-0000000000000000")).toBeUndefined();
    const refused = (await client({ "workspaces:token": "not-a-token" }).read(`/workspaces/${workspaceId}`).catch((e: unknown) => e)) as ApiError;
    expect(refused.status).toBe(401);
    expect(refused.message).toContain("invalid token");
  });

  test("429 is retried after the wait the server gives; 5xx is retried with backoff", async () => {
    emu.faults.inject({ times: 1, status: 429, headers: { "retry-after": "0" }, match: /^GET / });
    emu.faults.inject({ times: 1, status: 429, headers: { "x-ratelimit-reset": "0.01" }, match: /^GET / });
    emu.faults.inject({ times: 2, status: 503, match: /^GET / });
    expect((await client().read(`/workspaces/${workspaceId}`))?.data.id).toBe(workspaceId);
    expect(emu.log.entries.map((e) => e.status)).toEqual([429, 429, 503, 503, 200]);
  });

  test("the emulator's own rate limit (Retry-After of a second) is waited out, not failed", async () => {
    emu.setRateLimit(5);
    const reads = await Promise.all(Array.from({ length: 12 }, () => client().read(`/workspaces/${workspaceId}`)));
    expect(reads.every((r) => r?.data.id === workspaceId)).toBe(true);
    expect(emu.log.entries.some((e) => e.status === 429)).toBe(true);
  });

  test("when 5xx retries run out the error names the retries", async () => {
    emu.faults.inject({ times: 10, status: 502 });
    const error = (await client({ "workspaces:maxRetries": "2" }).read(`/workspaces/${workspaceId}`).catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe(`workspaces: GET /api/v2/workspaces/${workspaceId} returned 502 after 2 retries: bad gateway: injected fault: status 502`);
  });

  test("list follows pages until the last one", async () => {
    const c = client();
    for (let i = 0; i < 3; i++) await c.write("POST", `/workspaces/${workspaceId}/configuration-versions`, "configuration-versions", {});
    emu.log.clear();
    const all = await c.list(`/workspaces/${workspaceId}/configuration-versions`, { pageSize: 2 });
    expect(all).toHaveLength(3);
    expect(emu.log.lines()).toEqual([
      `GET /api/v2/workspaces/${workspaceId}/configuration-versions?page%5Bnumber%5D=1&page%5Bsize%5D=2`,
      `GET /api/v2/workspaces/${workspaceId}/configuration-versions?page%5Bnumber%5D=2&page%5Bsize%5D=2`,
    ]);
  });

  test("the upload is a PUT of application/octet-stream without authorization; a failed one names no URL", async () => {
    const c = client();
    const version = await c.write("POST", `/workspaces/${workspaceId}/configuration-versions`, "configuration-versions", {});
    const url = String(version.attributes["upload-url"]);
    emu.log.clear();
    let streams = 0;
    const body = () => {
      streams++;
      return Readable.from([Buffer.from([0x1f, 0x8b]), Buffer.alloc(1000)]);
    };
    emu.faults.inject({ times: 1, status: 503, match: /^PUT / });
    expect(await c.upload(url, body)).toEqual({ bytes: 1002, attempts: 2 });
    // Each attempt read a fresh stream.
    expect(streams).toBe(2);
    const put = emu.log.entries.at(-1)!;
    expect(put).toMatchObject({ method: "PUT", status: 200 });
    expect(put.headers["content-type"]).toBe("application/octet-stream");
    expect(put.headers.authorization).toBeUndefined();

    // The URL takes one upload: a second is refused, and the message does not carry the URL (a credential).
    const again = (await c.upload(url, body).catch((e: unknown) => e)) as ApiError;
    expect(again.status).toBe(404);
    expect(again.message).toMatch(/^workspaces: PUT <upload-url> returned 404/);
    expect(again.message).not.toContain(url.split("/").at(-1));
  });

  test("a source that fails is reported as it is and not retried", async () => {
    const c = client();
    const version = await c.write("POST", `/workspaces/${workspaceId}/configuration-versions`, "configuration-versions", {});
    let streams = 0;
    const failing = () => {
      streams++;
      return new Readable({
        read() {
          this.destroy(new Error("file vanished while archiving"));
        },
      });
    };
    await expect(c.upload(String(version.attributes["upload-url"]), failing)).rejects.toThrow("file vanished while archiving");
    expect(streams).toBe(1);
  });
});
