/** workspaces.Workspace through the real provider host against the workspace service emulator. */
import { workspaces } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";

type Args = ConstructorParameters<typeof workspaces.Workspace>[1];

describe("workspaces.Workspace lifecycle", () => {
  let stack: WorkspacesStack;
  let firstId = "";
  beforeAll(async () => {
    stack = await startWorkspacesStack();
  });
  afterAll(() => stack.close());

  const program = (args: Partial<Args> = {}) => () => {
    const ws = new workspaces.Workspace("app", { name: "app", ...args });
    return { id: ws.id, organization: ws.effectiveOrganization, mode: ws.effectiveExecutionMode, createdAt: ws.createdAt };
  };
  const bodies = () =>
    stack.emu.log.entries
      .filter((e) => e.method === "POST" || e.method === "PATCH")
      .map((e) => (e.body as { data: { attributes: Record<string, unknown>; relationships?: unknown } }).data);

  test("preview of a new stack plans a create and sends no request", async () => {
    stack.emu.log.clear();
    const result = await stack.engine.preview(program());
    expect(summarize(result.steps)).toEqual({ create: 1 });
    expect(stack.emu.log.count).toBe(0);
  });

  test("up creates the workspace with the create defaults of the spec", async () => {
    stack.emu.log.clear();
    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ create: 1 });
    firstId = String(result.outputs.id);
    expect(firstId).toMatch(/^ws-[A-Za-z0-9]{16}$/);
    expect(result.outputs).toMatchObject({ organization: "acme", mode: "remote", createdAt: expect.any(String) });
    expect(stack.emu.log.lines()).toEqual(["POST /api/v2/organizations/acme/workspaces"]);
    const sent = stack.emu.log.entries[0];
    expect(sent.headers["content-type"]).toBe("application/vnd.api+json");
    expect(sent.headers.authorization).toBe("<redacted>");
    expect(bodies()[0]).toEqual({
      type: "workspaces",
      attributes: {
        name: "app",
        "allow-destroy-plan": true,
        "auto-apply": false,
        "auto-apply-run-trigger": false,
        "file-triggers-enabled": true,
        "global-remote-state": false,
        "queue-all-runs": false,
        // Where the package records the owner: the workspace shows it as "created via" this.
        "source-name": "Pulumi stack ws-test/dev, resource app",
        "speculative-enabled": true,
        "trigger-patterns": [],
        "trigger-prefixes": [],
      },
    });
    const state = stack.engine.state.get([...stack.engine.state.keys()][0])!;
    expect(state.outputs).toMatchObject({
      name: "app",
      effectiveIacVersion: expect.any(String),
      effectiveProjectId: stack.emu.defaultProjectId,
      locked: false,
      resourceCount: 0,
      permissions: expect.objectContaining({ canQueueRun: true, canUpdate: true }),
      actions: { isDestroyable: true },
      vcsRepoDetails: null,
    });
  });

  test("preview again: no changes, no request", async () => {
    stack.emu.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 1 });
    expect(stack.emu.log.count).toBe(0);
  });

  test("a change of settings is applied in place", async () => {
    const changed = program({ description: "the app", autoApply: true, triggerPrefixes: ["modules/"], workingDirectory: "infra" });
    const preview = await stack.engine.preview(changed);
    expect(preview.steps[0]).toMatchObject({ op: "update" });
    expect(preview.steps[0].diffs?.sort()).toEqual(["autoApply", "description", "triggerPrefixes", "workingDirectory"]);
    await stack.engine.up(changed);
    expect(stack.emu.getWorkspace(firstId)?.attributes).toMatchObject({
      description: "the app",
      "auto-apply": true,
      "trigger-prefixes": ["modules/"],
      "working-directory": "infra",
    });
    expect(summarize((await stack.engine.preview(changed)).steps)).toEqual({ same: 1 });
    // Leaving them out of the program puts back the defaults and clears the rest.
    await stack.engine.up(program());
    expect(stack.emu.getWorkspace(firstId)?.attributes).toMatchObject({
      description: null,
      "auto-apply": false,
      "trigger-prefixes": [],
      "working-directory": null,
    });
  });

  test("a VCS repository is linked, an empty branch is not a difference, and removing it sends vcs-repo: null", async () => {
    const linked = program({ vcsRepo: { identifier: "acme/app", oauthTokenId: stack.emu.oauthTokenId, branch: "" } });
    const preview = await stack.engine.preview(linked);
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: ["vcsRepo"] });
    await stack.engine.up(linked);
    expect(stack.emu.getWorkspace(firstId)?.attributes["vcs-repo"]).toMatchObject({
      identifier: "acme/app",
      "oauth-token-id": stack.emu.oauthTokenId,
      branch: "",
    });
    const state = [...stack.engine.state.values()][0];
    expect(state.outputs.vcsRepoDetails).toMatchObject({ identifier: "acme/app", serviceProvider: "github", webhookUrl: expect.any(String) });

    // The service reports the default branch by name: still no difference for an empty branch.
    const repo = stack.emu.getWorkspace(firstId)!.attributes["vcs-repo"]!;
    stack.emu.updateWorkspaceAttributes(firstId, { "vcs-repo": { ...repo, branch: "main" } });
    await stack.engine.refresh();
    expect(summarize((await stack.engine.preview(linked)).steps)).toEqual({ same: 1 });
    // A declared branch is compared with the reported one.
    const onRelease = program({ vcsRepo: { identifier: "acme/app", oauthTokenId: stack.emu.oauthTokenId, branch: "release" } });
    expect((await stack.engine.preview(onRelease)).steps[0]).toMatchObject({ op: "update", diffs: ["vcsRepo"] });

    stack.emu.log.clear();
    const removed = await stack.engine.up(program());
    expect(removed.steps[0]).toMatchObject({ op: "update", diffs: ["vcsRepo"] });
    expect(bodies()[0].attributes["vcs-repo"]).toBeNull();
    expect(stack.emu.getWorkspace(firstId)?.attributes["vcs-repo"]).toBeNull();
  });

  test("a rename and a project move are applied in place through PATCH", async () => {
    stack.emu.log.clear();
    const moved = () => {
      const ws = new workspaces.Workspace("app", { name: "app-renamed", projectId: stack.emu.otherProjectId });
      return { id: ws.id };
    };
    const result = await stack.engine.up(moved);
    expect(result.steps[0]).toMatchObject({ op: "update" });
    expect(result.outputs.id).toBe(firstId);
    expect(stack.emu.log.lines()).toEqual([`PATCH /api/v2/workspaces/${firstId}`]);
    expect(bodies()[0].relationships).toEqual({ project: { data: { type: "projects", id: stack.emu.otherProjectId } } });
    expect(stack.emu.getWorkspace(firstId)).toMatchObject({ projectId: stack.emu.otherProjectId, attributes: { name: "app-renamed" } });
    expect(summarize((await stack.engine.preview(moved)).steps)).toEqual({ same: 1 });
    await stack.engine.up(program());
    expect(stack.emu.getWorkspace(firstId)?.attributes.name).toBe("app");
  });

  test("drift is seen on refresh and the next up restores the declared settings", async () => {
    stack.emu.updateWorkspaceAttributes(firstId, { description: "changed by hand", "auto-apply": true, "trigger-patterns": ["*.tf"] });
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps[0]).toMatchObject({ op: "update" });
    expect(refreshed.steps[0].diffs).toEqual(expect.arrayContaining(["autoApply", "description", "triggerPatterns"]));
    const preview = await stack.engine.preview(program());
    expect(preview.steps[0]).toMatchObject({ op: "update" });
    // The description was not declared: the harness lists only declared keys, the update clears it.
    expect(preview.steps[0].diffs).toEqual(expect.arrayContaining(["autoApply", "triggerPatterns"]));
    await stack.engine.up(program());
    expect(stack.emu.getWorkspace(firstId)?.attributes).toMatchObject({ description: null, "auto-apply": false, "trigger-patterns": [] });
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 1 });
  });

  test("declaring the organization already in use is not a change", async () => {
    expect(summarize((await stack.engine.preview(program({ organization: "acme" }))).steps)).toEqual({ same: 1 });
  });

  test("changing the organization replaces the workspace", async () => {
    const preview = await stack.engine.preview(program({ organization: "globex" }));
    expect(preview.steps[0]).toMatchObject({ op: "replace", replaces: ["organization"] });
    const result = await stack.engine.up(program({ organization: "globex" }));
    expect(result.steps[0]).toMatchObject({ op: "replace", replaces: ["organization"] });
    expect(result.outputs.organization).toBe("globex");
    expect(result.outputs.id).not.toBe(firstId);
    expect(stack.emu.getWorkspace(firstId)).toBeUndefined();
    expect(stack.emu.findWorkspace("globex", "app")?.id).toBe(result.outputs.id);
  });

  test("a workspace deleted by hand leaves the state on refresh and is created again", async () => {
    const id = String([...stack.engine.state.values()][0].id);
    stack.emu.deleteWorkspace(id);
    const refreshed = await stack.engine.refresh();
    expect(summarize(refreshed.steps)).toEqual({ delete: 1 });
    expect(summarize((await stack.engine.preview(program({ organization: "globex" }))).steps)).toEqual({ create: 1 });
    await stack.engine.up(program({ organization: "globex" }));
    expect(stack.emu.findWorkspace("globex", "app")?.organization).toBe("globex");
  });

  test("destroy deletes the workspace", async () => {
    const id = String([...stack.engine.state.values()][0].id);
    stack.emu.log.clear();
    await stack.engine.destroy();
    expect(stack.emu.log.lines()).toEqual([`DELETE /api/v2/workspaces/${id}`]);
    expect(stack.emu.getWorkspace(id)).toBeUndefined();
    expect(stack.engine.state.size).toBe(0);
  });
});

describe("workspaces.Workspace settings", () => {
  let stack: WorkspacesStack;
  beforeAll(async () => {
    stack = await startWorkspacesStack();
  });
  afterAll(() => stack.close());
  afterEach(() => stack.engine.destroy());

  test("agent execution with a pool; switching to remote releases the pool", async () => {
    const agent = () => {
      const ws = new workspaces.Workspace("runner", { name: "runner", executionMode: "agent", agentPoolId: stack.emu.agentPoolId });
      return { id: ws.id, pool: ws.effectiveAgentPoolId, overwrites: ws.effectiveSettingOverwrites };
    };
    const result = await stack.engine.up(agent);
    expect(result.outputs).toMatchObject({ pool: stack.emu.agentPoolId, overwrites: { executionMode: true, agentPool: true } });
    expect(summarize((await stack.engine.preview(agent)).steps)).toEqual({ same: 1 });
    await stack.engine.up(() => {
      new workspaces.Workspace("runner", { name: "runner", executionMode: "remote" });
    });
    expect(stack.emu.getWorkspace(String(result.outputs.id))).toMatchObject({ agentPoolId: null, attributes: { "execution-mode": "remote" } });
  });

  test("a repository linked through the host application: created, then linked (the service takes it on update only)", async () => {
    stack.emu.log.clear();
    const linked = () => {
      new workspaces.Workspace("app-linked", {
        name: "app-linked",
        vcsRepo: { identifier: "acme/app", githubAppInstallationId: stack.emu.githubAppInstallationId, tagsRegex: "^v\\d+" },
      });
    };
    await stack.engine.up(linked);
    const [post, patch] = stack.emu.log.entries;
    expect(post.method).toBe("POST");
    expect((post.body as any).data.attributes["vcs-repo"]).toBeUndefined();
    expect(patch.method).toBe("PATCH");
    expect((patch.body as any).data.attributes["vcs-repo"]).toMatchObject({ "github-app-installation-id": stack.emu.githubAppInstallationId });
    const ws = stack.emu.findWorkspace("acme", "app-linked")!;
    expect(ws.attributes["vcs-repo"]).toMatchObject({ "github-app-installation-id": stack.emu.githubAppInstallationId, "tags-regex": "^v\\d+" });
    expect(summarize((await stack.engine.preview(linked)).steps)).toEqual({ same: 1 });
  });

  test("a refused repository link keeps the workspace as created-but-failed, with the advice other errors carry", async () => {
    stack.emu.faults.inject({ times: 1, status: 403, match: /^PATCH \/api\/v2\/workspaces\// });
    const linked = () => {
      new workspaces.Workspace("link-refused", {
        name: "link-refused",
        vcsRepo: { identifier: "acme/app", githubAppInstallationId: stack.emu.githubAppInstallationId },
      });
    };
    const error = (await stack.engine.up(linked).catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    const ws = stack.emu.findWorkspace("acme", "link-refused")!;
    expect(error.message).toContain(`workspace ${ws.id} was created, but linking its repository through the application installation failed: workspaces: PATCH /api/v2/workspaces/${ws.id} returned 403`);
    expect(error.message).toContain("the token was refused or lacks permission: check workspaces:token (or WORKSPACES_TOKEN) and what it may do.");
    const [kept] = [...stack.engine.state.values()];
    expect(kept.id).toBe(ws.id);
    expect(kept.initErrors?.[0]).toContain("the token was refused or lacks permission");
    // The next up repairs it: the link is made, no second workspace.
    await stack.engine.up(linked);
    expect(stack.emu.findWorkspace("acme", "link-refused")?.attributes["vcs-repo"]).toMatchObject({ "github-app-installation-id": stack.emu.githubAppInstallationId });
  });

  test("auto-destroy settings, tool version and the source shown by the service", async () => {
    const declared = () => {
      new workspaces.Workspace("scheduled", {
        name: "scheduled",
        autoDestroyAt: "2031-01-31T18:00:00Z",
        autoDestroyActivityDuration: "14d",
        iacVersion: "~> 1.9",
        sourceName: "platform-tool",
        sourceUrl: "https://example.com/platform",
      });
    };
    await stack.engine.up(declared);
    expect(stack.emu.findWorkspace("acme", "scheduled")?.attributes).toMatchObject({
      "auto-destroy-at": "2031-01-31T18:00:00.000Z",
      "auto-destroy-activity-duration": "14d",
      "iac-version": "~> 1.9",
      "source-name": "platform-tool",
    });
    // The service answers the instant in its own format: not a difference.
    await stack.engine.refresh();
    expect(summarize((await stack.engine.preview(declared)).steps)).toEqual({ same: 1 });
    // Source settings are taken on creation only: changing them replaces the workspace.
    const renamedSource = () => {
      new workspaces.Workspace("scheduled", { name: "scheduled", sourceName: "other-tool", sourceUrl: "https://example.com/platform" });
    };
    expect((await stack.engine.preview(renamedSource)).steps[0]).toMatchObject({ op: "replace", replaces: ["sourceName"] });
    // Same organization and name: the old workspace is deleted before the new one is created.
    const id = stack.emu.findWorkspace("acme", "scheduled")!.id;
    await stack.engine.up(renamedSource);
    expect(stack.emu.getWorkspace(id)).toBeUndefined();
    expect(stack.emu.findWorkspace("acme", "scheduled")?.attributes["source-name"]).toBe("other-tool");
  });
});
