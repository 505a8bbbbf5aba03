/**
 * Conformance of the workspace service emulator with the workspace service spec: JSON:API envelopes
 * and errors, authentication and permissions, the workspace attribute table, pagination, the rate
 * limit, and the configuration version lifecycle (streamed upload, archive, download, ingress
 * attributes). Every test talks real HTTP to the emulator on loopback.
 */
import http from "node:http";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { create as createTar, extract as extractTar } from "tar";
import { startWorkspacesEmulator, WorkspacesEmulator } from "../../emulator/workspaces";

const JSON_API = "application/vnd.api+json";

interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, any>;
  relationships: Record<string, any>;
  links: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

let emu: WorkspacesEmulator;
let scratch: string;

async function call(
  method: string,
  apiPath: string,
  options: { token?: string | null; body?: unknown; rawBody?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const token = options.token === undefined ? emu.tokens.user : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers["content-type"] = options.contentType ?? JSON_API;
  const url = apiPath.startsWith("http") ? apiPath : `${emu.url}/api/v2${apiPath}`;
  const response = await fetch(url, { method, headers, body: payload, redirect: "manual" });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

function expectError(answer: Answer, status: number, pointer?: string): ErrorObject[] {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toContain(JSON_API);
  const errors = answer.body?.errors as ErrorObject[];
  expect(Array.isArray(errors)).toBe(true);
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) {
    expect(error.status).toBe(String(status));
    expect(typeof error.title).toBe("string");
  }
  if (pointer) expect(errors.map((e) => e.source?.pointer)).toContain(pointer);
  return errors;
}

let nameCounter = 0;
const uniqueName = (prefix = "ws") => `${prefix}-${++nameCounter}`;

const workspaceBody = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type: "workspaces", attributes, ...(relationships ? { relationships } : {}) },
});

async function createWorkspace(
  attributes: Record<string, unknown> = {},
  options: { org?: string; token?: string; relationships?: Record<string, unknown> } = {},
): Promise<Resource> {
  const answer = await call("POST", `/organizations/${options.org ?? emu.organization}/workspaces`, {
    token: options.token,
    body: workspaceBody({ name: uniqueName(), ...attributes }, options.relationships),
  });
  if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${answer.text}`);
  return answer.body.data as Resource;
}

const tryCreate = (attributes: Record<string, unknown>, options: { org?: string; relationships?: Record<string, unknown> } = {}) =>
  call("POST", `/organizations/${options.org ?? emu.organization}/workspaces`, {
    body: workspaceBody({ name: uniqueName(), ...attributes }, options.relationships),
  });

const patch = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  call("PATCH", `/workspaces/${id}`, { body: workspaceBody(attributes, relationships) });

async function createVersion(workspaceId: string, attributes: Record<string, unknown> = {}, token?: string): Promise<Resource> {
  const answer = await call("POST", `/workspaces/${workspaceId}/configuration-versions`, {
    token,
    body: { data: { type: "configuration-versions", attributes } },
  });
  if (answer.status !== 201) throw new Error(`create version failed: ${answer.status} ${answer.text}`);
  return answer.body.data as Resource;
}

/** PUT to an upload URL with a streamed or fixed body, the way a client uploads an archive. */
function upload(
  url: string,
  body: Readable | Buffer,
  contentType: string | null = "application/octet-stream",
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = contentType === null ? {} : { "content-type": contentType };
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: "PUT", headers },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    if (Buffer.isBuffer(body)) request.end(body);
    else body.pipe(request);
  });
}

/** A gzip magic number followed by `size` bytes of zeros, generated chunk by chunk. */
function gzipLookingStream(size: number): Readable {
  const chunk = Buffer.alloc(1024 * 1024);
  let sent = 0;
  return new Readable({
    read() {
      if (sent === 0) {
        this.push(Buffer.from([0x1f, 0x8b]));
        sent = 2;
        return;
      }
      if (sent >= size) {
        this.push(null);
        return;
      }
      const n = Math.min(chunk.length, size - sent);
      sent += n;
      this.push(chunk.subarray(0, n));
    },
  });
}

async function makeArchive(files: Record<string, string>): Promise<Buffer> {
  const dir = await mkdtemp(path.join(scratch, "src-"));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
  const file = path.join(scratch, `${path.basename(dir)}.tar.gz`);
  await createTar({ gzip: true, file, cwd: dir }, Object.keys(files));
  return readFile(file);
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("condition never held");
}

const statusOf = async (cvId: string) => (await call("GET", `/configuration-versions/${cvId}`)).body.data as Resource;
const settled = (cvId: string) => until(() => statusOf(cvId), (cv) => cv.attributes.status !== "pending");

async function uploadedVersion(workspaceId: string, attributes: Record<string, unknown> = {}, archive?: Buffer): Promise<Resource> {
  const cv = await createVersion(workspaceId, attributes);
  const answer = await upload(cv.attributes["upload-url"], archive ?? (await makeArchive({ "main.tf": "# empty\n" })));
  expect(answer.status).toBe(200);
  const done = await settled(cv.id);
  expect(done.attributes.status).toBe("uploaded");
  return done;
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "workspaces-test-"));
  // Limiting is switched on only by the rate-limit tests; the upload delay stays small.
  emu = await startWorkspacesEmulator({ port: 0, rateLimitPerSecond: 0, uploadDelayMs: 5, vcsSample: true });
});

afterAll(async () => {
  await emu?.close();
  await rm(scratch, { recursive: true, force: true });
});

afterEach(() => {
  emu.setRateLimit(undefined);
  emu.setUploadDelay(5);
  emu.faults.clear();
});

describe("authentication and permissions", () => {
  it("answers 401 with a JSON:API error for a missing or unknown token", async () => {
    expectError(await call("GET", `/organizations/${emu.organization}/workspaces`, { token: null }), 401);
    expectError(await call("GET", `/organizations/${emu.organization}/workspaces`, { token: "nope.wsv1.nope" }), 401);
  });

  it("accepts user, team and organization tokens on the seeded organization", async () => {
    for (const token of [emu.tokens.user, emu.tokens.team, emu.tokens.organization]) {
      const answer = await call("GET", `/workspaces/${emu.vcsWorkspaceId}`, { token });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toContain(JSON_API);
    }
  });

  it("lets user, team and organization tokens create workspaces", async () => {
    for (const token of [emu.tokens.user, emu.tokens.team, emu.tokens.organization]) {
      const ws = await createWorkspace({}, { token });
      expect(ws.id).toMatch(/^ws-[A-Za-z0-9]{16}$/);
    }
  });

  it("answers 404 to a token without read-runs, on every read and write of a workspace", async () => {
    const ws = await createWorkspace();
    const name = ws.attributes.name;
    const token = emu.tokens.readOnly;
    expectError(await call("GET", `/workspaces/${ws.id}`, { token }), 404);
    expectError(await call("GET", `/organizations/${emu.organization}/workspaces/${name}`, { token }), 404);
    expectError(await call("PATCH", `/workspaces/${ws.id}`, { token, body: workspaceBody({ description: "x" }) }), 404);
    expectError(await call("DELETE", `/workspaces/${ws.id}`, { token }), 404);
    expectError(await call("GET", `/workspaces/${ws.id}/configuration-versions`, { token }), 404);
    expectError(
      await call("POST", `/workspaces/${ws.id}/configuration-versions`, {
        token,
        body: { data: { type: "configuration-versions", attributes: {} } },
      }),
      404,
    );
    expectError(await call("GET", `/configuration-versions/${emu.vcsConfigurationVersionId}`, { token }), 404);
    expectError(await call("GET", `/configuration-versions/${emu.vcsConfigurationVersionId}/download`, { token }), 404);
    const list = await call("GET", `/organizations/${emu.organization}/workspaces`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(emu.getWorkspace(ws.id)?.attributes.name).toBe(name);
  });

  it("refuses workspace creation to a member without manage permissions (403)", async () => {
    const answer = await call("POST", `/organizations/${emu.organization}/workspaces`, {
      token: emu.tokens.readOnly,
      body: workspaceBody({ name: uniqueName() }),
    });
    expectError(answer, 403);
  });

  it("hides organizations a token does not belong to, and unknown organizations (404)", async () => {
    expectError(
      await call("GET", `/organizations/${emu.secondOrganization}/workspaces`, { token: emu.tokens.organization }),
      404,
    );
    expectError(
      await call("POST", `/organizations/no-such-org/workspaces`, { body: workspaceBody({ name: uniqueName() }) }),
      404,
    );
  });

  it("refuses configuration version creation with an organization token (403)", async () => {
    const ws = await createWorkspace();
    const answer = await call("POST", `/workspaces/${ws.id}/configuration-versions`, {
      token: emu.tokens.organization,
      body: { data: { type: "configuration-versions", attributes: {} } },
    });
    expectError(answer, 403);
    // The same token may still read the workspace.
    expect((await call("GET", `/workspaces/${ws.id}`, { token: emu.tokens.organization })).status).toBe(200);
    expect((await createVersion(ws.id, {}, emu.tokens.team)).attributes.status).toBe("pending");
  });
});

describe("JSON:API envelopes and errors", () => {
  it("answers unknown routes with a JSON:API 404", async () => {
    expectError(await call("GET", "/no/such/route"), 404);
    expectError(await call("GET", `${emu.url}/elsewhere`), 404);
  });

  it("answers malformed JSON with a JSON:API 400", async () => {
    expectError(
      await call("POST", `/organizations/${emu.organization}/workspaces`, { rawBody: "{not json" }),
      400,
    );
  });

  it("accepts application/json as well as application/vnd.api+json", async () => {
    const answer = await call("POST", `/organizations/${emu.organization}/workspaces`, {
      body: workspaceBody({ name: uniqueName() }),
      contentType: "application/json",
    });
    expect(answer.status).toBe(201);
  });

  it("refuses other content types with a JSON:API 415", async () => {
    expectError(
      await call("POST", `/organizations/${emu.organization}/workspaces`, { rawBody: "name=x", contentType: "text/plain" }),
      415,
    );
  });

  it("refuses a body without data (400) and a resource of another type (409)", async () => {
    expectError(await call("POST", `/organizations/${emu.organization}/workspaces`, { body: { name: "x" } }), 400);
    expectError(
      await call("POST", `/organizations/${emu.organization}/workspaces`, {
        body: { data: { type: "projects", attributes: { name: uniqueName() } } },
      }),
      409,
      "/data/type",
    );
  });

  it("answers injected faults with a JSON:API error body", async () => {
    emu.faults.inject({ times: 1, status: 503, match: /^GET \/api\/v2\/workspaces\// });
    expectError(await call("GET", `/workspaces/${emu.vcsWorkspaceId}`), 503);
    expect((await call("GET", `/workspaces/${emu.vcsWorkspaceId}`)).status).toBe(200);
  });

  it("holds a request until its client gives up, then acts: the next request sees the write", async () => {
    const ws = await createWorkspace();
    emu.faults.inject({ times: 1, holdUntilAborted: true, match: /^PATCH \/api\/v2\/workspaces\// });
    const client = new AbortController();
    const held = emu.faults.held();
    const gaveUp = fetch(`${emu.url}/api/v2/workspaces/${ws.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${emu.tokens.user}`, "content-type": JSON_API },
      body: JSON.stringify(workspaceBody({ description: "written after the client gave up" })),
      signal: client.signal,
    }).catch((e: Error) => e);
    await held;
    // Held: nothing is written until the client aborts.
    expect(emu.getWorkspace(ws.id)?.attributes.description).not.toBe("written after the client gave up");
    client.abort();
    expect(((await gaveUp) as Error).name).toBe("AbortError");
    // The next request is answered only once the held work is done.
    const read = await call("GET", `/workspaces/${ws.id}`);
    expect(read.body.data.attributes.description).toBe("written after the client gave up");
    expect(emu.log.entries.filter((e) => e.method === "PATCH").at(-1)?.fault).toBe("held");
  });

  it("redacts the bearer token from the request log", async () => {
    emu.log.clear();
    await call("GET", `/workspaces/${emu.vcsWorkspaceId}`);
    expect(emu.log.entries[0].headers.authorization).toBe("<redacted>");
  });
});

describe("workspace creation", () => {
  it("answers every read attribute with its create default", async () => {
    const ws = await createWorkspace({ name: "defaults-check" });
    expect(ws.type).toBe("workspaces");
    const a = ws.attributes;
    expect(a).toMatchObject({
      actions: { "is-destroyable": true },
      "allow-destroy-plan": true,
      "assessments-enabled": false,
      "auto-apply": false,
      "auto-apply-run-trigger": false,
      "auto-destroy-at": null,
      "auto-destroy-activity-duration": null,
      description: null,
      environment: "default",
      "execution-mode": "remote",
      "file-triggers-enabled": true,
      "global-remote-state": false,
      "iac-version": "1.9.5",
      "inherits-project-auto-destroy": true,
      locked: false,
      "locked-reason": "",
      name: "defaults-check",
      operations: true,
      "queue-all-runs": false,
      "resource-count": 0,
      "setting-overwrites": { "execution-mode": false, "agent-pool": false },
      "source-name": null,
      "source-url": null,
      "speculative-enabled": true,
      "structured-run-output-enabled": true,
      "tag-names": [],
      "trigger-patterns": [],
      "trigger-prefixes": [],
      "vcs-repo": null,
      "vcs-repo-identifier": null,
      "working-directory": null,
      "apply-duration-average": null,
      "plan-duration-average": null,
      "policy-check-failures": null,
      "run-failures": null,
      "workspace-kpis-runs-count": null,
      "last-assessment-result-at": null,
    });
    expect(typeof a.source).toBe("string");
    for (const key of ["created-at", "updated-at", "latest-change-at"]) {
      expect(new Date(a[key]).toISOString()).toBe(a[key]);
    }
    const permissionNames = [
      "can-create-state-versions", "can-destroy", "can-force-delete", "can-force-unlock", "can-lock",
      "can-manage-assessments", "can-manage-run-tasks", "can-manage-tags", "can-queue-apply", "can-queue-destroy",
      "can-queue-run", "can-read-assessment-result", "can-read-assessment-results", "can-read-settings",
      "can-read-state-outputs", "can-read-state-versions", "can-read-variable", "can-unlock", "can-update",
      "can-update-variable",
    ];
    expect(Object.keys(a.permissions).sort()).toEqual(permissionNames.sort());
    for (const name of permissionNames) expect(typeof a.permissions[name]).toBe("boolean");

    expect(ws.relationships.organization.data).toEqual({ id: emu.organization, type: "organizations" });
    expect(ws.relationships.project.data).toEqual({ id: emu.defaultProjectId, type: "projects" });
    expect(ws.relationships["current-configuration-version"].data).toBeNull();
    expect(ws.relationships["agent-pool"].data).toBeNull();
    for (const name of ["current-run", "current-state-version", "current-assessment-result", "latest-run", "readme"]) {
      expect(ws.relationships[name].data).toBeNull();
    }
    expect(ws.relationships.outputs.data).toEqual([]);
    expect(ws.relationships.vars.data).toEqual([]);
    expect(ws.relationships["remote-state-consumers"].links.related).toContain(ws.id);
    expect(ws.relationships["locked-by"]).toBeUndefined();
    expect(ws.links.self).toBe(`/api/v2/organizations/${emu.organization}/workspaces/defaults-check`);
    expect(emu.findWorkspace(emu.organization, "defaults-check")?.id).toBe(ws.id);
  });

  it("stores every writable attribute given on create", async () => {
    const ws = await createWorkspace(
      {
        description: "payments",
        "allow-destroy-plan": false,
        "auto-apply": true,
        "auto-apply-run-trigger": true,
        "auto-destroy-at": "2031-01-02T03:04:05Z",
        "auto-destroy-activity-duration": "14d",
        "file-triggers-enabled": false,
        "global-remote-state": true,
        "queue-all-runs": true,
        "speculative-enabled": false,
        "iac-version": "~> 1.6",
        "trigger-patterns": ["/modules/**/*"],
        "trigger-prefixes": ["/shared"],
        "working-directory": "stacks/payments",
        "source-name": "pulumi",
        "source-url": "https://example.com/stack",
        "assessments-enabled": true,
      },
      { relationships: { project: { data: { id: emu.otherProjectId, type: "projects" } } } },
    );
    expect(ws.attributes).toMatchObject({
      description: "payments",
      "allow-destroy-plan": false,
      "auto-apply": true,
      "auto-apply-run-trigger": true,
      "auto-destroy-at": "2031-01-02T03:04:05.000Z",
      "auto-destroy-activity-duration": "14d",
      "file-triggers-enabled": false,
      "global-remote-state": true,
      "queue-all-runs": true,
      "speculative-enabled": false,
      "iac-version": "~> 1.6",
      "trigger-patterns": ["/modules/**/*"],
      "trigger-prefixes": ["/shared"],
      "working-directory": "stacks/payments",
      "source-name": "pulumi",
      "source-url": "https://example.com/stack",
      "assessments-enabled": true,
    });
    expect(ws.relationships.project.data.id).toBe(emu.otherProjectId);
  });

  it("validates the name: required, charset, uniqueness within the organization", async () => {
    expectError(
      await call("POST", `/organizations/${emu.organization}/workspaces`, { body: workspaceBody({}) }),
      422,
      "/data/attributes/name",
    );
    for (const bad of ["has space", "dots.not.allowed", "slash/no", ""]) {
      expectError(await tryCreate({ name: bad }), 422, "/data/attributes/name");
    }
    const taken = await createWorkspace({ name: "Taken_name-1" });
    const errors = expectError(await tryCreate({ name: "Taken_name-1" }), 422, "/data/attributes/name");
    expect(errors[0].detail).toContain("has already been taken");
    // Uniqueness is per organization.
    const elsewhere = await createWorkspace({ name: taken.attributes.name }, { org: emu.secondOrganization });
    expect(elsewhere.attributes.name).toBe("Taken_name-1");
  });

  it("checks attribute types and reports every invalid attribute at once", async () => {
    const errors = expectError(
      await tryCreate({ "auto-apply": "yes", description: 5, "trigger-patterns": "x", "execution-mode": "cloud" }),
      422,
    );
    expect(errors.map((e) => e.source?.pointer).sort()).toEqual(
      [
        "/data/attributes/auto-apply",
        "/data/attributes/description",
        "/data/attributes/execution-mode",
        "/data/attributes/trigger-patterns",
      ].sort(),
    );
    for (const error of errors) expect(error.title).toBe("invalid attribute");
  });

  it("applies the agent pool rules with execution-mode and operations", async () => {
    expectError(await tryCreate({ "execution-mode": "agent" }), 422, "/data/attributes/agent-pool-id");
    const agent = await createWorkspace({ "execution-mode": "agent", "agent-pool-id": emu.agentPoolId });
    expect(agent.attributes["execution-mode"]).toBe("agent");
    expect(agent.attributes.operations).toBe(true);
    expect(agent.relationships["agent-pool"].data).toEqual({ id: emu.agentPoolId, type: "agent-pools" });
    expect(agent.attributes["setting-overwrites"]).toEqual({ "execution-mode": true, "agent-pool": true });
    for (const attributes of [
      { "execution-mode": "remote", "agent-pool-id": emu.agentPoolId },
      { "execution-mode": "local", "agent-pool-id": emu.agentPoolId },
      { operations: true, "agent-pool-id": emu.agentPoolId },
      { "agent-pool-id": emu.agentPoolId },
      { "execution-mode": "agent", "agent-pool-id": "apool-doesnotexist0000" },
    ]) {
      expectError(await tryCreate(attributes), 422, "/data/attributes/agent-pool-id");
    }
  });

  it("refuses execution-mode together with operations, and maps operations to execution-mode", async () => {
    expectError(await tryCreate({ "execution-mode": "remote", operations: true }), 422, "/data/attributes/operations");
    const local = await createWorkspace({ operations: false });
    expect(local.attributes["execution-mode"]).toBe("local");
    expect(local.attributes.operations).toBe(false);
    const explicit = await createWorkspace({ "execution-mode": "local" });
    expect(explicit.attributes.operations).toBe(false);
  });

  it("requires execution-mode when setting-overwrites.execution-mode is true", async () => {
    expectError(
      await tryCreate({ "setting-overwrites": { "execution-mode": true } }),
      422,
      "/data/attributes/execution-mode",
    );
    const ws = await createWorkspace({ "execution-mode": "local", "setting-overwrites": { "execution-mode": true } });
    expect(ws.attributes["setting-overwrites"]["execution-mode"]).toBe(true);
    expect(ws.attributes["execution-mode"]).toBe("local");
  });

  it("validates auto-destroy-activity-duration: 1 to 4 digits, greater than 0, unit d or h", async () => {
    for (const good of ["1d", "24h", "9999h", "0030d"]) {
      expect((await createWorkspace({ "auto-destroy-activity-duration": good })).attributes["auto-destroy-activity-duration"]).toBe(good);
    }
    for (const bad of ["0d", "0000h", "12345d", "14m", "d", "14", "-1d", " 1d"]) {
      expectError(await tryCreate({ "auto-destroy-activity-duration": bad }), 422, "/data/attributes/auto-destroy-activity-duration");
    }
  });

  it("validates iac-version and auto-destroy-at", async () => {
    expect((await createWorkspace({ "iac-version": "1.5.7" })).attributes["iac-version"]).toBe("1.5.7");
    expect((await createWorkspace({ "iac-version": ">= 1.2.0, < 1.7.0" })).attributes["iac-version"]).toBe(">= 1.2.0, < 1.7.0");
    expectError(await tryCreate({ "iac-version": "banana" }), 422, "/data/attributes/iac-version");
    expectError(await tryCreate({ "auto-destroy-at": "next tuesday" }), 422, "/data/attributes/auto-destroy-at");
  });

  it("applies the health assessment rules: plan, execution mode and tool version", async () => {
    expectError(
      await tryCreate({ "assessments-enabled": true }, { org: emu.secondOrganization }),
      422,
      "/data/attributes/assessments-enabled",
    );
    expectError(await tryCreate({ "assessments-enabled": true, "execution-mode": "local" }), 422, "/data/attributes/assessments-enabled");
    expectError(await tryCreate({ "assessments-enabled": true, "iac-version": "0.15.3" }), 422, "/data/attributes/assessments-enabled");
    expect((await createWorkspace({ "drift-detection": true })).attributes["assessments-enabled"]).toBe(true);
  });

  it("links a VCS repository given oauth-token-id and identifier", async () => {
    const ws = await createWorkspace({
      "vcs-repo": { "oauth-token-id": emu.oauthTokenId, identifier: "acme/network", "ingress-submodules": true, "tags-regex": "^v\\d+" },
    });
    const repo = ws.attributes["vcs-repo"];
    expect(repo).toMatchObject({
      branch: "",
      "display-identifier": "acme/network",
      identifier: "acme/network",
      "ingress-submodules": true,
      "oauth-token-id": emu.oauthTokenId,
      "repository-http-url": "https://github.com/acme/network",
      "service-provider": "github",
      "tags-regex": "^v\\d+",
    });
    expect(repo["webhook-url"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/vcs\/[0-9a-f-]{36}$/);
    expect(ws.attributes["vcs-repo-identifier"]).toBe("acme/network");
    const devops = await createWorkspace({ "vcs-repo": { "oauth-token-id": emu.oauthTokenId, identifier: "acme/infra/_git/network" } });
    expect(devops.attributes["vcs-repo"].identifier).toBe("acme/infra/_git/network");
  });

  it("applies the vcs-repo rules on create", async () => {
    const pointer = (key: string) => `/data/attributes/vcs-repo/${key}`;
    expectError(await tryCreate({ "vcs-repo": { identifier: "acme/network" } }), 422, pointer("oauth-token-id"));
    expectError(await tryCreate({ "vcs-repo": { "oauth-token-id": emu.oauthTokenId } }), 422, pointer("identifier"));
    expectError(
      await tryCreate({ "vcs-repo": { "github-app-installation-id": emu.githubAppInstallationId, identifier: "acme/network" } }),
      422,
      pointer("github-app-installation-id"),
    );
    expectError(
      await tryCreate({
        "vcs-repo": { "oauth-token-id": emu.oauthTokenId, "github-app-installation-id": emu.githubAppInstallationId, identifier: "acme/n" },
      }),
      422,
      pointer("github-app-installation-id"),
    );
    expectError(await tryCreate({ "vcs-repo": { "oauth-token-id": "ot-unknown000000000", identifier: "acme/n" } }), 422, pointer("oauth-token-id"));
    expectError(await tryCreate({ "vcs-repo": { "oauth-token-id": emu.oauthTokenId, identifier: "no-slash" } }), 422, pointer("identifier"));
    expect((await createWorkspace({ "vcs-repo": null })).attributes["vcs-repo"]).toBeNull();
  });

  it("answers 404 for an unknown project", async () => {
    expectError(
      await tryCreate({}, { relationships: { project: { data: { id: "prj-doesnotexist0000", type: "projects" } } } }),
      404,
      "/data/relationships/project/data/id",
    );
  });

  it("ignores unknown attributes", async () => {
    const ws = await createWorkspace({ "no-such-attribute": 1 });
    expect(ws.attributes["no-such-attribute"]).toBeUndefined();
  });
});

describe("inherits-project-auto-destroy", () => {
  it("is true by default, set on create, kept or changed on update, and must be a boolean", async () => {
    const inheriting = await createWorkspace();
    expect(inheriting.attributes["inherits-project-auto-destroy"]).toBe(true);
    const own = await createWorkspace({ "inherits-project-auto-destroy": false, "auto-destroy-activity-duration": "3d" });
    expect(own.attributes["inherits-project-auto-destroy"]).toBe(false);

    const kept = await patch(own.id, { description: "unrelated" });
    expect(kept.body.data.attributes["inherits-project-auto-destroy"]).toBe(false);
    const changed = await patch(own.id, { "inherits-project-auto-destroy": true });
    expect(changed.body.data.attributes["inherits-project-auto-destroy"]).toBe(true);
    expect(emu.getWorkspace(own.id)?.attributes["inherits-project-auto-destroy"]).toBe(true);

    expectError(await patch(own.id, { "inherits-project-auto-destroy": "yes" }), 422, "/data/attributes/inherits-project-auto-destroy");
    expectError(await tryCreate({ "inherits-project-auto-destroy": 1 }), 422, "/data/attributes/inherits-project-auto-destroy");
  });
});

describe("ping", () => {
  it("answers 204 without a token, with the API version and the caller's rate limit", async () => {
    emu.setRateLimit(5);
    const answer = await call("GET", "/ping", { token: null });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expect(answer.headers.get("tfp-api-version")).toBe("2.6");
    expect(answer.headers.get("x-ratelimit-limit")).toBe("5");
    expect(answer.headers.get("x-ratelimit-remaining")).toBe("4");
    expect(answer.headers.get("x-ratelimit-reset")).toMatch(/^\d+\.\d{3}$/);
  });

  it("counts against the token's budget like any API call", async () => {
    emu.setRateLimit(2);
    const first = await call("GET", "/ping", { token: emu.tokens.team });
    const second = await call("GET", `/workspaces/${emu.vcsWorkspaceId}`, { token: emu.tokens.team });
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("sends the API version on every API answer, errors included", async () => {
    expect((await call("GET", `/workspaces/${emu.vcsWorkspaceId}`)).headers.get("tfp-api-version")).toBe("2.6");
    const refused = await call("GET", `/workspaces/${emu.vcsWorkspaceId}`, { token: null });
    expectError(refused, 401);
    expect(refused.headers.get("tfp-api-version")).toBe("2.6");
  });
});

describe("workspace locking", () => {
  const action = (id: string, name: "lock" | "unlock" | "force-unlock", token?: string, body?: unknown) =>
    call("POST", `/workspaces/${id}/actions/${name}`, { token, body });

  it("locks with a reason; the workspace shows it locked, by whom and why", async () => {
    const ws = await createWorkspace();
    const answer = await action(ws.id, "lock", emu.tokens.user, { reason: "state surgery" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain(JSON_API);
    const locked = answer.body.data as Resource;
    expect(locked.id).toBe(ws.id);
    expect(locked.attributes.locked).toBe(true);
    expect(locked.attributes["locked-reason"]).toBe("state surgery");
    expect(locked.relationships["locked-by"].data.type).toBe("users");
    expect(locked.relationships["locked-by"].data.id).toMatch(/^user-[A-Za-z0-9]{16}$/);
    const shown = (await call("GET", `/workspaces/${ws.id}`)).body.data as Resource;
    expect(shown.attributes.locked).toBe(true);
    expect(shown.relationships["locked-by"].data).toEqual(locked.relationships["locked-by"].data);
    expect(emu.getWorkspace(ws.id)?.attributes.locked).toBe(true);
  });

  it("answers 409 to a lock of a locked workspace and to an unlock of an unlocked one", async () => {
    const ws = await createWorkspace();
    expectError(await action(ws.id, "unlock"), 409);
    expectError(await action(ws.id, "force-unlock"), 409);
    expect((await action(ws.id, "lock")).status).toBe(200);
    const again = expectError(await action(ws.id, "lock"), 409);
    expect(again[0].detail).toMatch(/already locked/);
    expect(emu.getWorkspace(ws.id)?.attributes.locked).toBe(true);
  });

  it("unlocks for the holder only; another holder gets 409 naming who holds the lock", async () => {
    const ws = await createWorkspace();
    const lockedBy = (await action(ws.id, "lock", emu.tokens.user)).body.data.relationships["locked-by"].data;
    const refused = expectError(await action(ws.id, "unlock", emu.tokens.team), 409);
    expect(refused[0].detail).toContain(`is locked by User ${lockedBy.id}`);
    expect(emu.getWorkspace(ws.id)?.attributes.locked).toBe(true);

    const answer = await action(ws.id, "unlock", emu.tokens.user);
    expect(answer.status).toBe(200);
    expect(answer.body.data.attributes.locked).toBe(false);
    expect(answer.body.data.attributes["locked-reason"]).toBe("");
    expect(answer.body.data.relationships["locked-by"]).toBeUndefined();
    expect(emu.getWorkspace(ws.id)?.attributes.locked).toBe(false);
  });

  it("force-unlocks a lock held by someone else, and one set out of band", async () => {
    const ws = await createWorkspace();
    await action(ws.id, "lock", emu.tokens.team);
    const forced = await action(ws.id, "force-unlock", emu.tokens.user);
    expect(forced.status).toBe(200);
    expect(forced.body.data.attributes.locked).toBe(false);

    emu.updateWorkspaceAttributes(ws.id, { locked: true });
    expectError(await action(ws.id, "unlock", emu.tokens.user), 409);
    expect((await action(ws.id, "force-unlock", emu.tokens.user)).body.data.attributes.locked).toBe(false);
  });

  it("answers 404 for unknown workspaces and tokens without access; the lock flag is not writable", async () => {
    const ws = await createWorkspace();
    for (const name of ["lock", "unlock", "force-unlock"] as const) {
      expectError(await action("ws-doesnotexist00000", name), 404);
      expectError(await action(ws.id, name, emu.tokens.readOnly), 404);
    }
    expect(emu.getWorkspace(ws.id)?.attributes.locked).toBe(false);
    expect((await patch(ws.id, { locked: true })).body.data.attributes.locked).toBe(false);
    expectError(await action(ws.id, "lock", emu.tokens.user, { reason: 42 }), 422, "/reason");
  });
});

describe("workspace show, update and delete", () => {
  it("shows a workspace by id and by organization and name identically", async () => {
    const ws = await createWorkspace({ description: "shown" });
    const byId = await call("GET", `/workspaces/${ws.id}`);
    const byName = await call("GET", `/organizations/${emu.organization}/workspaces/${ws.attributes.name}`);
    expect(byId.status).toBe(200);
    expect(byName.body).toEqual(byId.body);
    expectError(await call("GET", "/workspaces/ws-doesnotexist00000"), 404);
  });

  it("keeps every attribute not listed in the update body", async () => {
    const ws = await createWorkspace({
      description: "before",
      "auto-apply": true,
      "execution-mode": "agent",
      "agent-pool-id": emu.agentPoolId,
      "trigger-prefixes": ["/a"],
      "source-name": "pulumi",
    });
    const answer = await patch(ws.id, { description: "after" });
    expect(answer.status).toBe(200);
    const updated = answer.body.data as Resource;
    expect(updated.attributes.description).toBe("after");
    const { description: _a, "updated-at": _b, "latest-change-at": _c, ...restBefore } = ws.attributes;
    const { description: _d, "updated-at": _e, "latest-change-at": _f, ...restAfter } = updated.attributes;
    expect(restAfter).toEqual(restBefore);
    expect(updated.relationships["agent-pool"].data.id).toBe(emu.agentPoolId);
  });

  it("updates by organization and name like by id, and renaming changes the URL", async () => {
    const ws = await createWorkspace();
    const oldName = ws.attributes.name;
    const newName = uniqueName("renamed");
    const answer = await call("PATCH", `/organizations/${emu.organization}/workspaces/${oldName}`, {
      body: workspaceBody({ name: newName, "auto-apply": true }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.id).toBe(ws.id);
    expect(answer.body.data.links.self).toBe(`/api/v2/organizations/${emu.organization}/workspaces/${newName}`);
    expectError(await call("GET", `/organizations/${emu.organization}/workspaces/${oldName}`), 404);
    expect((await call("GET", `/organizations/${emu.organization}/workspaces/${newName}`)).body.data.attributes["auto-apply"]).toBe(true);
    const other = await createWorkspace();
    const clash = await patch(other.id, { name: newName });
    expect(expectError(clash, 422, "/data/attributes/name")[0].detail).toContain("has already been taken");
    expect((await patch(ws.id, { name: newName })).status).toBe(200);
  });

  it("adds, modifies, switches and removes the VCS repository", async () => {
    const ws = await createWorkspace();
    const pointer = (key: string) => `/data/attributes/vcs-repo/${key}`;
    expectError(await patch(ws.id, { "vcs-repo": { branch: "main" } }), 422, pointer("identifier"));
    expectError(await patch(ws.id, { "vcs-repo": { identifier: "acme/app" } }), 422, pointer("oauth-token-id"));
    const added = await patch(ws.id, { "vcs-repo": { "oauth-token-id": emu.oauthTokenId, identifier: "acme/app" } });
    expect(added.status).toBe(200);
    expect(added.body.data.attributes["vcs-repo"].branch).toBe("");

    const branch = await patch(ws.id, { "vcs-repo": { branch: "release" } });
    expect(branch.body.data.attributes["vcs-repo"]).toMatchObject({ branch: "release", identifier: "acme/app", "oauth-token-id": emu.oauthTokenId });

    expectError(
      await patch(ws.id, { "vcs-repo": { "oauth-token-id": emu.oauthTokenId, "github-app-installation-id": emu.githubAppInstallationId } }),
      422,
      pointer("github-app-installation-id"),
    );
    const switched = await patch(ws.id, { "vcs-repo": { "github-app-installation-id": emu.githubAppInstallationId } });
    expect(switched.status).toBe(200);
    expect(switched.body.data.attributes["vcs-repo"]).toMatchObject({
      "oauth-token-id": null,
      "github-app-installation-id": emu.githubAppInstallationId,
      identifier: "acme/app",
      branch: "release",
    });

    const removed = await patch(ws.id, { "vcs-repo": null });
    expect(removed.body.data.attributes["vcs-repo"]).toBeNull();
    expect(removed.body.data.attributes["vcs-repo-identifier"]).toBeNull();
  });

  it("moves the workspace between projects; blank or unchanged means no move", async () => {
    const ws = await createWorkspace();
    const project = (id: string | null) => ({ project: { data: id === null ? null : { id, type: "projects" } } });
    const moved = await patch(ws.id, {}, project(emu.otherProjectId));
    expect(moved.body.data.relationships.project.data.id).toBe(emu.otherProjectId);
    expect((await patch(ws.id, {}, project(""))).body.data.relationships.project.data.id).toBe(emu.otherProjectId);
    expect((await patch(ws.id, {}, project(null))).body.data.relationships.project.data.id).toBe(emu.otherProjectId);
    expectError(await patch(ws.id, {}, project("prj-doesnotexist0000")), 404, "/data/relationships/project/data/id");
    expect((await patch(ws.id, {}, project(emu.defaultProjectId))).body.data.relationships.project.data.id).toBe(emu.defaultProjectId);
  });

  it("applies the execution rules on update", async () => {
    const ws = await createWorkspace({ "execution-mode": "agent", "agent-pool-id": emu.agentPoolId });
    expectError(await patch(ws.id, { "execution-mode": "remote", "agent-pool-id": emu.agentPoolId }), 422, "/data/attributes/agent-pool-id");
    expectError(await patch(ws.id, { operations: true, "execution-mode": "remote" }), 422, "/data/attributes/operations");
    const remote = await patch(ws.id, { "execution-mode": "remote" });
    expect(remote.body.data.attributes["execution-mode"]).toBe("remote");
    expect(remote.body.data.relationships["agent-pool"].data).toBeNull();
    expectError(await patch(ws.id, { "execution-mode": "agent" }), 422, "/data/attributes/agent-pool-id");
    expectError(await patch(ws.id, { "source-url": "https://example.com" }), 422, "/data/attributes/source-url");
    expectError(await patch(ws.id, { "source-name": "other" }), 422, "/data/attributes/source-name");
    const inherited = await patch(ws.id, { "setting-overwrites": { "execution-mode": false } });
    expect(inherited.body.data.attributes["setting-overwrites"]["execution-mode"]).toBe(false);
    expect(inherited.body.data.attributes["execution-mode"]).toBe("remote");
  });

  it("shows out-of-band changes made through the state helpers", async () => {
    const ws = await createWorkspace({ description: "declared" });
    emu.updateWorkspaceAttributes(ws.id, { description: "drifted", "auto-apply": true });
    const read = await call("GET", `/workspaces/${ws.id}`);
    expect(read.body.data.attributes).toMatchObject({ description: "drifted", "auto-apply": true });
    expect(emu.getWorkspace(ws.id)?.attributes.description).toBe("drifted");
    expect(emu.deleteWorkspace(ws.id)).toBe(true);
    expectError(await call("GET", `/workspaces/${ws.id}`), 404);
    expect(emu.deleteWorkspace(ws.id)).toBe(false);
  });

  it("deletes by id and by organization and name with 204", async () => {
    const a = await createWorkspace();
    const b = await createWorkspace();
    const byId = await call("DELETE", `/workspaces/${a.id}`);
    expect(byId.status).toBe(204);
    expect(byId.text).toBe("");
    expect((await call("DELETE", `/organizations/${emu.organization}/workspaces/${b.attributes.name}`)).status).toBe(204);
    expectError(await call("GET", `/workspaces/${a.id}`), 404);
    expectError(await call("GET", `/workspaces/${b.id}`), 404);
    expectError(await call("DELETE", `/workspaces/${a.id}`), 404);
    expect(emu.getWorkspace(a.id)).toBeUndefined();
  });
});

describe("pagination", () => {
  const org = () => emu.secondOrganization;

  beforeAll(async () => {
    for (let i = 1; i <= 45; i++) {
      await createWorkspace({ name: `page-${String(i).padStart(2, "0")}` }, { org: org() });
    }
  });

  it("pages with percent-encoded brackets and reports meta.pagination and links", async () => {
    const first = await call("GET", `/organizations/${org()}/workspaces?search%5Bname%5D=page-&page%5Bnumber%5D=1&page%5Bsize%5D=20`);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(20);
    expect(first.body.meta.pagination).toEqual({
      "current-page": 1,
      "page-size": 20,
      "prev-page": null,
      "next-page": 2,
      "total-pages": 3,
      "total-count": 45,
    });
    expect(first.body.links.prev).toBeNull();
    expect(first.body.links.self).toContain("page%5Bnumber%5D=1");
    expect(first.body.links.last).toContain("page%5Bnumber%5D=3");

    const third = await call("GET", `/organizations/${org()}/workspaces?search%5Bname%5D=page-&page%5Bnumber%5D=3&page%5Bsize%5D=20`);
    expect(third.body.data).toHaveLength(5);
    expect(third.body.meta.pagination).toMatchObject({ "current-page": 3, "prev-page": 2, "next-page": null });
    expect(third.body.links.next).toBeNull();
  });

  it("visits every workspace once by following links.next", async () => {
    const names: string[] = [];
    let next: string | null = `/organizations/${org()}/workspaces?search%5Bname%5D=page-&page%5Bsize%5D=7`;
    let pages = 0;
    while (next) {
      const answer = await call("GET", next);
      expect(answer.status).toBe(200);
      names.push(...answer.body.data.map((ws: Resource) => ws.attributes.name));
      next = answer.body.links.next;
      pages += 1;
    }
    expect(pages).toBe(7);
    expect(names).toEqual(Array.from({ length: 45 }, (_, i) => `page-${String(i + 1).padStart(2, "0")}`));
  });

  it("uses 20 per page by default and at most 100", async () => {
    const plain = await call("GET", `/organizations/${org()}/workspaces`);
    expect(plain.body.data).toHaveLength(20);
    expect(plain.body.meta.pagination["page-size"]).toBe(20);
    const huge = await call("GET", `/organizations/${org()}/workspaces?page[size]=500`);
    expect(huge.body.meta.pagination["page-size"]).toBe(100);
    expect(huge.body.data.length).toBe(huge.body.meta.pagination["total-count"]);
    const beyond = await call("GET", `/organizations/${org()}/workspaces?page[number]=99`);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.pagination["next-page"]).toBeNull();
  });

  it("pages configuration versions, newest first", async () => {
    const ws = await createWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createVersion(ws.id)).id);
    const page1 = await call("GET", `/workspaces/${ws.id}/configuration-versions?page%5Bsize%5D=2`);
    expect(page1.body.meta.pagination).toMatchObject({ "total-count": 3, "total-pages": 2, "next-page": 2 });
    const page2 = await call("GET", page1.body.links.next);
    const listed = [...page1.body.data, ...page2.body.data].map((cv: Resource) => cv.id);
    expect(listed).toEqual([...ids].reverse());
    for (const cv of [...page1.body.data, ...page2.body.data]) expect(cv.attributes["upload-url"]).toBeUndefined();
  });
});

describe("rate limit", () => {
  it("defaults to 30 requests per second per token, like the real service", async () => {
    const fresh = await startWorkspacesEmulator({ port: 0, vcsSample: true });
    try {
      const answer = await fetch(`${fresh.url}/api/v2/workspaces/${fresh.vcsWorkspaceId}`, {
        headers: { authorization: `Bearer ${fresh.tokens.user}` },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-ratelimit-limit")).toBe("30");
    } finally {
      await fresh.close();
    }
  });

  it("answers a burst over the limit with 429 and the rate limit headers", async () => {
    emu.setRateLimit(3);
    const answers = await Promise.all(
      Array.from({ length: 15 }, () => call("GET", `/workspaces/${emu.vcsWorkspaceId}`, { token: emu.tokens.team })),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of answers) expect([200, 429]).toContain(answer.status);
    const one = limited[0];
    expectError(one, 429);
    expect(Number(one.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(one.headers.get("retry-after")))).toBe(true);
    expect(one.headers.get("x-ratelimit-limit")).toBe("3");
    expect(one.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(one.headers.get("x-ratelimit-reset")).toMatch(/^\d+\.\d+$/);
    const ok = answers.find((a) => a.status === 200);
    expect(ok?.headers.get("x-ratelimit-limit")).toBe("3");

    // Another token has its own budget.
    expect((await call("GET", `/workspaces/${emu.vcsWorkspaceId}`, { token: emu.tokens.organization })).status).toBe(200);
  });

  it("does not limit uploads and archive downloads", async () => {
    const ws = await createWorkspace();
    const cv = await uploadedVersion(ws.id);
    const second = await createVersion(ws.id);
    const redirect = await call("GET", `/configuration-versions/${cv.id}/download`);
    const location = redirect.headers.get("location") as string;
    // Unauthenticated requests are limited by address, the key the archive store's requests would share.
    emu.setRateLimit(1);
    const burst = await Promise.all(Array.from({ length: 8 }, () => call("GET", `/workspaces/${ws.id}`, { token: null })));
    expect(burst.some((a) => a.status === 429)).toBe(true);
    for (let i = 0; i < 4; i++) expect((await fetch(location)).status).toBe(200);
    expect((await upload(second.attributes["upload-url"], await makeArchive({ "a.tf": "" }))).status).toBe(200);
  });

  it("can be switched off", async () => {
    emu.setRateLimit(undefined);
    const answers = await Promise.all(Array.from({ length: 40 }, () => call("GET", `/workspaces/${emu.vcsWorkspaceId}`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers[0].headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("configuration versions", () => {
  let ws: Resource;

  beforeAll(async () => {
    ws = await createWorkspace({ name: "configs" });
  });

  it("creates a pending version with defaults and an upload URL shown only once", async () => {
    const cv = await createVersion(ws.id);
    expect(cv.id).toMatch(/^cv-[A-Za-z0-9]{16}$/);
    expect(cv.type).toBe("configuration-versions");
    expect(cv.attributes).toMatchObject({
      "auto-queue-runs": true,
      speculative: false,
      provisional: false,
      status: "pending",
      error: null,
      "error-message": null,
      source: "workspaces-api",
    });
    expect(cv.attributes["status-timestamps"]["pending-at"]).toEqual(expect.any(String));
    expect(cv.attributes["upload-url"]).toMatch(new RegExp(`^${emu.url}/_archivist/v1/object/[A-Za-z0-9_-]{40,}$`));
    expect(cv.relationships["ingress-attributes"]).toEqual({
      data: null,
      links: { related: `/api/v2/configuration-versions/${cv.id}/ingress-attributes` },
    });
    expect(cv.links).toEqual({
      self: `/api/v2/configuration-versions/${cv.id}`,
      download: `/api/v2/configuration-versions/${cv.id}/download`,
    });
    const shown = await call("GET", `/configuration-versions/${cv.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.attributes["upload-url"]).toBeUndefined();
    expect(shown.body.data.attributes.status).toBe("pending");
  });

  it("stores the flags given on create and validates their types", async () => {
    const cv = await createVersion(ws.id, { "auto-queue-runs": false, speculative: true, provisional: true });
    expect(cv.attributes).toMatchObject({ "auto-queue-runs": false, speculative: true, provisional: true });
    expectError(
      await call("POST", `/workspaces/${ws.id}/configuration-versions`, {
        body: { data: { type: "configuration-versions", attributes: { speculative: "yes" } } },
      }),
      422,
      "/data/attributes/speculative",
    );
    expectError(
      await call("POST", `/workspaces/ws-doesnotexist00000/configuration-versions`, {
        body: { data: { type: "configuration-versions", attributes: {} } },
      }),
      404,
    );
  });

  it("streams an upload larger than the API body limit and moves pending → uploaded", async () => {
    const size = 40 * 1024 * 1024;
    const cv = await createVersion(ws.id);
    const answer = await upload(cv.attributes["upload-url"], gzipLookingStream(size));
    expect(answer.status).toBe(200);
    expect(emu.uploadedBytes(cv.id)).toBe(size);
    const done = await settled(cv.id);
    expect(done.attributes.status).toBe("uploaded");
    expect(Object.keys(done.attributes["status-timestamps"]).sort()).toEqual(["pending-at", "uploaded-at"]);
    expect(emu.getConfigurationVersion(cv.id)?.status).toBe("uploaded");
  });

  it("accepts each upload URL once", async () => {
    const cv = await createVersion(ws.id);
    const archive = await makeArchive({ "main.tf": "# once\n" });
    expect((await upload(cv.attributes["upload-url"], archive)).status).toBe(200);
    const again = await upload(cv.attributes["upload-url"], archive);
    expect([404, 410]).toContain(again.status);
    expect(JSON.parse(again.text).errors[0].status).toBe(String(again.status));
    expect((await upload(`${emu.url}/_archivist/v1/object/not-a-real-object`, archive)).status).toBe(404);
  });

  it("takes uploads whatever their content type, or none", async () => {
    const archive = await makeArchive({ "main.tf": "# typed\n" });
    for (const contentType of [null, "application/json", "application/x-gzip"]) {
      const cv = await createVersion(ws.id);
      expect((await upload(cv.attributes["upload-url"], archive, contentType)).status).toBe(200);
      expect(emu.uploadedBytes(cv.id)).toBe(archive.length);
      expect((await settled(cv.id)).attributes.status).toBe("uploaded");
    }
  });

  it("queues a run after upload unless auto-queue-runs is false", async () => {
    const queued = await uploadedVersion(ws.id);
    const withRun = await call("GET", `/configuration-versions/${queued.id}?include=run`);
    expect(withRun.body.included).toHaveLength(1);
    expect(withRun.body.included[0]).toMatchObject({ type: "runs" });
    expect(withRun.body.included[0].id).toMatch(/^run-/);
    const workspace = await call("GET", `/workspaces/${ws.id}`);
    expect(workspace.body.data.relationships["current-configuration-version"].data).toEqual({
      id: queued.id,
      type: "configuration-versions",
    });
    expect(workspace.body.data.relationships["latest-run"].data.id).toBe(withRun.body.included[0].id);

    const manual = await uploadedVersion(ws.id, { "auto-queue-runs": false });
    expect((await call("GET", `/configuration-versions/${manual.id}?include=run`)).body.included).toEqual([]);
  });

  it("errors an upload that is not a gzip stream", async () => {
    const cv = await createVersion(ws.id);
    expect((await upload(cv.attributes["upload-url"], Buffer.from("plain text, not an archive"))).status).toBe(200);
    const done = await settled(cv.id);
    expect(done.attributes.status).toBe("errored");
    expect(done.attributes.error).toEqual(expect.any(String));
    expect(done.attributes["error-message"]).toEqual(expect.any(String));
    expect(done.attributes["status-timestamps"]["errored-at"]).toEqual(expect.any(String));
  });

  it("errors the next upload with the armed message", async () => {
    emu.failNextUpload("archive rejected by the test");
    const cv = await createVersion(ws.id);
    expect((await upload(cv.attributes["upload-url"], await makeArchive({ "main.tf": "" }))).status).toBe(200);
    const done = await settled(cv.id);
    expect(done.attributes.status).toBe("errored");
    expect(done.attributes["error-message"]).toBe("archive rejected by the test");
    // The failure applies once.
    await uploadedVersion(ws.id);
  });

  it("archives an uploaded API version with 202, refusing pending, in-progress and repeated archives with 409", async () => {
    const pending = await createVersion(ws.id);
    expectError(await call("POST", `/configuration-versions/${pending.id}/actions/archive`), 409);

    const cv = await uploadedVersion(ws.id);
    const runId = emu.addRun(cv.id, { inProgress: true });
    expect(runId).toMatch(/^run-[A-Za-z0-9]{16}$/);
    expectError(await call("POST", `/configuration-versions/${cv.id}/actions/archive`), 409);
    emu.finishRun(runId);

    const archived = await call("POST", `/configuration-versions/${cv.id}/actions/archive`, {
      headers: { "content-type": JSON_API },
    });
    expect(archived.status).toBe(202);
    expect(archived.text).toBe("");
    const after = (await call("GET", `/configuration-versions/${cv.id}`)).body.data as Resource;
    expect(after.attributes.status).toBe("archived");
    expect(after.attributes["status-timestamps"]["archived-at"]).toEqual(expect.any(String));
    expect(emu.getConfigurationVersion(cv.id)?.filePath).toBeNull();
    expectError(await call("POST", `/configuration-versions/${cv.id}/actions/archive`), 409);
    expectError(await call("GET", `/configuration-versions/${cv.id}/download`), 404);

    expectError(await call("POST", `/configuration-versions/cv-doesnotexist00000/actions/archive`), 404);
    const other = await uploadedVersion(ws.id);
    expectError(await call("POST", `/configuration-versions/${other.id}/actions/archive`, { token: emu.tokens.readOnly }), 404);
    expectError(await call("POST", `/configuration-versions/${emu.vcsConfigurationVersionId}/actions/archive`), 409);
  });

  it("redirects downloads to a temporary URL that serves the uploaded archive byte for byte", async () => {
    const archive = await makeArchive({ "main.tf": 'resource "null" "x" {}\n', "vars.tf": 'variable "v" {}\n' });
    const cv = await uploadedVersion(ws.id, {}, archive);
    expect(emu.uploadedBytes(cv.id)).toBe(archive.length);

    const redirect = await call("GET", `/configuration-versions/${cv.id}/download`);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get("location") as string;
    expect(location.startsWith(`${emu.url}/`)).toBe(true);

    const download = await fetch(location);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/x-gzip");
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.equals(archive)).toBe(true);

    const file = path.join(scratch, "downloaded.tar.gz");
    const out = path.join(scratch, "extracted");
    await writeFile(file, bytes);
    await mkdir(out);
    await extractTar({ file, cwd: out });
    expect(await readFile(path.join(out, "vars.tf"), "utf8")).toBe('variable "v" {}\n');

    const runId = emu.addRun(cv.id, { inProgress: false });
    const viaRun = await call("GET", `/runs/${runId}/configuration-version/download`);
    expect(viaRun.status).toBe(302);
    expect(Buffer.from(await (await fetch(viaRun.headers.get("location") as string)).arrayBuffer()).equals(archive)).toBe(true);
    expectError(await call("GET", `/runs/run-doesnotexist00000/configuration-version/download`), 404);
  });

  it("refuses downloads of versions that are not uploaded (404)", async () => {
    const pending = await createVersion(ws.id);
    expectError(await call("GET", `/configuration-versions/${pending.id}/download`), 404);
    expectError(await call("GET", `/configuration-versions/cv-doesnotexist00000/download`), 404);
    expect(() => emu.addRun(pending.id, { inProgress: false })).toThrow();
    expect((await fetch(`${emu.url}/_archivist/v1/object/unknown-object`)).status).toBe(404);
  });

  it("shows ingress attributes of a VCS-created version, and none for API-created ones", async () => {
    const cvId = emu.vcsConfigurationVersionId!;
    const shown = await call("GET", `/configuration-versions/${cvId}?include=ingress-attributes`);
    expect(shown.status).toBe(200);
    const relation = shown.body.data.relationships["ingress-attributes"];
    expect(relation.data.type).toBe("ingress-attributes");
    expect(relation.data.id).toMatch(/^ia-/);
    expect(shown.body.included).toHaveLength(1);
    const ia = shown.body.included[0] as Resource;
    expect(ia.id).toBe(relation.data.id);
    expect(ia.attributes).toMatchObject({
      branch: expect.any(String),
      "clone-url": expect.any(String),
      "commit-sha": expect.any(String),
      identifier: "acme/infrastructure",
      "is-pull-request": expect.any(Boolean),
      "on-default-branch": expect.any(Boolean),
      "pull-request-number": expect.any(Number),
      tag: null,
    });
    expect(ia.relationships["created-by"].data.type).toBe("users");
    expect(ia.links.self).toBe(`/api/v2/ingress-attributes/${ia.id}`);

    const direct = await call("GET", `/configuration-versions/${cvId}/ingress-attributes`);
    expect(direct.status).toBe(200);
    expect(direct.body.data).toEqual(ia);
    expect((await call("GET", ia.links.self.replace("/api/v2", ""))).body.data).toEqual(ia);

    const apiCreated = await createVersion(ws.id);
    expectError(await call("GET", `/configuration-versions/${apiCreated.id}/ingress-attributes`), 404);
    const withInclude = await call("GET", `/configuration-versions/${apiCreated.id}?include=ingress-attributes`);
    expect(withInclude.body.included).toEqual([]);
    const bad = expectError(await call("GET", `/configuration-versions/${apiCreated.id}?include=bogus`), 400);
    expect(bad[0].source?.parameter).toBe("include");
  });

  it("archives a VCS-created version automatically once its runs complete", async () => {
    const cvId = emu.vcsConfigurationVersionId!;
    expect((await call("GET", `/configuration-versions/${cvId}/download`)).status).toBe(302);
    const runId = emu.addRun(cvId, { inProgress: true });
    expect(emu.getConfigurationVersion(cvId)?.status).toBe("uploaded");
    emu.finishRun(runId);
    expect(emu.getConfigurationVersion(cvId)?.status).toBe("archived");
    expectError(await call("GET", `/configuration-versions/${cvId}/download`), 404);
    // An archived VCS version can still be used for runs.
    expect(emu.addRun(cvId, { inProgress: false })).toMatch(/^run-/);
  });

  it("deleting a workspace removes its configuration versions", async () => {
    const doomed = await createWorkspace();
    const cv = await uploadedVersion(doomed.id);
    expect((await call("DELETE", `/workspaces/${doomed.id}`)).status).toBe(204);
    expectError(await call("GET", `/configuration-versions/${cv.id}`), 404);
    expect(emu.getConfigurationVersion(cv.id)).toBeUndefined();
  });
});
