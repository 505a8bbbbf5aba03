/** examples/mesh, run through the engine harness against the emulator: up, a no-op preview, destroy. */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { summarize } from "../../harness";
import { MeshStack, startMeshStack } from "./mesh-stack";
import program = require("../../examples/mesh");

describe("examples/mesh", () => {
  let stack: MeshStack;
  beforeAll(async () => {
    stack = await startMeshStack();
    stack.mesh.addIntention({ source: "web", destination: "db", action: "allow" });
  });
  afterAll(() => stack.close());

  test("up creates the partition and reads a certificate the roots trust, and an allowed connection", async () => {
    const result = await stack.engine.up(program);
    expect(summarize(result.steps)).toEqual({ create: 1 });
    // The description as declared, and the owner the package records on its last line.
    expect(stack.mesh.getPartition("team-west")?.Description).toBe("Services of the west team\n\n(managed by Pulumi stack mesh-test/dev, resource team-west)");
    const outputs = result.outputs as Record<string, unknown> & { trustedRoots: string[]; certificate: string; privateKey: string };
    expect(outputs).toMatchObject({ partition: "team-west", mayConnect: true, reason: "Matched L4 intention: web => db (allow)" });
    const certificate = new X509Certificate(outputs.certificate);
    expect(outputs.trustedRoots.some((pem) => certificate.verify(new X509Certificate(pem).publicKey))).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(outputs.privateKey))).toBe(true);
  });

  test("a second preview changes nothing and sends no partition request", async () => {
    stack.mesh.log.clear();
    const result = await stack.engine.preview(program);
    expect(summarize(result.steps)).toEqual({ same: 1 });
    // Only the functions' reads reached the service.
    expect(stack.mesh.log.lines().filter((l) => l.includes("/partition"))).toEqual([]);
  });

  test("destroy deletes the partition and waits for its removal", async () => {
    await stack.engine.destroy();
    expect(stack.mesh.getPartition("team-west")).toBeUndefined();
  });
});
