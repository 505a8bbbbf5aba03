/**
 * Conformance of the mesh emulator with the mesh service spec: partitions and their state table, ACLs,
 * the certificate authority (roots, leaf certificates, rotation), blocking queries and authorisation.
 * Every test talks real HTTP to the emulator on loopback.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { startMeshEmulator, MeshEmulator, CaRootsResponse, LeafCertificate, Partition } from "../../emulator/mesh";

interface Answer {
  status: number;
  text: string;
  headers: Headers;
  json<T = unknown>(): T;
}

let mesh: MeshEmulator;

async function call(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const token = options.token === undefined ? mesh.rootToken : options.token;
  if (token !== null) headers["X-Mesh-Token"] = token;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${mesh.url}/v1${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers, json: <T>() => JSON.parse(text) as T };
}

const indexOf = (answer: Answer) => Number(answer.headers.get(mesh.blockingIndexHeader));
const serialValue = (colonHex: string) => BigInt(`0x${colonHex.replace(/:/g, "")}`);
const isRfc3339 = (value: string | undefined) =>
  typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value);

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("condition never held");
}

beforeAll(async () => {
  mesh = await startMeshEmulator({ port: 0, deletionDelayMs: 10 });
});

afterAll(async () => {
  await mesh.close();
});

beforeEach(() => {
  mesh.setDeletionDelay(10);
  mesh.clearIntentions();
  mesh.setDefaultAllow(false);
});

describe("partitions", () => {
  test("create, read, update and list follow the state table with one shared index", async () => {
    const created = await call("PUT", "/partition", { body: { Name: "na-west", Description: "Partition for North America West" } });
    expect(created.status).toBe(200);
    expect(created.headers.get("content-type")).toMatch(/application\/json/);
    const partition = created.json<Partition>();
    expect(partition).toEqual({
      Name: "na-west",
      Description: "Partition for North America West",
      CreateIndex: partition.CreateIndex,
      ModifyIndex: partition.CreateIndex,
    });
    expect(partition.DeletedAt).toBeUndefined();

    const read = await call("GET", "/partition/na-west?consistent");
    expect(read.status).toBe(200);
    expect(read.json()).toEqual(partition);

    const updated = await call("PUT", "/partition/na-west", { body: { Name: "na-west", Description: "changed" } });
    expect(updated.status).toBe(200);
    const after = updated.json<Partition>();
    expect(after.Description).toBe("changed");
    expect(after.CreateIndex).toBe(partition.CreateIndex);
    expect(after.ModifyIndex).toBeGreaterThan(partition.ModifyIndex);

    // Name is optional on update; Description defaults to "".
    const cleared = (await call("PUT", "/partition/na-west", { body: {} })).json<Partition>();
    expect(cleared.Description).toBe("");
    expect(cleared.ModifyIndex).toBeGreaterThan(after.ModifyIndex);

    const other = (await call("PUT", "/partition", { body: { Name: "eu-1" } })).json<Partition>();
    expect(other.Description).toBe("");
    expect(other.CreateIndex).toBeGreaterThan(cleared.ModifyIndex);

    const listed = await call("GET", "/partitions?stale");
    expect(listed.status).toBe(200);
    const names = listed.json<Partition[]>().map((p) => p.Name);
    expect(names).toEqual(expect.arrayContaining(["default", "na-west", "eu-1"]));
  });

  test("reading an absent partition is 404", async () => {
    const answer = await call("GET", "/partition/nowhere");
    expect(answer.status).toBe(404);
    expect(answer.headers.get("content-type")).toMatch(/text\/plain/);
  });

  test("delete marks for deletion (reads still work, DeletedAt set), then background deletion removes it", async () => {
    mesh.setDeletionDelay(60 * 60_000);
    await call("PUT", "/partition", { body: { Name: "doomed" } });
    const before = mesh.getPartition("doomed")!;
    const deleted = await call("DELETE", "/partition/doomed");
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe("");

    const marked = await call("GET", "/partition/doomed");
    expect(marked.status).toBe(200);
    const view = marked.json<Partition>();
    expect(isRfc3339(view.DeletedAt)).toBe(true);
    expect(view.ModifyIndex).toBeGreaterThan(before.ModifyIndex);
    const listed = (await call("GET", "/partitions")).json<Partition[]>();
    expect(listed.find((p) => p.Name === "doomed")?.DeletedAt).toBe(view.DeletedAt);

    mesh.setDeletionDelay(5);
    await call("PUT", "/partition", { body: { Name: "short-lived" } });
    expect((await call("DELETE", "/partition/short-lived")).status).toBe(200);
    const gone = await until(
      () => call("GET", "/partition/short-lived"),
      (answer) => answer.status === 404,
    );
    expect(gone.status).toBe(404);
    expect(mesh.getPartition("short-lived")).toBeUndefined();
  });

  test("the default partition cannot be deleted", async () => {
    const answer = await call("DELETE", "/partition/default");
    expect(answer.status).toBe(500);
    expect(answer.headers.get("content-type")).toMatch(/text\/plain/);
    expect(answer.text).toMatch(/default partition/);
    expect(mesh.getPartition("default")?.DeletedAt).toBeUndefined();
  });

  test("a name still being deleted cannot be created again until deletion completes", async () => {
    await call("PUT", "/partition", { body: { Name: "recycled" } });
    mesh.markPartitionDeleted("recycled");
    const refused = await call("PUT", "/partition", { body: { Name: "recycled" } });
    expect(refused.status).toBe(500);
    expect(refused.text).toMatch(/being deleted/);
    expect((await call("PUT", "/partition/recycled", { body: { Description: "x" } })).status).toBe(500);

    expect(mesh.deletePartitionNow("recycled")).toBe(true);
    expect((await call("PUT", "/partition", { body: { Name: "recycled" } })).status).toBe(200);
  });

  test("creating an existing partition is refused", async () => {
    await call("PUT", "/partition", { body: { Name: "twice" } });
    const again = await call("PUT", "/partition", { body: { Name: "twice" } });
    expect(again.status).toBe(500);
    expect(again.text).toMatch(/already exists/);
  });

  test.each([["-leading"], ["trailing-"], ["under_score"], ["dot.ted"], ["a".repeat(64)], [""]])(
    "create refuses the invalid name %j with 400 text",
    async (name) => {
      const answer = await call("PUT", "/partition", { body: { Name: name } });
      expect(answer.status).toBe(400);
      expect(answer.headers.get("content-type")).toMatch(/text\/plain/);
    },
  );

  test("other validation failures are 400", async () => {
    expect((await call("PUT", "/partition", { body: { Description: "no name" } })).status).toBe(400);
    expect((await call("PUT", "/partition", { body: { Name: "a".repeat(63) } })).status).toBe(200);
    expect((await call("PUT", "/partition", { body: { Name: "typed", Description: 5 } })).status).toBe(400);
    await call("PUT", "/partition", { body: { Name: "renamed" } });
    const mismatch = await call("PUT", "/partition/renamed", { body: { Name: "other" } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toMatch(/does not match/);
    expect((await call("PUT", "/partition/bad_name", { body: {} })).status).toBe(400);
    const malformed = await fetch(`${mesh.url}/v1/partition`, {
      method: "PUT",
      headers: { "X-Mesh-Token": mesh.rootToken, "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
  });

  test("updating an absent partition is 404", async () => {
    expect((await call("PUT", "/partition/never-made", { body: {} })).status).toBe(404);
  });

  test("a known path with the wrong method is 405 with Allow", async () => {
    const answer = await call("POST", "/partitions");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toContain("GET");
  });
});

describe("ACLs", () => {
  test("writes need operator:write; the denial names the accessor and the permission", async () => {
    const reader = mesh.createToken({ operator: "read" });
    const answer = await call("PUT", "/partition", { token: reader, body: { Name: "not-allowed" } });
    expect(answer.status).toBe(403);
    expect(answer.headers.get("content-type")).toMatch(/text\/plain/);
    expect(answer.text).toBe(
      `Permission denied: token with AccessorID '${mesh.accessorOf(reader)}' lacks permission 'operator:write'`,
    );
    expect((await call("DELETE", "/partition/default", { token: reader })).status).toBe(403);
    expect((await call("GET", "/partitions", { token: reader })).status).toBe(200);
    expect(mesh.getPartition("not-allowed")).toBeUndefined();
  });

  test("the anonymous token has no permissions and an unknown secret is refused", async () => {
    const anonymous = await call("GET", "/partitions", { token: null });
    expect(anonymous.status).toBe(403);
    expect(anonymous.text).toMatch(/AccessorID '00000000-0000-0000-0000-000000000002' lacks permission 'operator:read'/);
    const unknown = await call("GET", "/partitions", { token: "not-a-token" });
    expect(unknown.status).toBe(403);
    expect(unknown.text).toBe("ACL not found");
  });

  test("Authorization: Bearer is accepted in place of X-Mesh-Token", async () => {
    const answer = await call("GET", "/partitions", { token: null, headers: { Authorization: `Bearer ${mesh.rootToken}` } });
    expect(answer.status).toBe(200);
  });

  test("a non-anonymous token can always read its own partition, and nothing else without operator:read", async () => {
    await call("PUT", "/partition", { body: { Name: "team-a" } });
    const member = mesh.createToken({ partition: "team-a" });
    expect((await call("GET", "/partition/team-a", { token: member })).status).toBe(200);
    expect((await call("GET", "/partition/default", { token: member })).status).toBe(403);
    expect((await call("GET", "/partitions", { token: member })).status).toBe(403);
    expect((await call("GET", "/partition/default", { token: null })).status).toBe(403);
  });

  test("leaf certificates need service:write on the named service", async () => {
    const reader = mesh.createToken({ services: { web: "read" } });
    const answer = await call("GET", "/agent/connect/ca/leaf/web", { token: reader });
    expect(answer.status).toBe(403);
    expect(answer.text).toBe(
      `Permission denied: token with AccessorID '${mesh.accessorOf(reader)}' lacks permission 'service:write' on "web"`,
    );
    const writer = mesh.createToken({ services: { web: "write" } });
    expect((await call("GET", "/agent/connect/ca/leaf/web", { token: writer })).status).toBe(200);
    expect((await call("GET", "/agent/connect/ca/leaf/api", { token: writer })).status).toBe(403);
  });

  test("CA roots need no permission", async () => {
    expect((await call("GET", "/agent/connect/ca/roots", { token: null })).status).toBe(200);
    expect((await call("GET", "/agent/connect/ca/roots", { token: "unknown-secret" })).status).toBe(200);
  });
});

describe("certificate authority", () => {
  const roots = async () => {
    const answer = await call("GET", "/agent/connect/ca/roots");
    return { answer, body: answer.json<CaRootsResponse>() };
  };
  const leaf = async (service: string, query = "", headers?: Record<string, string>) => {
    const answer = await call("GET", `/agent/connect/ca/leaf/${service}${query}`, { headers });
    expect(answer.status).toBe(200);
    return { answer, body: answer.json<LeafCertificate>() };
  };
  const activeRoot = (body: CaRootsResponse) => body.Roots.find((r) => r.ID === body.ActiveRootID)!;

  test("roots list one active EC P-256 root and carry the index header", async () => {
    const { answer, body } = await roots();
    expect(body.TrustDomain).toBe(mesh.trustDomain);
    const root = activeRoot(body);
    expect(root).toMatchObject({ Active: true, PrivateKeyType: "ec", PrivateKeyBits: 256, IntermediateCerts: null });
    expect(typeof root.SerialNumber).toBe("number");
    expect(root.SigningKeyID).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2})+$/);
    expect(isRfc3339(root.NotBefore) && isRfc3339(root.NotAfter)).toBe(true);
    expect(indexOf(answer)).toBe(Math.max(...body.Roots.map((r) => r.ModifyIndex)));
    const certificate = new X509Certificate(root.RootCert);
    expect(certificate.ca).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
  });

  test("a leaf is signed by the active root, carries the SPIFFE URI SAN and its own private key", async () => {
    const { body: rootsBody } = await roots();
    const root = new X509Certificate(activeRoot(rootsBody).RootCert);
    const { answer, body } = await leaf("web");
    const certificate = new X509Certificate(body.CertPEM);
    const uri = `spiffe://${mesh.trustDomain}/ns/default/dc/dc1/svc/web`;
    expect(certificate.verify(root.publicKey)).toBe(true);
    expect(certificate.checkIssued(root)).toBe(true);
    expect(certificate.subjectAltName).toContain(`URI:${uri}`);
    expect(body).toMatchObject({ Service: "web", ServiceURI: uri, Namespace: "default" });
    expect(certificate.checkPrivateKey(createPrivateKey(body.PrivateKeyPEM))).toBe(true);
    expect(body.PrivateKeyPEM).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(body.SerialNumber).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2})*$/);
    expect(serialValue(body.SerialNumber)).toBe(BigInt(`0x${certificate.serialNumber}`));
    expect(new Date(body.ValidBefore).getTime()).toBe(new Date(certificate.validTo).getTime());
    expect(indexOf(answer)).toBe(body.ModifyIndex);
  });

  test("serials increase across every certificate the cluster issues", async () => {
    const rootSerial = activeRoot((await roots()).body).SerialNumber;
    const first = serialValue((await leaf("serial-a")).body.SerialNumber);
    const second = serialValue((await leaf("serial-b")).body.SerialNumber);
    expect(first).toBeGreaterThan(BigInt(rootSerial));
    expect(second).toBeGreaterThan(first);
  });

  test("a leaf is cached per namespace and service", async () => {
    const first = (await leaf("cached")).body;
    const second = (await leaf("cached")).body;
    expect(second.SerialNumber).toBe(first.SerialNumber);
    expect(second.CertPEM).toBe(first.CertPEM);
    expect(second.ModifyIndex).toBe(first.ModifyIndex);
    const elsewhere = (await leaf("cached", "?ns=team")).body;
    expect(elsewhere.SerialNumber).not.toBe(first.SerialNumber);
  });

  test("the namespace comes from ns, then the namespace header, then the token, then default", async () => {
    expect((await leaf("nsd", "?ns=query-ns", { "X-Mesh-Namespace": "header-ns" })).body.Namespace).toBe("query-ns");
    const fromHeader = (await leaf("nsd", "", { "X-Mesh-Namespace": "header-ns" })).body;
    expect(fromHeader.Namespace).toBe("header-ns");
    expect(fromHeader.ServiceURI).toBe(`spiffe://${mesh.trustDomain}/ns/header-ns/dc/dc1/svc/nsd`);
    const token = mesh.createToken({ services: { nsd: "write" }, namespace: "token-ns" });
    const fromToken = await call("GET", "/agent/connect/ca/leaf/nsd", { token });
    expect(fromToken.json<LeafCertificate>().Namespace).toBe("token-ns");
    expect((await leaf("nsd")).body.Namespace).toBe("default");
  });

  test("rotation adds a new active root, keeps the old one inactive and replaces leaves", async () => {
    const before = (await roots()).body;
    const oldLeaf = (await leaf("rotating")).body;
    await mesh.rotateRoot();
    const { answer, body: after } = await roots();
    expect(after.ActiveRootID).not.toBe(before.ActiveRootID);
    expect(after.Roots).toHaveLength(before.Roots.length + 1);
    expect(after.Roots.filter((r) => r.Active)).toHaveLength(1);
    expect(after.Roots.find((r) => r.ID === before.ActiveRootID)?.Active).toBe(false);
    expect(indexOf(answer)).toBeGreaterThan(activeRoot(before).ModifyIndex);

    const newLeaf = (await leaf("rotating")).body;
    expect(newLeaf.SerialNumber).not.toBe(oldLeaf.SerialNumber);
    expect(serialValue(newLeaf.SerialNumber)).toBeGreaterThan(BigInt(activeRoot(after).SerialNumber));
    const certificate = new X509Certificate(newLeaf.CertPEM);
    expect(certificate.verify(new X509Certificate(activeRoot(after).RootCert).publicKey)).toBe(true);
    expect(certificate.verify(new X509Certificate(activeRoot(before).RootCert).publicKey)).toBe(false);
  });
});

describe("blocking queries", () => {
  test("a blocking query on the roots returns after a rotation with a higher index", async () => {
    const current = indexOf(await call("GET", "/agent/connect/ca/roots"));
    const pending = call("GET", `/agent/connect/ca/roots?index=${current}&wait=5m`);
    await until(async () => mesh.blockingQueriesWaiting(), (n) => n === 1);
    await mesh.rotateRoot();
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(indexOf(answer)).toBeGreaterThan(current);
    const body = answer.json<CaRootsResponse>();
    expect(body.Roots.find((r) => r.ID === body.ActiveRootID)?.CreateIndex).toBe(indexOf(answer));
  });

  test("a blocking query answers the current data when the wait expires", async () => {
    const current = indexOf(await call("GET", "/agent/connect/ca/roots"));
    const answer = await call("GET", `/agent/connect/ca/roots?index=${current}&wait=20ms`);
    expect(answer.status).toBe(200);
    expect(indexOf(answer)).toBe(current);
    const leafAnswer = await call("GET", "/agent/connect/ca/leaf/patient");
    const leafIndex = indexOf(leafAnswer);
    const waited = await call("GET", `/agent/connect/ca/leaf/patient?index=${leafIndex}&wait=20ms`);
    expect(indexOf(waited)).toBe(leafIndex);
    expect(waited.json<LeafCertificate>().SerialNumber).toBe(leafAnswer.json<LeafCertificate>().SerialNumber);
  });

  test("an older index answers at once", async () => {
    const answer = await call("GET", "/agent/connect/ca/roots?index=1&wait=10m");
    expect(answer.status).toBe(200);
    expect(indexOf(answer)).toBeGreaterThan(1);
  });

  test("a blocking query on a leaf returns a new certificate after a rotation", async () => {
    const first = await call("GET", "/agent/connect/ca/leaf/watched");
    const pending = call("GET", `/agent/connect/ca/leaf/watched?index=${indexOf(first)}&wait=5m`);
    await until(async () => mesh.blockingQueriesWaiting(), (n) => n === 1);
    await mesh.rotateRoot();
    const answer = await pending;
    expect(indexOf(answer)).toBeGreaterThan(indexOf(first));
    expect(answer.json<LeafCertificate>().SerialNumber).not.toBe(first.json<LeafCertificate>().SerialNumber);
  });

  test("a blocking query on a leaf returns a new certificate when the cached one nears expiry", async () => {
    const shortLived = await startMeshEmulator({ leafTtlMs: 300 });
    try {
      const url = `${shortLived.url}/v1/agent/connect/ca/leaf/brief`;
      const headers = { "X-Mesh-Token": shortLived.rootToken };
      const first = await fetch(url, { headers });
      const firstIndex = Number(first.headers.get(shortLived.blockingIndexHeader));
      const firstLeaf = (await first.json()) as LeafCertificate;
      const renewed = await fetch(`${url}?index=${firstIndex}&wait=10m`, { headers });
      expect(Number(renewed.headers.get(shortLived.blockingIndexHeader))).toBeGreaterThan(firstIndex);
      expect(((await renewed.json()) as LeafCertificate).SerialNumber).not.toBe(firstLeaf.SerialNumber);
    } finally {
      await shortLived.close();
    }
  });

  test("closing the emulator releases pending blocking queries", async () => {
    const closing = await startMeshEmulator();
    const rootsAnswer = await fetch(`${closing.url}/v1/agent/connect/ca/roots`);
    const index = Number(rootsAnswer.headers.get(closing.blockingIndexHeader));
    const pending = fetch(`${closing.url}/v1/agent/connect/ca/roots?index=${index}&wait=10m`);
    await until(async () => closing.blockingQueriesWaiting(), (n) => n === 1);
    await closing.close();
    expect((await pending).status).toBe(200);
  });

  test("invalid index or wait is 400", async () => {
    expect((await call("GET", "/agent/connect/ca/roots?index=abc")).status).toBe(400);
    expect((await call("GET", "/agent/connect/ca/roots?index=1&wait=soon")).status).toBe(400);
  });
});

describe("authorize", () => {
  let dbWriter: string;
  const clientUri = (service: string, namespace = "default") =>
    `spiffe://${mesh.trustDomain}/ns/${namespace}/dc/dc1/svc/${service}`;
  const authorize = (source: string, extra: Record<string, unknown> = {}, token?: string) =>
    call("POST", "/agent/connect/authorize", {
      token: token ?? dbWriter,
      body: { Target: "db", ClientCertURI: clientUri(source), ClientCertSerial: "01:02", ...extra },
    });

  beforeAll(() => {
    dbWriter = mesh.createToken({ services: { db: "write" } });
  });

  test("an allow intention authorizes", async () => {
    mesh.addIntention({ source: "web", destination: "db", action: "allow" });
    const answer = await authorize("web");
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ Authorized: true, Reason: "Matched L4 intention: web => db (allow)" });
  });

  test("a deny intention refuses, and an exact source beats the wildcard", async () => {
    mesh.addIntention({ source: "*", destination: "db", action: "allow" });
    mesh.addIntention({ source: "web", destination: "db", action: "deny" });
    expect((await authorize("web")).json()).toEqual({ Authorized: false, Reason: "Matched L4 intention: web => db (deny)" });
    expect((await authorize("api")).json()).toEqual({ Authorized: true, Reason: "Matched L4 intention: * => db (allow)" });
  });

  test("an intention with Permissions counts as deny", async () => {
    mesh.addIntention({ source: "web", destination: "db", action: "allow", permissions: [{ Action: "allow", HTTP: { PathPrefix: "/" } }] });
    const decision = (await authorize("web")).json<{ Authorized: boolean; Reason: string }>();
    expect(decision.Authorized).toBe(false);
    expect(decision.Reason).toMatch(/^Matched L7 intention: web => db/);
  });

  test("without a match the default decides", async () => {
    expect((await authorize("web")).json()).toEqual({ Authorized: false, Reason: "Default behavior configured by ACLs" });
    mesh.setDefaultAllow(true);
    expect((await authorize("web")).json()).toEqual({ Authorized: true, Reason: "Default behavior configured by ACLs" });
  });

  test("intentions apply within their namespace", async () => {
    mesh.addIntention({ source: "web", destination: "db", action: "allow", namespace: "team" });
    expect((await authorize("web")).json<{ Authorized: boolean }>().Authorized).toBe(false);
    const inTeam = await call("POST", "/agent/connect/authorize?ns=team", {
      token: dbWriter,
      body: { Target: "db", ClientCertURI: clientUri("web", "team"), ClientCertSerial: "01" },
    });
    expect(inTeam.json<{ Authorized: boolean }>().Authorized).toBe(true);
  });

  test.each([["Target"], ["ClientCertURI"], ["ClientCertSerial"]])("a missing %s is 400 text", async (field) => {
    const answer = await authorize("web", { [field]: undefined });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain(field);
  });

  test("a client URI that is not a SPIFFE service identity is 400", async () => {
    expect((await authorize("web", { ClientCertURI: "https://example.invalid/x" })).status).toBe(400);
    expect((await authorize("web", { ClientCertURI: `spiffe://${mesh.trustDomain}/agent/client/dc/dc1/id/x` })).status).toBe(400);
  });

  test("authorize needs service:write on the target", async () => {
    const webWriter = mesh.createToken({ services: { web: "write" } });
    const answer = await authorize("web", {}, webWriter);
    expect(answer.status).toBe(403);
    expect(answer.text).toMatch(/lacks permission 'service:write' on "db"$/);
  });
});

describe("fault injection", () => {
  test("an injected status is answered with a text body and logged", async () => {
    mesh.faults.inject({ times: 1, match: /^GET \/v1\/partitions$/, status: 503 });
    const answer = await call("GET", "/partitions");
    expect(answer.status).toBe(503);
    expect(answer.headers.get("content-type")).toMatch(/text\/plain/);
    expect((await call("GET", "/partitions")).status).toBe(200);
    expect(mesh.log.entries.some((e) => e.fault === "status" && e.status === 503)).toBe(true);
  });
});
