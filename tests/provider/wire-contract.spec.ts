/**
 * Rows of a wire contract and the one way they go out (`provider/contract.ts`): the path from the
 * template, the payload held to its schema before anything is sent, the answer checked and read
 * leniently, a 404 read as the row says, a write sent once never repeated. The mesh service's
 * client sends every request by a row.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import { AddressInfo } from "node:net";
import * as path from "node:path";
import { z } from "zod";
import { endpoint, Method, send, Transport } from "../../provider/contract";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { resolveServiceConfig } from "../../provider/config";
import { kv, kvSecret, namespaces, policies, rekey, replication, sync, syncObjects, transform, transformObjects } from "../../provider/contracts/keep";
import { mesh } from "../../provider/contracts/mesh";
import { configurationVersions, workspaceAttributes, workspaces } from "../../provider/contracts/workspaces";
import { KeepClient } from "../support/by-path";
import { WorkspacesClient } from "../support/by-path";
import { ApiError, ResponseShapeError } from "../../provider/errors";

interface Sent {
  method: Method;
  path: string;
  body: unknown;
}

/** A transport that records what it is given and answers `reply`. */
function recording(reply: (sent: Sent) => unknown): { sent: Sent[]; transport: Transport<undefined, { index: number }> } {
  const sent: Sent[] = [];
  return {
    sent,
    transport: async ({ method }, p, body) => {
      sent.push({ method, path: p, body });
      return { body: reply({ method, path: p, body }), extra: { index: 7 } };
    },
  };
}

const partition = { Name: "team", Description: "", CreateIndex: 1, ModifyIndex: 2 };

describe("a row of a wire contract", () => {
  test("the line gives method and path template; the path's values are encoded once", async () => {
    const row = endpoint("PUT things/{name}/{rest*}", { body: z.strictObject({ A: z.number() }), answer: z.object({ ok: z.boolean() }) });
    expect({ method: row.method, path: row.path, notFound: row.notFound }).toEqual({ method: "PUT", path: "things/{name}/{rest*}", notFound: "error" });
    const { sent, transport } = recording(() => ({ ok: true }));
    const answer = await send("svc", "/v1", transport, row, { params: { name: "a/b c", rest: "x y/z" }, body: { A: 1 } });
    expect(sent).toEqual([{ method: "PUT", path: "things/a%2Fb%20c/x%20y/z", body: { A: 1 } }]);
    expect(answer).toEqual({ body: { ok: true }, index: 7 });
  });

  test("a payload that does not fit is refused before anything is sent, naming the request and the field", async () => {
    const row = endpoint("PUT things/{name}", { body: z.strictObject({ A: z.number() }) });
    const { sent, transport } = recording(() => undefined);
    const error = (await send("svc", "/v1", transport, row, { params: { name: "n" }, body: { A: "1" } as never }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^svc: PUT \/v1\/things\/n: the payload does not fit the contract: A: /);
    expect(sent).toHaveLength(0);
  });

  test("an answer without the contract's shape is a ResponseShapeError naming the request and each field", async () => {
    const { transport } = recording(() => ({ Name: 3, CreateIndex: -1, ModifyIndex: 2 }));
    const error = await send("mesh", "/v1", transport, mesh.readPartition, { params: { name: "team" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect((error as ResponseShapeError).message).toMatch(/^mesh: GET \/v1\/partition\/team answered with an unexpected body: Name: .*; CreateIndex: /);
  });

  test("answers are read leniently: unknown fields kept, documented defaults filled in", async () => {
    const { transport } = recording(() => ({ Name: "team", CreateIndex: 1, ModifyIndex: 2, PartitionDefaults: { x: 1 } }));
    const answer = await send("mesh", "/v1", transport, mesh.readPartition, { params: { name: "team" } });
    expect(answer?.body).toEqual({ Name: "team", Description: "", CreateIndex: 1, ModifyIndex: 2, PartitionDefaults: { x: 1 } });
    const lists = recording(() => null);
    expect((await send("mesh", "/v1", lists.transport, mesh.listPartitions)).body).toEqual([]);
  });

  test("a 404 is 'not there' where the row says so, and a failure elsewhere", async () => {
    const notFound: Transport<undefined, object> = async ({ method }, p) => {
      throw new ApiError("mesh", method, `/v1/${p}`, 404, []);
    };
    expect(await send("mesh", "/v1", notFound, mesh.readPartition, { params: { name: "gone" } })).toBeUndefined();
    const error = await send("mesh", "/v1", notFound, mesh.updatePartition, { params: { name: "gone" }, body: { Name: "gone", Description: "" } }).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(404);
  });

  test("a row without an answer schema does not read the body", async () => {
    const { transport } = recording(() => "anything at all");
    expect((await send("mesh", "/v1", transport, mesh.deletePartition, { params: { name: "team" } })).body).toBeUndefined();
  });

  test("the mesh contract's answers parse what the spec shows", async () => {
    const { transport } = recording(() => partition);
    expect((await send("mesh", "/v1", transport, mesh.createPartition, { body: { Name: "team", Description: "" } })).body).toEqual(partition);
    const roots = recording(() => ({ ActiveRootID: "r1", Roots: null }));
    expect((await send("mesh", "/v1", roots.transport, mesh.caRoots)).body).toEqual({ ActiveRootID: "r1", Roots: [] });
  });

  test("the three clients are the one core with a profile each, and the mesh client sends only rows", () => {
    const read = (file: string) => fs.readFileSync(path.join(__dirname, "../../provider", file), "utf8");
    for (const file of ["keep-client.ts", "workspaces-client.ts", "mesh-client.ts"]) {
      const source = read(file);
      expect(source).toMatch(/class \w+Client extends ServiceClient</);
      expect(source).toMatch(/Profile<\w+, /);
      // The HTTP client, its retries and its errors are the core's; only the archive store (URLs that are their own credential) has another.
      expect(source.match(/createHttpClient\(/g)?.length ?? 0).toBe(file === "workspaces-client.ts" ? 1 : 0);
    }
    const mesh = read("mesh-client.ts");
    expect(mesh).not.toMatch(/this\.(request|exchange|http)\b/);
    expect(mesh).not.toMatch(/"(GET|PUT|POST|DELETE)"/);
    // One way to call a row: `send` (or `sendAll` across pages), never a method per endpoint.
    for (const file of ["keep-client.ts", "workspaces-client.ts", "mesh-client.ts"]) {
      const wrappers = [...read(file).matchAll(/this\.send\((\w+\.\w+)/g)].map((m) => `${file}: ${m[1]}`);
      expect(wrappers).toEqual([]);
    }
  });
});

describe("the secrets service's rows", () => {
  let emulator: KeepEmulator;
  const client = () =>
    new KeepClient(resolveServiceConfig("keep", (k) => ({ "keep:address": emulator.url, "keep:token": emulator.rootToken, "keep:retryBaseDelayMs": "5" })[k], {}));

  beforeAll(async () => {
    emulator = await startKeepEmulator();
  });
  afterAll(() => emulator.close());
  beforeEach(() => {
    emulator.log.clear();
    emulator.faults.clear();
  });

  test("a row sent once is not repeated after a lost answer; a read is", async () => {
    emulator.faults.inject({ times: 1, drop: true });
    const error = (await client()
      .send(rekey.start, { body: { secret_shares: 3, secret_threshold: 2, backup: false, require_verification: false } })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.mayHaveActed).toBe(true);
    expect(emulator.log.entries.map((e) => e.fault ?? e.status)).toEqual(["drop"]);
    emulator.log.clear();
    emulator.faults.inject({ times: 1, drop: true });
    expect((await client().send(rekey.status)).body).toMatchObject({ started: false, progress: 0 });
    expect(emulator.log.entries.map((e) => e.fault ?? e.status)).toEqual(["drop", 200]);
  });

  test("a row's own query goes with every request of it, beside the call's: a LIST is GET ?list=true", async () => {
    await client().write("secret/data/listed/a", { data: { k: "v" } });
    const listed = await client().send(kv.listMetadata, { params: { mount: "secret", prefix: "listed" } });
    expect(listed?.body).toEqual(["a"]);
    expect((await client().send(namespaces.list, { options: { namespace: "team" } }))?.body ?? []).toEqual([]);
    expect(emulator.log.lines().slice(1)).toEqual(["GET /v1/secret/metadata/listed?list=true", "GET /v1/sys/namespaces?list=true"]);
  });

  test("an answer that says it is complete is read as the completion, and checked field by field", async () => {
    const done = recording(() => ({ complete: true, nonce: "n", keys: null }));
    expect((await send("keep", "/v1", done.transport, rekey.submitShare, { body: { key: "k", nonce: "n" } })).body).toMatchObject({ complete: true, keys: [] });
    const incomplete = recording(() => ({ complete: true }));
    const error = await send("keep", "/v1", incomplete.transport, rekey.submitShare, { body: { key: "k", nonce: "n" } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^keep: PUT \/v1\/sys\/rekey\/update answered with an unexpected body: nonce: /);
  });

  test("a transform call's answer reads as its items, one value's or a batch's, each field checked", async () => {
    const one = recording(() => ({ decoded_value: "4111" }));
    expect((await send("keep", "/v1", one.transport, transform.decode, { params: { mount: "transform", role: "r" }, body: {} })).body).toEqual([{ value: "4111" }]);
    // A batch's items carry the plaintext as `encoded_value`.
    const batch = recording(() => ({ batch_results: [{ encoded_value: "a", reference: "1" }, { encoded_value: "b" }] }));
    expect((await send("keep", "/v1", batch.transport, transform.decode, { params: { mount: "transform", role: "r" }, body: {} })).body).toEqual([
      { value: "a", reference: "1" },
      { value: "b" },
    ]);
    const empty = recording(() => ({ reference: "1" }));
    const error = await send("keep", "/v1", empty.transport, transform.decode, { params: { mount: "transform", role: "r" }, body: {} }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/decode\/r answered with an unexpected body: .*must carry the decoded value/);
    const metadata = recording(() => ({ metadata: null, expiration_time: null }));
    expect((await send("keep", "/v1", metadata.transport, transform.metadata, { params: { mount: "transform", role: "r" }, body: {} })).body).toEqual([{ metadata: "", expiration_time: null }]);
  });

  test("an activation token is read from the envelope's wrap_info, or from the answer when it is sent unwrapped", async () => {
    const token = { token: "t", accessor: "a", ttl: 1800, creation_time: "2026-11-26T00:00:00Z" };
    const wrapped = recording(() => ({ request_id: "x", data: null, wrap_info: token }));
    expect((await send("keep", "/v1", wrapped.transport, replication.secondaryToken, { body: { id: "s" } })).body).toEqual(token);
    const plain = recording(() => ({ token: "t", ttl: 1800, creation_time: "2026-11-26T00:00:00Z" }));
    expect((await send("keep", "/v1", plain.transport, replication.secondaryToken, { body: { id: "s" } })).body).toEqual({ ...token, accessor: "" });
    const none = recording(() => ({ request_id: "x", data: null }));
    expect(await send("keep", "/v1", none.transport, replication.secondaryToken, { body: { id: "s" } }).catch((e: unknown) => e)).toBeInstanceOf(ResponseShapeError);
  });

  test("a secret's associations and the LIST of associations read their fields, absent ones as the service means them", async () => {
    const destinations = recording(() => ({ associated_destinations: { "repohost/gh": { type: "repohost", name: "gh", sync_status: "SYNCED", updated_at: "t" } } }));
    expect((await send("keep", "/v1", destinations.transport, sync.secretDestinations))?.body.associated_destinations["repohost/gh"]).toEqual({ sync_status: "SYNCED", updated_at: "t" });
    const list = recording(() => ({ key_info: { "repohost/gh": null }, keys: ["repohost/gh"] }));
    expect((await send("keep", "/v1", list.transport, sync.associations))?.body.key_info).toEqual({ "repohost/gh": [] });
  });

  test("an object's write answer is checked where the service answers with the object, and not read where it answers none", async () => {
    const app = { params: { name: "gh" }, body: {} };
    const answered = recording(() => ({ app_id: "12", fingerprint: "f1", name: "gh" }));
    expect((await send("keep", "/v1", answered.transport, syncObjects.repoHostApp.write, app)).body).toMatchObject({ fingerprint: "f1", name: "gh" });
    const wrong = recording(() => ({ app_id: "12", fingerprint: 7 }));
    const error = await send("keep", "/v1", wrong.transport, syncObjects.repoHostApp.write, app).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^keep: POST \/v1\/sys\/sync\/github-apps\/gh answered with an unexpected body: fingerprint: /);
    const secret = { params: { mount: "secret", path: "app/db" }, body: {} };
    expect((await send("keep", "/v1", recording(() => ({ version: 3, created_time: "t" })).transport, kvSecret.write, secret)).body).toMatchObject({ version: 3 });
    expect(await send("keep", "/v1", recording(() => ({ version: "3" })).transport, kvSecret.write, secret).catch((e: unknown) => e)).toBeInstanceOf(ResponseShapeError);
    expect(await send("keep", "/v1", recording(() => ({ disabled: "no" })).transport, syncObjects.config.write, { body: {} }).catch((e: unknown) => e)).toBeInstanceOf(ResponseShapeError);
    // The spec shows no answer to a policy or a transformation written: whatever comes is not read.
    const policy = recording(() => ({ warnings: ["w"], anything: 1 }));
    expect((await send("keep", "/v1", policy.transport, policies.acl.write, { params: { name: "readers" }, body: {} })).body).toBeUndefined();
    expect((await send("keep", "/v1", policy.transport, transformObjects.transformation.write, { params: { mount: "transform", type: "fpe", name: "ccn" }, body: {} })).body).toBeUndefined();
  });
});

describe("the workspace service's rows", () => {
  test("a payload goes as the JSON:API document's data, and the answer is read from it", async () => {
    const received: unknown[] = [];
    const server = http.createServer((req, res) => {
      let text = "";
      req.on("data", (c) => (text += c));
      req.on("end", () => {
        received.push({ method: req.method, url: req.url, type: req.headers["content-type"], body: JSON.parse(text) });
        res.writeHead(201, { "Content-Type": "application/vnd.api+json" });
        res.end(JSON.stringify({ data: { id: "ws-0123456789abcdef", type: "workspaces", attributes: { name: "app", "resource-count": "many" } } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    try {
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new WorkspacesClient(resolveServiceConfig("workspaces", (k) => ({ "workspaces:address": address, "workspaces:token": "t" })[k], {}));
      const body = { type: "workspaces" as const, attributes: { name: "app" }, relationships: { project: { data: { type: "projects", id: "prj-1" } } } };
      const answer = await client.send(workspaces.create, { params: { organization: "my org" }, body });
      expect(received).toEqual([{ method: "POST", url: "/api/v2/organizations/my%20org/workspaces", type: "application/vnd.api+json", body: { data: body } }]);
      expect(answer.body).toMatchObject({ id: "ws-0123456789abcdef", attributes: { name: "app" } });
      // A value of another type than the contract's reads as absent.
      expect(workspaceAttributes.parse(answer.body.attributes)).toMatchObject({ "resource-count": null, locked: false, "tag-names": [], permissions: {} });
    } finally {
      server.close();
    }
  });

  test("a listed row is read across its pages, and included resources come beside the answer", async () => {
    const urls: string[] = [];
    const server = http.createServer((req, res) => {
      urls.push(req.url ?? "");
      const page = Number(new URL(req.url ?? "", "http://x").searchParams.get("page[number]"));
      const item = (n: number) => ({ id: `cv-${n}`, type: "configuration-versions", attributes: { status: "uploaded" } });
      const document = req.url?.includes("include=run")
        ? { data: item(9), included: [{ id: "run-1", type: "runs", attributes: { status: "planning" } }] }
        : { data: [item(page * 2 - 1), item(page * 2)], meta: { pagination: { "current-page": page, "next-page": page < 3 ? page + 1 : null } } };
      res.writeHead(200, { "Content-Type": "application/vnd.api+json" }).end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    try {
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new WorkspacesClient(resolveServiceConfig("workspaces", (k) => ({ "workspaces:address": address, "workspaces:token": "t" })[k], {}));
      const items = await client.sendAll(configurationVersions.listPage, { params: { workspaceId: "ws-1" } });
      expect(items.map((v) => v.id)).toEqual(["cv-1", "cv-2", "cv-3", "cv-4", "cv-5", "cv-6"]);
      expect(urls).toEqual([1, 2, 3].map((n) => `/api/v2/workspaces/ws-1/configuration-versions?page%5Bnumber%5D=${n}&page%5Bsize%5D=100`));
      const read = await client.send(configurationVersions.read, { params: { id: "cv-9" }, options: { query: { include: "run" } } });
      expect(read?.included.map((r) => r.id)).toEqual(["run-1"]);
    } finally {
      server.close();
    }
  });

  test("an answer whose data is no resource object names the field", async () => {
    const { transport } = recording(() => ({ type: "workspaces", attributes: {} }));
    const error = await send("workspaces", "/api/v2", transport, workspaces.read, { params: { id: "ws-1" } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^workspaces: GET \/api\/v2\/workspaces\/ws-1 answered with an unexpected body: id: /);
  });
});
