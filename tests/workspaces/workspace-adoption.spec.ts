/** Adoption of existing workspaces (by ID and by `<organization>/<name>`), `get`, and the create whose answer was lost. */
import { workspaces } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { clientFor, startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";

describe("workspace adoption and references", () => {
  let stack: WorkspacesStack;
  beforeAll(async () => {
    stack = await startWorkspacesStack();
  });
  afterAll(() => stack.close());
  afterEach(async () => {
    stack.emu.faults.clear();
    await stack.engine.destroy();
  });

  /** A workspace made by another tool. */
  const existing = async (name: string, attributes: Record<string, unknown> = {}, organization = stack.emu.organization) =>
    (await clientFor(stack.config).write("POST", `/organizations/${organization}/workspaces`, "workspaces", { name, ...attributes })).id;

  test("adopt by <organization>/<name> converges the workspace to the declared settings, then manages it", async () => {
    const id = await existing("legacy", { description: "made by hand", "auto-apply": true });
    const program = () => {
      const ws = new workspaces.Workspace("legacy", { name: "legacy", organization: "acme", description: "managed", adopt: true });
      return { id: ws.id };
    };
    stack.emu.log.clear();
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ create: 1 });
    expect(stack.emu.log.count).toBe(0);

    const result = await stack.engine.up(program);
    expect(result.outputs.id).toBe(id);
    expect(stack.emu.log.lines()).toEqual(["GET /api/v2/organizations/acme/workspaces/legacy", `PATCH /api/v2/workspaces/${id}`]);
    expect(stack.emu.getWorkspace(id)?.attributes).toMatchObject({ description: "managed", "auto-apply": false });
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });

    await stack.engine.destroy();
    expect(stack.emu.getWorkspace(id)).toBeUndefined();
  });

  test("adopt by name finds the workspace in the configured organization", async () => {
    const id = await existing("by-name");
    const result = await stack.engine.up(() => {
      const ws = new workspaces.Workspace("by-name", { name: "by-name", adopt: true });
      return { id: ws.id };
    });
    expect(result.outputs.id).toBe(id);
  });

  test("adopt by ID reads the workspace by its ID; one already as declared is adopted without a write", async () => {
    const id = await existing("by-id", { "working-directory": "infra" });
    stack.emu.log.clear();
    const program = () => {
      const ws = new workspaces.Workspace("by-id", { name: "by-id", workingDirectory: "infra", adopt: true, adoptId: id });
      return { id: ws.id };
    };
    const result = await stack.engine.up(program);
    expect(result.outputs.id).toBe(id);
    expect(stack.emu.log.lines()).toEqual([`GET /api/v2/workspaces/${id}`]);
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });
    // The adoption ID is used at creation only: dropping it later is no change.
    expect(summarize((await stack.engine.preview(() => new workspaces.Workspace("by-id", { name: "by-id", workingDirectory: "infra", adopt: true }))).steps)).toEqual({ same: 1 });
  });

  test("adopting a workspace by a name the organization does not hold creates it; by an ID that names none, fails and creates nothing", async () => {
    const error = await stack.engine
      .up(() => {
        new workspaces.Workspace("ghost", { name: "ghost", adopt: true, adoptId: "ws-0000000000000000" });
      })
      .catch((e: EngineError) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).message).toMatch(/workspaces:Workspace "[^"]*ghost": adopt failed: the service holds no object of ID ws-0000000000000000/);
    expect(stack.emu.findWorkspace("acme", "ghost")).toBeUndefined();
    expect(stack.engine.state.size).toBe(0);

    await stack.engine.up(() => {
      new workspaces.Workspace("ghost", { name: "ghost", adopt: true });
    });
    expect(stack.emu.findWorkspace("acme", "ghost")).toBeDefined();
    await stack.engine.destroy();
  });

  test("get reads a workspace by ID or by <organization>/<name> without managing it", async () => {
    const id = await existing("shared", { description: "shared by teams" }, "globex");
    const result = await stack.engine.up(() => {
      const byId = workspaces.Workspace.get("by-id", id);
      const byName = workspaces.Workspace.get("by-name", "globex/shared");
      return { description: byId.description, organization: byName.effectiveOrganization, sameCreation: byName.createdAt.apply((at) => byId.createdAt.apply((other) => at === other)) };
    });
    expect(result.outputs).toEqual({ description: "shared by teams", organization: "globex", sameCreation: true });
    await stack.engine.destroy();
    expect(stack.emu.getWorkspace(id)?.attributes.description).toBe("shared by teams");
  });

  test("a create whose answer was lost takes the workspace the first attempt made into state: no orphan, no duplicate", async () => {
    // The service creates the workspace, the connection drops before the answer; the retry finds the name taken.
    stack.emu.log.clear();
    stack.emu.faults.inject({ times: 1, dropAfterHandling: true, match: /^POST \/api\/v2\/organizations\/acme\/workspaces$/ });
    const program = () => {
      const ws = new workspaces.Workspace("lost", { name: "lost", description: "declared" });
      return { id: ws.id, description: ws.description };
    };
    const result = await stack.engine.up(program);
    const made = stack.emu.findWorkspace("acme", "lost")!;
    expect(stack.emu.log.entries.filter((e) => e.method === "POST").map((e) => (e.fault === "drop" ? "drop" : e.status))).toEqual(["drop", 422]);
    expect(result.outputs).toEqual({ id: made.id, description: "declared" });
    expect([...stack.engine.state.values()].map((r) => r.id)).toEqual([made.id]);
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });
    await stack.engine.destroy();
    expect(stack.emu.findWorkspace("acme", "lost")).toBeUndefined();
  });

  test("a name taken on a first attempt is someone else's workspace: the error names it and how to adopt it", async () => {
    const theirs = (await clientFor(stack.config).write("POST", "/organizations/acme/workspaces", "workspaces", { name: "theirs" })).id;
    stack.emu.log.clear();
    const program = (adopt: boolean) => () => {
      const ws = new workspaces.Workspace("theirs", { name: "theirs", adopt });
      return { id: ws.id };
    };
    const error = (await stack.engine.up(program(false)).catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(stack.emu.log.entries.filter((e) => e.method === "POST").map((e) => e.status)).toEqual([422]);
    expect(error.message).toContain(`the service already holds workspaces:Workspace "acme/theirs", ID ${theirs} (POST /api/v2/organizations/acme/workspaces answered 422`);
    expect(error.message).toContain("declare it with `adopt: true`");
    expect(error.message).toContain(`\`adopt: true, adoptId: "${theirs}"\` by its ID`);
    expect(stack.engine.state.size).toBe(0);

    // Following the advice works.
    const adopted = await stack.engine.up(program(true));
    expect(adopted.outputs.id).toBe(theirs);
  });
});
