/**
 * workspaces.ConfigurationVersion when answers are lost or refused: one create never makes two
 * versions, and every version the provider makes ends in the state (created-but-failed when its
 * upload or its status cannot be completed), so nothing stays pending unaccounted.
 */
import { workspaces } from "pulumi-keepstack";
import { Engine, EngineError, summarize } from "../../harness";
import { clientFor, makeTree, removeTree, startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";
import { definedOutputs } from "../support/outputs";

describe("workspaces.ConfigurationVersion under faults", () => {
  let stack: WorkspacesStack;
  let tree: string;
  let workspaceId: string;
  let round = 0;

  beforeAll(async () => {
    stack = await startWorkspacesStack();
    tree = await makeTree({ "main.tf": "# first\n" });
    workspaceId = (await clientFor(stack.config).write("POST", "/organizations/acme/workspaces", "workspaces", { name: "faults" })).id;
  });
  afterAll(async () => {
    await stack.close();
    await removeTree(tree);
  });
  beforeEach(async () => {
    // Each test starts from an empty state (what one test leaves is no other's subject).
    await stack.engine.destroy();
    stack.emu.faults.clear();
    stack.emu.log.clear();
    // New files each time, so each test plans a new version.
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${tree}/main.tf`, `# round ${++round}\n`);
  });

  const program = () => () => {
    const cv = new workspaces.ConfigurationVersion("config", { workspaceId, directory: tree });
    return definedOutputs({ id: cv.id, status: cv.status });
  };
  const versionIds = async () => (await clientFor(stack.config).list(`/workspaces/${workspaceId}/configuration-versions`)).map((v) => v.id);
  const inState = () => [...stack.engine.state.values()].filter((r) => r.type.endsWith("ConfigurationVersion"));
  const failedUp = async () => {
    const error = (await stack.engine.up(program()).catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    return error;
  };

  test("a 412 on the upload is retried", async () => {
    stack.emu.faults.inject({ times: 1, status: 412, match: /^PUT \/_archivist\// });
    const result = await stack.engine.up(program());
    expect(result.outputs.status).toBe("uploaded");
    expect(stack.emu.log.entries.filter((e) => e.method === "PUT").map((e) => e.status)).toEqual([412, 200]);
  });

  test("a create whose answer was lost: the version it made is left pending, said so, and a new one is made and uploaded in the same run", async () => {
    const before = await versionIds();
    stack.emu.faults.inject({ times: 1, dropAfterHandling: true, match: /^POST \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    const result = await stack.engine.up(program());
    expect(result.outputs.status).toBe("uploaded");
    // The create went twice: the first made a version whose answer was lost, the second the one in use.
    expect(stack.emu.log.entries.filter((e) => e.method === "POST").map((e) => e.fault ?? e.status)).toEqual(["drop", 201]);
    const made = (await versionIds()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(2);
    const left = made.find((id) => id !== result.outputs.id)!;
    expect(stack.emu.getConfigurationVersion(left)?.status).toBe("pending");
    expect(inState().map((r) => r.id)).toEqual([result.outputs.id]);
    // The run's output names the version left and why.
    expect(result.diagnostics.join("\n")).toContain(`warning: configuration version ${left} of ${workspaceId} is left pending: the answer to its create was lost`);
    expect(result.diagnostics.join("\n")).toContain("the service archives only uploaded versions. A new version is made and uploaded instead");
    // Nothing more to do.
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 1 });
  });

  test("a create answered only after the client gave up is the same case: its version is left pending, said so, and a new one uploaded", async () => {
    const before = await versionIds();
    stack.emu.faults.inject({ times: 1, holdUntilAborted: true, match: /^POST \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    const slow = new Engine({ project: "workspaces-test", config: { ...stack.config, "workspaces:timeoutSeconds": "0.5" }, secretConfig: ["workspaces:token"] });
    try {
      const result = await slow.up(program());
      expect(result.outputs.status).toBe("uploaded");
      const made = (await versionIds()).filter((id) => !before.includes(id));
      expect(made).toHaveLength(2);
      const left = made.find((id) => id !== result.outputs.id)!;
      expect(result.diagnostics.join("\n")).toContain(`configuration version ${left} of ${workspaceId} is left pending`);
      await slow.destroy();
    } finally {
      await slow.close();
    }
  });

  test("when every create's answer is lost, the retries are spent and the last version made stays in state; the next up replaces it", async () => {
    const before = await versionIds();
    // One answer lost more than the policy retries (4): the budget is spent on versions made and left.
    stack.emu.faults.inject({ times: 5, dropAfterHandling: true, match: /^POST \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    const error = await failedUp();
    expect(stack.emu.log.entries.filter((e) => e.method === "POST")).toHaveLength(5);
    const made = (await versionIds()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(5);
    const kept = inState().map((r) => r.id);
    expect(kept).toHaveLength(1);
    expect(error.message).toContain(`configuration version ${kept[0]} was created, but the answer to its create was lost`);
    expect(error.message).toContain("the retries are spent");
    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ replace: 1 });
    expect(result.outputs.status).toBe("uploaded");
  });

  test("a refused status read after the upload keeps the version in state as created-but-failed, with the advice", async () => {
    const before = await versionIds();
    stack.emu.faults.inject({ times: 1, status: 403, match: /^GET \/api\/v2\/configuration-versions\/cv-/ });
    const error = await failedUp();
    const made = (await versionIds()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(1);
    expect(error.message).toContain(`configuration version ${made[0]} was created but reading its status after the upload failed: workspaces: GET /api/v2/configuration-versions/${made[0]} returned 403`);
    expect(error.message).toContain("the token was refused or lacks permission: check workspaces:token (or WORKSPACES_TOKEN)");
    const [kept] = inState();
    expect(kept.id).toBe(made[0]);
    expect(kept.initErrors?.[0]).toContain("returned 403");
    // The next up repairs by replacing it: no second version for the failed create, none untracked.
    const result = await stack.engine.up(program());
    expect(result.outputs.status).toBe("uploaded");
    expect((await versionIds()).filter((id) => !before.includes(id))).toEqual([String(result.outputs.id), made[0]]);
  });

  test("a refused upload (400) keeps the pending version in state as created-but-failed, with the advice", async () => {
    const before = await versionIds();
    stack.emu.faults.inject({ times: 1, status: 400, match: /^PUT \/_archivist\// });
    const error = await failedUp();
    const made = (await versionIds()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(1);
    expect(stack.emu.log.entries.filter((e) => e.method === "PUT").map((e) => e.status)).toEqual([400]);
    expect(error.message).toContain(`configuration version ${made[0]} was created but the upload of ${tree} failed: workspaces: PUT <upload-url> returned 400`);
    expect(error.message).toContain("the service rejected the inputs");
    expect(inState().map((r) => r.id)).toEqual([made[0]]);
  });

  test.each([
    ["a 500", { status: 500 }, 500],
    ["a reset before the service acted", { drop: true }, "drop"],
  ])("%s on the create: the lookup finds nothing made, so the create is sent again; one version, uploaded", async (_what, fault, seen) => {
    const before = await versionIds();
    stack.emu.faults.inject({ times: 1, ...fault, match: /^POST \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    const result = await stack.engine.up(program());
    expect(result.outputs.status).toBe("uploaded");
    expect(stack.emu.log.entries.filter((e) => e.method === "POST").map((e) => (e.fault === "drop" ? e.fault : e.status))).toEqual([seen, 201]);
    // The lookup between the two: the workspace's versions, listed before the create is sent again.
    const methods = stack.emu.log.entries.map((e) => `${e.method} ${e.path.replace(/\?.*/, "")}`);
    const [first, second] = methods.flatMap((m, i) => (m.startsWith("POST ") ? [i] : []));
    expect(methods.slice(first + 1, second)).toEqual([`GET /api/v2/workspaces/${workspaceId}/configuration-versions`]);
    expect((await versionIds()).filter((id) => !before.includes(id))).toEqual([String(result.outputs.id)]);
  });

  test("a create the slow service makes only after the client gave up is tracked: the next up accounts for it", async () => {
    const before = await versionIds();
    // Every attempt fails before an answer, and nothing is made yet: the retries are spent.
    stack.emu.faults.inject({ times: 5, drop: true, match: /^POST \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    const error = await failedUp();
    expect(stack.emu.log.entries.filter((e) => e.method === "POST")).toHaveLength(5);
    expect(error.message).toContain("no version it made is listed yet");
    expect(inState().map((r) => r.id)).toEqual([`lost-create:${workspaceId}:after:${before[0]}`]);
    // The service acts late, after the client's lookup.
    const late = (await clientFor(stack.config).write("POST", `/workspaces/${workspaceId}/configuration-versions`, "configuration-versions", { "auto-queue-runs": true })).id;

    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ replace: 1 });
    expect(result.outputs.status).toBe("uploaded");
    // Nothing unaccounted: the new version is in state, the late one is named as left.
    expect((await versionIds()).filter((id) => !before.includes(id)).sort()).toEqual([String(result.outputs.id), late].sort());
    expect(result.diagnostics.join("\n")).toContain(`configuration version ${late} is left as it is: a create whose answer was lost made it`);
  });

  test("a replacement whose upload is refused keeps the old version, marked for deletion, beside the new pending one; the next up settles both", async () => {
    await stack.engine.up(program());
    const [old] = inState();
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${tree}/main.tf`, `# round ${++round}, changed\n`);
    stack.emu.faults.inject({ times: 1, status: 403, match: /^PUT \/_archivist\// });
    await failedUp();
    const [pending] = (await versionIds()).filter((id) => id !== old.id && stack.emu.getConfigurationVersion(id)?.status === "pending");
    // Nothing forgotten: the old uploaded version is still owed its archive.
    expect(inState().map((r) => [r.id, r.pendingDelete ?? false])).toEqual([
      [pending, false],
      [old.id, true],
    ]);
    expect(stack.emu.getConfigurationVersion(old.id)?.status).toBe("uploaded");

    const result = await stack.engine.up(program());
    expect(result.steps.map((s) => [s.op, s.pendingDelete ?? false])).toEqual([
      ["replace", false],
      ["delete", true],
    ]);
    expect(stack.emu.getConfigurationVersion(old.id)?.status).toBe("archived");
    expect(inState().map((r) => r.id)).toEqual([String(result.outputs.id)]);
    expect(result.diagnostics.join("\n")).toContain(`configuration version ${pending} is left as it is: only uploaded versions can be archived, and this one is pending`);
  });

  test("a lost answer whose lookup fails too keeps the create in state; refresh finds the version it made", async () => {
    const before = await versionIds();
    // The first GET (the list before the create) passes; the one after the lost answer is refused.
    stack.emu.faults.inject({ times: 1, dropAfterHandling: true, match: /^POST \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    stack.emu.faults.inject({ times: 1, match: /^GET \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    stack.emu.faults.inject({ times: 1, status: 400, match: /^GET \/api\/v2\/workspaces\/[^/]+\/configuration-versions$/ });
    await failedUp();
    const made = (await versionIds()).filter((id) => !before.includes(id));
    expect(made).toHaveLength(1);
    expect(inState().map((r) => r.id)).toEqual([`lost-create:${workspaceId}:after:${before[0]}`]);
    await stack.engine.refresh();
    expect(inState().map((r) => [r.id, r.outputs.contentHash])).toEqual([[made[0], ""]]);
    const result = await stack.engine.up(program());
    expect(summarize(result.steps)).toEqual({ replace: 1 });
    expect(result.diagnostics.join("\n")).toContain(`configuration version ${made[0]} is left as it is`);
  });
});
