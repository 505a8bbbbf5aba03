/** Functions of the workspace service, called from a program through the harness (they read the program's stack configuration). */
import { workspaces } from "pulumi-keepstack";
import { clientFor, contextFor, startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";

describe("workspace service functions", () => {
  let stack: WorkspacesStack;
  beforeAll(async () => {
    // The VCS-linked sample workspace: its version has ingress attributes.
    stack = await startWorkspacesStack({ emulator: { vcsSample: true } });
    // More than one page of the largest size the service serves (100).
    const client = clientFor(stack.config);
    const names = Array.from({ length: 130 }, (_, i) => `listed-${String(i).padStart(3, "0")}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((name) => client.write("POST", "/organizations/globex/workspaces", "workspaces", { name })));
    }
  });
  afterAll(() => stack.close());

  test("listWorkspaces follows the pagination metadata across all pages, with percent-encoded brackets", async () => {
    stack.emu.log.clear();
    const result = await stack.engine.up(async () => {
      const listed = await workspaces.listWorkspaces({ organization: "globex" });
      const configured = await workspaces.listWorkspaces();
      return { names: listed.map((w) => w.name), first: listed[0], configured: configured.map((w) => w.name) };
    });
    const names = result.outputs.names as string[];
    expect(names).toHaveLength(130);
    expect(new Set(names).size).toBe(130);
    expect(result.outputs.first).toMatchObject({ id: expect.stringMatching(/^ws-/), organization: "globex", executionMode: "remote", vcsRepo: null });
    expect(result.outputs.configured).toEqual(["vcs-app"]);
    expect(stack.emu.log.lines()).toEqual([
      "GET /api/v2/organizations/globex/workspaces?page%5Bnumber%5D=1&page%5Bsize%5D=100",
      "GET /api/v2/organizations/globex/workspaces?page%5Bnumber%5D=2&page%5Bsize%5D=100",
      "GET /api/v2/organizations/acme/workspaces?page%5Bnumber%5D=1&page%5Bsize%5D=100",
    ]);
  });

  test("getConfigurationVersion reads with include=ingress-attributes; getIngressAttributes reads the commit", async () => {
    stack.emu.log.clear();
    const configurationVersionId = stack.emu.vcsConfigurationVersionId!;
    const result = await stack.engine.up(async () => {
      const version = await workspaces.getConfigurationVersion({ configurationVersionId });
      const ingress = await workspaces.getIngressAttributes({ configurationVersionId });
      const listed = await workspaces.listConfigurationVersions({ workspaceId: stack.emu.vcsWorkspaceId! });
      return { version, ingress, listed: listed.map((v) => v.id) };
    });
    expect(result.outputs.version).toMatchObject({
      id: configurationVersionId,
      status: "uploaded",
      source: "github",
      ingressAttributes: { branch: "add-network", commitSha: "1e1c1018d1bbc0b8517d072718e0d87c1a0eda95", isPullRequest: true, pullRequestNumber: 12 },
    });
    expect(result.outputs.ingress).toMatchObject({ id: expect.stringMatching(/^ia-/), identifier: "acme/infrastructure", createdById: expect.stringMatching(/^user-/) });
    expect(result.outputs.listed).toEqual([configurationVersionId]);
    expect(stack.emu.log.lines()[0]).toBe(`GET /api/v2/configuration-versions/${configurationVersionId}?include=ingress-attributes`);
  });

  test("functions fail clearly for what does not exist", async () => {
    const ctx = contextFor(stack.config);
    await expect(workspaces.getConfigurationVersion({ configurationVersionId: "cv-doesnotexist0000" }, ctx)).rejects.toThrow(
      // The request as it was sent (with its query) and the service's own message, then what to check.
      /GET \/api\/v2\/configuration-versions\/cv-doesnotexist0000\?include=ingress-attributes returned 404: not found\. no configuration version cv-doesnotexist0000 is visible to this token: check configurationVersionId/,
    );
    await expect(workspaces.getIngressAttributes({ configurationVersionId: "cv-doesnotexist0000" }, ctx)).rejects.toThrow(
      /GET \/api\/v2\/configuration-versions\/cv-doesnotexist0000 returned 404: not found\. no configuration version/,
    );
    await expect(workspaces.listWorkspaces({ organization: "initech" }, ctx)).rejects.toThrow(
      /workspaces: GET \/api\/v2\/organizations\/initech\/workspaces\?page%5Bnumber%5D=1&page%5Bsize%5D=100 returned 404/,
    );
    await expect(workspaces.listWorkspaces({}, contextFor({ ...stack.config, "workspaces:organization": "" }))).rejects.toThrow(
      /no organization: set `organization` on the resource, or workspaces:organization \(or WORKSPACES_ORGANIZATION\)/,
    );
  });
});
