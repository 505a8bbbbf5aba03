/** The mesh-service client against the emulator: configuration, headers, namespaces, consistency, blocking queries, retries, TLS. */
import { MeshEmulator, startMeshEmulator } from "../../emulator/mesh";
import { resolveServiceConfig } from "../../provider/config";
import { ApiError } from "../../provider/errors";
import { MESH_INDEX_HEADER, meshRefusalOf, parseWait } from "../../provider/mesh-client";
import { MeshClient } from "../support/mesh-client";
import { startTlsServer, TlsServer } from "../support/tls";
import { WaitTimeoutError } from "../../provider/wait";
import { until } from "./mesh-stack";

describe("MeshClient", () => {
  let emulator: MeshEmulator;
  const clientWith = (extra: Record<string, string> = {}, env: NodeJS.ProcessEnv = {}) => {
    const config: Record<string, string> = {
      "mesh:address": emulator.url,
      "mesh:token": emulator.rootToken,
      "mesh:retryBaseDelayMs": "5",
      ...extra,
    };
    return new MeshClient(resolveServiceConfig("mesh", (k) => config[k], env));
  };

  beforeAll(async () => {
    emulator = await startMeshEmulator({ deletionDelayMs: 10 });
  });
  afterAll(() => emulator.close());
  beforeEach(() => {
    emulator.log.clear();
    emulator.faults.clear();
  });

  test("the token goes in X-Mesh-Token; settings come from the MESH_* environment when the stack config has none", async () => {
    const env = {
      MESH_HTTP_ADDR: emulator.url,
      MESH_HTTP_TOKEN: emulator.rootToken,
      MESH_NAMESPACE: "env-ns",
      MESH_PARTITION: "env-ap",
    };
    const config = resolveServiceConfig("mesh", () => undefined, env);
    expect(config).toMatchObject({ address: emulator.url, token: emulator.rootToken, namespace: "env-ns", partition: "env-ap" });
    const leaf = await new MeshClient(config).leafCertificate("web");
    expect(leaf.body.Namespace).toBe("env-ns");
    const sent = emulator.log.entries[0];
    expect(sent.headers["x-mesh-token"]).toBe("<redacted>");
    expect(sent.headers["x-mesh-namespace"]).toBe("env-ns");
    expect(sent.url).toBe("/v1/agent/connect/ca/leaf/web?partition=env-ap");
    // Stack configuration wins over the environment.
    expect(resolveServiceConfig("mesh", (k) => (k === "mesh:namespace" ? "cfg-ns" : undefined), env).namespace).toBe("cfg-ns");
  });

  test("namespace precedence: the per-call ns, then mesh:namespace as X-Mesh-Namespace, then the token's namespace", async () => {
    const client = clientWith({ "mesh:namespace": "configured" });
    expect((await client.leafCertificate("ns-order", { namespace: "per-call" })).body.Namespace).toBe("per-call");
    expect((await client.leafCertificate("ns-order")).body.Namespace).toBe("configured");
    const tokenInNamespace = emulator.createToken({ services: { "ns-order": "write" }, namespace: "token-ns" });
    expect((await clientWith({ "mesh:token": tokenInNamespace }).leafCertificate("ns-order")).body.Namespace).toBe("token-ns");
    expect((await clientWith().leafCertificate("ns-order")).body.Namespace).toBe("default");
    expect(emulator.log.lines()[0]).toBe("GET /v1/agent/connect/ca/leaf/ns-order?ns=per-call");
  });

  test("mesh:partition is sent to the agent endpoints as the partition parameter, never to the partition endpoints", async () => {
    const client = clientWith({ "mesh:partition": "ap-one" });
    await client.caRoots();
    await client.leafCertificate("web", { partition: "ap-two" });
    await client.readPartition("default");
    expect(emulator.log.lines()).toEqual([
      "GET /v1/agent/connect/ca/roots?partition=ap-one",
      "GET /v1/agent/connect/ca/leaf/web?partition=ap-two",
      "GET /v1/partition/default",
    ]);
  });

  test("the consistent mode is sent only when asked for", async () => {
    const client = clientWith();
    expect((await client.readPartition("default", { consistent: true }))?.Name).toBe("default");
    expect((await client.listPartitions({ consistent: true })).map((p) => p.Name)).toContain("default");
    await client.listPartitions();
    await client.caRoots({ consistent: true });
    expect(emulator.log.lines()).toEqual([
      "GET /v1/partition/default?consistent",
      "GET /v1/partitions?consistent",
      "GET /v1/partitions",
      "GET /v1/agent/connect/ca/roots?consistent",
    ]);
    expect(await client.readPartition("absent")).toBeUndefined();
  });

  test("a blocking query sends index and wait, and answers the X-Mesh-Index of the response", async () => {
    const client = clientWith();
    const first = await client.caRoots();
    expect(first.index).toBe(Math.max(...first.body.Roots.map((r) => r.ModifyIndex)));
    const pending = client.caRoots({ blocking: { index: first.index!, wait: "5m" } });
    await until(() => emulator.blockingQueriesWaiting() === 1, "the blocking query is parked");
    await emulator.rotateRoot();
    const next = await pending;
    expect(next.index).toBeGreaterThan(first.index!);
    expect(next.body.ActiveRootID).not.toBe(first.body.ActiveRootID);
    expect(emulator.log.lines()[1]).toBe(`GET /v1/agent/connect/ca/roots?index=${first.index}&wait=5m`);
    expect(MESH_INDEX_HEADER).toBe(emulator.blockingIndexHeader);
  });

  test("the attempt timeout grows by the wait, so a blocking query longer than timeoutSeconds is not cut short", async () => {
    const first = await clientWith().leafCertificate("patient");
    // The wait (2 s) is longer than the timeout (1 s): the attempt may last both, with a second to spare.
    const client = clientWith({ "mesh:timeoutSeconds": "1", "mesh:maxRetries": "0" });
    const waited = await client.leafCertificate("patient", { blocking: { index: first.index!, wait: "2s" } });
    expect(waited.index).toBe(first.index);
    expect(waited.body.SerialNumber).toBe(first.body.SerialNumber);
  });

  test("waits: durations and seconds; longer than 10 minutes is refused before any request", async () => {
    expect(parseWait("30s")).toBe(30_000);
    expect(parseWait("1m30s")).toBe(90_000);
    expect(parseWait(45)).toBe(45_000);
    expect(parseWait("10m")).toBe(600_000);
    expect(() => parseWait("soon")).toThrow(/wait must be a duration/);
    expect(() => parseWait("")).toThrow(/wait must be a duration/);
    await expect(clientWith().caRoots({ blocking: { index: 1, wait: "10m1s" } })).rejects.toThrow(/longer than the 10 minutes/);
    await expect(clientWith().caRoots({ blocking: { index: 1, wait: 601 } })).rejects.toThrow(/longer than the 10 minutes/);
    expect(emulator.log.count).toBe(0);
    // A bare number means seconds on the wire too.
    const roots = await clientWith().caRoots();
    await clientWith().caRoots({ blocking: { index: roots.index!, wait: 0.01 } });
    expect(emulator.log.lines()[1]).toBe(`GET /v1/agent/connect/ca/roots?index=${roots.index}&wait=0.01s`);
  });

  test("an ordinary 500 is retried, and other transient failures too", async () => {
    emulator.faults.inject({ times: 2, status: 500 });
    emulator.faults.inject({ times: 1, drop: true });
    await clientWith().listPartitions();
    expect(emulator.log.entries.map((e) => (e.fault === "drop" ? "drop" : e.status))).toEqual([500, 500, "drop", 200]);
  });

  test("refusals the service decides (500 with a message) are recognised and never retried", async () => {
    const client = clientWith();
    await client.createPartition("once", "");
    const exists = await client.createPartition("once", "").catch((e: unknown) => e);
    expect(meshRefusalOf(exists)).toBe("already-exists");
    const defaultDelete = await client.deletePartition("default").catch((e: unknown) => e);
    expect(meshRefusalOf(defaultDelete)).toBe("default-partition");
    expect((defaultDelete as ApiError).message).toBe("mesh: DELETE /v1/partition/default returned 500: Cannot delete the default partition");
    emulator.markPartitionDeleted("once");
    const beingDeleted = await client.createPartition("once", "").catch((e: unknown) => e);
    expect(meshRefusalOf(beingDeleted)).toBe("being-deleted");
    expect(emulator.log.entries.map((e) => e.status)).toEqual([200, 500, 500, 500]);
    expect(meshRefusalOf(new Error("Partition already exists"))).toBeUndefined();
    emulator.deletePartitionNow("once");
  });

  test("an update sends Name equal to the path name; delete then waits for the background removal", async () => {
    const client = clientWith();
    await client.createPartition("short", "a");
    const updated = await client.updatePartition("short", "b");
    expect(updated.Description).toBe("b");
    expect(emulator.log.entries[1].body).toEqual({ Name: "short", Description: "b" });
    await client.deletePartition("short");
    await client.waitForPartitionRemoval("short", 60_000);
    expect(emulator.getPartition("short")).toBeUndefined();
    await client.createPartition("stuck", "");
    emulator.markPartitionDeleted("stuck");
    const stuck = (await client.waitForPartitionRemoval("stuck", 30).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(stuck).toBeInstanceOf(WaitTimeoutError);
    expect(stuck.message).toBe(`timed out after 0.03 s waiting for partition "stuck" to be removed; last seen: marked for deletion at ${emulator.getPartition("stuck")!.DeletedAt}`);
    emulator.deletePartitionNow("stuck");
  });

  test("a 403 is not retried and never carries the token", async () => {
    const reader = emulator.createToken({ operator: "read" });
    const error = (await clientWith({ "mesh:token": reader }).createPartition("nope", "").catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/PUT \/v1\/partition returned 403: Permission denied: .* lacks permission 'operator:write'/);
    expect(JSON.stringify(error)).not.toContain(reader);
    expect(error.message).not.toContain(reader);
    expect(emulator.log.count).toBe(1);
  });
});

describe("MeshClient TLS", () => {
  let server: TlsServer;
  beforeAll(async () => {
    server = await startTlsServer((_req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.setHeader(MESH_INDEX_HEADER, "7");
      res.end(JSON.stringify({ ActiveRootID: "tls-ok", Roots: [] }));
    });
  });
  afterAll(() => server.close());

  const client = (extra: Record<string, string>) => {
    const config: Record<string, string> = { "mesh:address": server.address, "mesh:maxRetries": "0", ...extra };
    return new MeshClient(resolveServiceConfig("mesh", (k) => config[k], {}));
  };

  test("an untrusted certificate is refused unless its CA is given (mesh:caCert or MESH_CACERT)", async () => {
    const error = (await client({}).caRoots().catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(0);
    expect((await client({ "mesh:caCert": server.caPem }).caRoots()).body.ActiveRootID).toBe("tls-ok");
    const fromEnv = new MeshClient(resolveServiceConfig("mesh", () => undefined, { MESH_HTTP_ADDR: server.address, MESH_CACERT: server.caPem }));
    expect((await fromEnv.caRoots()).index).toBe(7);
  });

  test("verification is skipped only when asked", async () => {
    expect((await client({ "mesh:skipTlsVerify": "true" }).caRoots()).body.ActiveRootID).toBe("tls-ok");
  });
});
