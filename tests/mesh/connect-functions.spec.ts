/**
 * mesh.authorize, mesh.getCaRoots and mesh.getLeafCertificate, called from programs run by the engine
 * harness (they read the program's stack configuration), against the emulator's real CA.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { mesh } from "pulumi-keepstack";
import { Engine, EngineError } from "../../harness";
import { meshConfig, MeshStack, startMeshStack, until } from "./mesh-stack";

describe("mesh connect functions", () => {
  let stack: MeshStack;
  beforeAll(async () => {
    stack = await startMeshStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => {
    stack.mesh.log.clear();
    stack.mesh.clearIntentions();
    stack.mesh.setDefaultAllow(false);
  });

  const uriOf = (service: string, namespace = "default") => `spiffe://${stack.mesh.trustDomain}/ns/${namespace}/dc/dc1/svc/${service}`;
  const activeRootPem = (roots: mesh.GetCaRootsResult) => roots.roots.find((r) => r.id === roots.activeRootId)!.rootCertPem;

  test("authorize allows and denies as the intentions say", async () => {
    stack.mesh.addIntention({ source: "web", destination: "db", action: "allow" });
    stack.mesh.addIntention({ source: "*", destination: "db", action: "deny" });
    stack.mesh.addIntention({ source: "batch", destination: "db", action: "allow", permissions: [{ action: "allow" }] });
    const ask = (source: string) =>
      mesh.authorize({ target: "db", clientCertUri: uriOf(source), clientCertSerial: "0a:0b" });
    const result = await stack.engine.up(async () => ({ web: await ask("web"), api: await ask("api"), batch: await ask("batch") }));
    expect(result.outputs.web).toEqual({ authorized: true, reason: "Matched L4 intention: web => db (allow)" });
    expect(result.outputs.api).toEqual({ authorized: false, reason: "Matched L4 intention: * => db (deny)" });
    // An intention with permissions is layer 7: denied at layer 4.
    expect(result.outputs.batch).toMatchObject({ authorized: false });
    const sent = stack.mesh.log.entries[0];
    expect(sent).toMatchObject({ method: "POST", url: "/v1/agent/connect/authorize" });
    expect(sent.body).toEqual({ Target: "db", ClientCertURI: uriOf("web"), ClientCertSerial: "0a:0b" });
  });

  test("authorize without a matching intention follows the default, within the namespace asked for", async () => {
    stack.mesh.addIntention({ source: "web", destination: "db", action: "allow", namespace: "team" });
    const result = await stack.engine.up(async () => ({
      elsewhere: await mesh.authorize({ target: "db", clientCertUri: uriOf("web"), clientCertSerial: "01" }),
      team: await mesh.authorize({ target: "db", clientCertUri: uriOf("web", "team"), clientCertSerial: "01", namespace: "team" }),
    }));
    expect(result.outputs.elsewhere).toEqual({ authorized: false, reason: "Default behavior configured by ACLs" });
    expect(result.outputs.team).toMatchObject({ authorized: true });
    expect(stack.mesh.log.lines()).toContain("POST /v1/agent/connect/authorize?ns=team");
  });

  test("a leaf certificate verifies against getCaRoots, and its private key is a secret that matches it", async () => {
    const result = await stack.engine.up(async () => {
      const roots = await mesh.getCaRoots();
      const leaf = await mesh.getLeafCertificate({ service: "web" });
      return {
        roots,
        certificatePem: leaf.certificatePem,
        serialNumber: leaf.serialNumber,
        serviceUri: leaf.serviceUri,
        validAfter: leaf.validAfter,
        validBefore: leaf.validBefore,
        privateKeyPem: leaf.privateKeyPem,
        keyIsSecret: await pulumi.isSecret(leaf.privateKeyPem),
      };
    });
    const { roots, certificatePem, privateKeyPem } = result.outputs as {
      roots: mesh.GetCaRootsResult;
      certificatePem: string;
      privateKeyPem: string;
    };
    expect(result.outputs.keyIsSecret).toBe(true);
    expect(roots.roots.filter((r) => r.active)).toHaveLength(1);
    const root = new X509Certificate(activeRootPem(roots));
    const certificate = new X509Certificate(certificatePem);
    expect(certificate.verify(root.publicKey)).toBe(true);
    expect(certificate.checkIssued(root)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(privateKeyPem))).toBe(true);
    expect(certificate.subjectAltName).toContain(`URI:${uriOf("web")}`);
    expect(result.outputs.serviceUri).toBe(uriOf("web"));
    expect(BigInt(`0x${(result.outputs.serialNumber as string).replace(/:/g, "")}`)).toBe(BigInt(`0x${certificate.serialNumber}`));
    expect(new Date(result.outputs.validBefore as string).getTime()).toBe(new Date(certificate.validTo).getTime());
    expect(new Date(result.outputs.validAfter as string).getTime()).toBe(new Date(certificate.validFrom).getTime());
    // The index of each answer comes from X-Mesh-Index.
    const rootsAnswer = stack.mesh.log.entries.find((e) => e.path === "/v1/agent/connect/ca/roots")!;
    expect(rootsAnswer.status).toBe(200);
    expect(roots.index).toBe(Math.max(...roots.roots.map((r) => r.modifyIndex)));
  });

  test("a blocking leaf query returns a new certificate after a root rotation", async () => {
    const up = stack.engine.up(async () => {
      const first = await mesh.getLeafCertificate({ service: "rotating" });
      const next = await mesh.getLeafCertificate({ service: "rotating", index: first.index, wait: "5m" });
      const roots = await mesh.getCaRoots();
      return { first: first.certificatePem, firstIndex: first.index, next: next.certificatePem, nextIndex: next.index, roots };
    });
    await until(() => stack.mesh.blockingQueriesWaiting() === 1, "the blocking leaf query is parked");
    const before = await fetch(`${stack.mesh.url}/v1/agent/connect/ca/roots`).then((r) => r.json() as Promise<{ ActiveRootID: string }>);
    await stack.mesh.rotateRoot();
    const result = await up;
    const { first, next, roots } = result.outputs as { first: string; next: string; roots: mesh.GetCaRootsResult };
    expect(result.outputs.nextIndex).toBeGreaterThan(result.outputs.firstIndex as number);
    expect(next).not.toBe(first);
    expect(roots.activeRootId).not.toBe(before.ActiveRootID);
    const newRoot = new X509Certificate(activeRootPem(roots));
    expect(new X509Certificate(next).verify(newRoot.publicKey)).toBe(true);
    expect(new X509Certificate(first).verify(newRoot.publicKey)).toBe(false);
    expect(stack.mesh.log.lines()).toContain(`GET /v1/agent/connect/ca/leaf/rotating?index=${result.outputs.firstIndex}&wait=5m`);
  });

  test("a blocking roots query returns after a rotation with the new active root", async () => {
    const up = stack.engine.up(async () => {
      const current = await mesh.getCaRoots();
      const next = await mesh.getCaRoots({ index: current.index, wait: 300 });
      return { current, next };
    });
    await until(() => stack.mesh.blockingQueriesWaiting() === 1, "the blocking roots query is parked");
    await stack.mesh.rotateRoot();
    const { current, next } = (await up).outputs as { current: mesh.GetCaRootsResult; next: mesh.GetCaRootsResult };
    expect(next.index).toBeGreaterThan(current.index);
    expect(next.activeRootId).not.toBe(current.activeRootId);
    expect(next.roots.find((r) => r.id === current.activeRootId)?.active).toBe(false);
    expect(stack.mesh.log.lines()).toContain(`GET /v1/agent/connect/ca/roots?index=${current.index}&wait=300s`);
  });

  test("a blocking query that sees no change answers the current data when the wait ends", async () => {
    const result = await stack.engine.up(async () => {
      const first = await mesh.getLeafCertificate({ service: "steady" });
      const same = await mesh.getLeafCertificate({ service: "steady", index: first.index, wait: "20ms" });
      return { first: first.serialNumber, same: same.serialNumber, firstIndex: first.index, sameIndex: same.index };
    });
    expect(result.outputs.same).toBe(result.outputs.first);
    expect(result.outputs.sameIndex).toBe(result.outputs.firstIndex);
  });

  test("the namespace argument is sent as ns and wins over mesh:namespace", async () => {
    const engine = new Engine({
      project: "mesh-test",
      config: meshConfig(stack.mesh, { "mesh:namespace": "configured" }),
      secretConfig: ["mesh:token"],
    });
    try {
      const result = await engine.up(async () => ({
        configured: (await mesh.getLeafCertificate({ service: "ns-check" })).namespace,
        argument: (await mesh.getLeafCertificate({ service: "ns-check", namespace: "team" })).namespace,
      }));
      expect(result.outputs).toEqual({ configured: "configured", argument: "team" });
      const [first, second] = stack.mesh.log.entries;
      expect(first.headers["x-mesh-namespace"]).toBe("configured");
      expect(second.url).toBe("/v1/agent/connect/ca/leaf/ns-check?ns=team");
    } finally {
      await engine.close();
    }
  });

  /** The message a call fails with, caught inside the program (a program that throws would fail the run). */
  const messageOf = (call: () => Promise<unknown>) =>
    call().then(
      () => "no error",
      (e: Error) => `${e.name}: ${e.message}`,
    );

  test("a token without service:write gets a clear error that never shows the token", async () => {
    const reader = stack.mesh.createToken({ services: { web: "read" } });
    const engine = new Engine({
      project: "mesh-test",
      config: meshConfig(stack.mesh, { "mesh:token": reader }),
      secretConfig: ["mesh:token"],
    });
    try {
      const result = await engine.up(async () => ({
        leaf: await messageOf(() => mesh.getLeafCertificate({ service: "web" })),
        authorize: await messageOf(() => mesh.authorize({ target: "web", clientCertUri: uriOf("api"), clientCertSerial: "01" })),
      }));
      const { leaf, authorize } = result.outputs as { leaf: string; authorize: string };
      expect(leaf).toMatch(/^MeshFunctionError: mesh\.getLeafCertificate\(service "web"\) failed: mesh: GET \/v1\/agent\/connect\/ca\/leaf\/web returned 403/);
      expect(leaf).toMatch(/lacks permission 'service:write' on "web"/);
      expect(leaf).toMatch(/grant service:write on "web" to the token set in mesh:token \(or MESH_HTTP_TOKEN\)/);
      expect(leaf).not.toContain(reader);
      expect(authorize).toMatch(/mesh\.authorize\(target "web"\) failed: .* returned 403: .*grant service:write on "web"/);
      expect(authorize).not.toContain(reader);
      // A 403 is never retried.
      expect(stack.mesh.log.entries.map((e) => e.status)).toEqual([403, 403]);
    } finally {
      await engine.close();
    }
  });

  test("invalid arguments fail before any request, naming the argument", async () => {
    const result = await stack.engine.up(async () => ({
      tooLong: await messageOf(() => mesh.getCaRoots({ index: 1, wait: "11m" })),
      waitAlone: await messageOf(() => mesh.getCaRoots({ wait: "1m" })),
      badWait: await messageOf(() => mesh.getLeafCertificate({ service: "web", index: 3, wait: "soon" })),
      emptyService: await messageOf(() => mesh.getLeafCertificate({ service: "" })),
      missingSerial: await messageOf(() => mesh.authorize({ target: "db", clientCertUri: "spiffe://x" } as mesh.AuthorizeArgs)),
      unknownArgument: await messageOf(() => mesh.getCaRoots({ idx: 3 } as mesh.GetCaRootsArgs)),
    }));
    expect(result.outputs).toEqual({
      tooLong: 'MeshFunctionError: mesh.getCaRoots: wait "11m" is longer than the 10 minutes the service allows for a blocking query',
      waitAlone: "MeshFunctionError: mesh.getCaRoots: wait applies to a blocking query: give index too",
      badWait: 'MeshFunctionError: mesh.getLeafCertificate: wait must be a duration such as "30s" or "5m", or a number of seconds, got "soon"',
      emptyService: "MeshFunctionError: mesh.getLeafCertificate: invalid arguments: service: must not be empty (the service the certificate identifies)",
      missingSerial: "MeshFunctionError: mesh.authorize: invalid arguments: clientCertSerial: is required (string)",
      unknownArgument: "MeshFunctionError: mesh.getCaRoots: invalid arguments: idx: is not an argument of mesh.getCaRoots",
    });
    expect(stack.mesh.log.count).toBe(0);
  });
});
