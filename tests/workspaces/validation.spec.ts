/** Every rule of the workspace and configuration version inputs fails in preview, naming the property, with no request sent. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { workspaces } from "pulumi-keepstack";
import { EngineError, summarize } from "../../harness";
import { startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";

type WorkspaceArgs = ConstructorParameters<typeof workspaces.Workspace>[1];

describe("validation in preview", () => {
  let stack: WorkspacesStack;
  let scratch: string;
  beforeAll(async () => {
    stack = await startWorkspacesStack();
    scratch = await mkdtemp(path.join(os.tmpdir(), "ws-validation-"));
  });
  afterAll(async () => {
    await stack.close();
    await rm(scratch, { recursive: true, force: true });
  });
  beforeEach(() => stack.emu.log.clear());
  afterEach(() => expect(stack.emu.log.count).toBe(0));

  const failure = async (program: () => void): Promise<string> => {
    const error = await stack.engine.preview(program).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    return (error as EngineError).message;
  };
  const workspaceFailure = (args: Partial<WorkspaceArgs>) =>
    failure(() => {
      new workspaces.Workspace("ws", { name: "ws", ...args } as WorkspaceArgs);
    });

  const oauth = () => stack.emu.oauthTokenId;
  const pool = () => stack.emu.agentPoolId;

  const cases: [string, () => Partial<WorkspaceArgs>, string, RegExp][] = [
    ["a name with other characters", () => ({ name: "my workspace!" }), "name", /only letters, digits, '-' and '_'/],
    ["an empty name", () => ({ name: "" }), "name", /must not be empty/],
    ["agent execution without a pool", () => ({ executionMode: "agent" }), "agentPoolId", /is required when executionMode is "agent"/],
    ["a pool with remote execution", () => ({ executionMode: "remote", agentPoolId: pool() }), "agentPoolId", /must not be set when executionMode is "remote"/],
    ["a pool with local execution", () => ({ executionMode: "local", agentPoolId: pool() }), "agentPoolId", /must not be set when executionMode is "local"/],
    ["a pool with operations: true", () => ({ operations: true, agentPoolId: pool() }), "agentPoolId", /must not be set when operations is true/],
    ["a pool without an execution mode", () => ({ agentPoolId: pool() }), "agentPoolId", /needs executionMode: "agent"/],
    ["execution mode together with operations", () => ({ executionMode: "remote", operations: true }), "operations", /must not be given together with executionMode/],
    [
      "settingOverwrites.executionMode true without an execution mode",
      () => ({ settingOverwrites: { executionMode: true } }),
      "executionMode",
      /is required when settingOverwrites.executionMode is true/,
    ],
    [
      "an execution mode the organization default would override",
      () => ({ executionMode: "local", settingOverwrites: { executionMode: false } }),
      "settingOverwrites.executionMode",
      /organization's default execution mode applies/,
    ],
    ["an unknown execution mode", () => ({ executionMode: "cloud" as "remote" }), "executionMode", /must be one of remote, local, agent/],
    ["an activity duration of 0", () => ({ autoDestroyActivityDuration: "0d" }), "autoDestroyActivityDuration", /must be greater than 0/],
    ["an activity duration of five digits", () => ({ autoDestroyActivityDuration: "10000h" }), "autoDestroyActivityDuration", /at most four digits/],
    ["an activity duration in weeks", () => ({ autoDestroyActivityDuration: "2w" }), "autoDestroyActivityDuration", /unit d or h/],
    ["an auto-destroy time that is not a timestamp", () => ({ autoDestroyAt: "next friday" }), "autoDestroyAt", /ISO 8601 timestamp/],
    ["a repository without identifier", () => ({ vcsRepo: { oauthTokenId: oauth() } as never }), "vcsRepo.identifier", /is required/],
    ["a repository identifier without owner", () => ({ vcsRepo: { identifier: "app", oauthTokenId: oauth() } }), "vcsRepo.identifier", /<org>\/<repo>/],
    ["a repository without connection", () => ({ vcsRepo: { identifier: "acme/app" } }), "vcsRepo.oauthTokenId", /is required \(or githubAppInstallationId instead\)/],
    [
      "a repository with both connections",
      () => ({ vcsRepo: { identifier: "acme/app", oauthTokenId: oauth(), githubAppInstallationId: stack.emu.githubAppInstallationId } }),
      "vcsRepo.githubAppInstallationId",
      /cannot be given together with oauthTokenId/,
    ],
    ["an invalid tags regex", () => ({ vcsRepo: { identifier: "acme/app", oauthTokenId: oauth(), tagsRegex: "v(" } }), "vcsRepo.tagsRegex", /valid regular expression/],
    ["trigger prefixes and patterns together", () => ({ triggerPrefixes: ["modules/"], triggerPatterns: ["**/*.tf"] }), "triggerPatterns", /not be given together with triggerPrefixes/],
    ["an empty trigger pattern", () => ({ triggerPatterns: [""] }), "triggerPatterns[0]", /must not be empty/],
    ["a source URL that is not a URL", () => ({ sourceName: "tool", sourceUrl: "example.com" }), "sourceUrl", /http:\/\/ or https:\/\/ URL/],
    ["a working directory outside the repository", () => ({ workingDirectory: "../elsewhere" }), "workingDirectory", /relative path inside the repository/],
    ["a tool version that is no version", () => ({ iacVersion: "newest" }), "iacVersion", /version such as 1.9.5 or a constraint/],
    ["assessments with state storage only", () => ({ assessmentsEnabled: true, executionMode: "local" }), "assessmentsEnabled", /needs remote \(or agent\) execution/],
    ["assessments with an old tool version", () => ({ assessmentsEnabled: true, iacVersion: "0.14.2" }), "assessmentsEnabled", /needs iacVersion 0.15.4 or later/],
    ["an organization with a slash", () => ({ organization: "acme/x" }), "organization", /must not contain '\/'/],
    ["an adoption ID that is no workspace ID", () => ({ adopt: true, adoptId: "acme/app" }), "adoptId", /must be a workspace ID/],
    ["an unknown property", () => ({ executionmode: "remote" }) as never, "executionmode", /is not a property of this resource/],
  ];

  test.each(cases)("Workspace: %s", async (_title, args, property, reason) => {
    const message = await workspaceFailure(args());
    const line = message.split("\n").find((l) => l.trim().startsWith(`${property}:`));
    expect(line).toMatch(reason);
  });

  test("every broken rule is reported at once", async () => {
    const message = await workspaceFailure({ name: "bad name", executionMode: "agent", autoDestroyActivityDuration: "0h" });
    expect(message).toMatch(/^\s+name: /m);
    expect(message).toMatch(/^\s+agentPoolId: /m);
    expect(message).toMatch(/^\s+autoDestroyActivityDuration: /m);
  });

  test("a valid workspace with every setting passes preview", async () => {
    const result = await stack.engine.preview(() => {
      new workspaces.Workspace("full", {
        name: "full_workspace-1",
        description: "all settings",
        executionMode: "agent",
        agentPoolId: pool(),
        settingOverwrites: { executionMode: true, agentPool: true },
        allowDestroyPlan: false,
        assessmentsEnabled: true,
        autoApply: true,
        autoApplyRunTrigger: true,
        autoDestroyAt: "2031-01-01T00:00:00Z",
        autoDestroyActivityDuration: "9999h",
        fileTriggersEnabled: true,
        globalRemoteState: true,
        queueAllRuns: true,
        sourceName: "tool",
        sourceUrl: "https://example.com",
        speculativeEnabled: false,
        iacVersion: "~> 1.9.0",
        triggerPatterns: ["**/*.tf"],
        workingDirectory: "envs/prod",
        vcsRepo: { identifier: "acme/project/_git/app", oauthTokenId: oauth(), branch: "main", ingressSubmodules: true, tagsRegex: "^v\\d+$" },
        projectId: stack.emu.otherProjectId,
      });
    });
    expect(summarize(result.steps)).toEqual({ create: 1 });
  });

  test.each([
    ["null", null, /^\s+vcsRepo: .*object.*$/m],
    ["a string", "acme/app", /^\s+vcsRepo: .*object.*$/m],
    ["a list", [{ identifier: "acme/app" }], /^\s+vcsRepo: .*object.*$/m],
  ])("Workspace: a vcsRepo that is %s fails naming vcsRepo, and nothing else", async (_title, vcsRepo, reason) => {
    const message = await workspaceFailure({ vcsRepo: vcsRepo as never });
    expect(message).toMatch(reason);
    expect(message).not.toMatch(/Cannot read properties/);
    expect(message).not.toMatch(/oauthTokenId/);
  });

  test("ConfigurationVersion: an empty directory, and one whose every file is excluded", async () => {
    const { mkdir, writeFile } = await import("node:fs/promises");
    const empty = path.join(scratch, "empty");
    await mkdir(path.join(empty, "only-a-directory"), { recursive: true });
    const message = await failure(() => {
      new workspaces.ConfigurationVersion("cv", { workspaceId: "ws-0000000000000000", directory: empty });
    });
    expect(message).toMatch(/^\s+directory: has nothing to upload: it holds no file$/m);

    const excluded = path.join(scratch, "excluded");
    await mkdir(path.join(excluded, "logs"), { recursive: true });
    await writeFile(path.join(excluded, "debug.log"), "x");
    await writeFile(path.join(excluded, "logs", "a.txt"), "x");
    const all = await failure(() => {
      new workspaces.ConfigurationVersion("cv", { workspaceId: "ws-0000000000000000", directory: excluded, exclude: ["*.log", "logs/"] });
    });
    expect(all).toMatch(/^\s+directory: has nothing to upload: every file in it is excluded by exclude$/m);
  });

  test("ConfigurationVersion: a directory that does not exist", async () => {
    const message = await failure(() => {
      new workspaces.ConfigurationVersion("cv", { workspaceId: "ws-0000000000000000", directory: path.join(scratch, "missing") });
    });
    expect(message).toMatch(/^\s+directory: must be an existing directory$/m);
  });

  test("ConfigurationVersion: a workspaceId that is not a workspace ID (a name, a trailing space)", async () => {
    for (const workspaceId of ["my-workspace", "ws-0000000000000000 "]) {
      const message = await failure(() => {
        new workspaces.ConfigurationVersion("cv", { workspaceId, directory: scratch });
      });
      expect(message).toMatch(/^\s+workspaceId: must be a workspace ID \(ws-…\)$/m);
    }
  });

  test("ConfigurationVersion: an empty exclusion and a timeout of 0", async () => {
    const message = await failure(() => {
      new workspaces.ConfigurationVersion("cv", { workspaceId: "ws-0000000000000000", directory: scratch, exclude: [""], uploadTimeoutSeconds: 0 });
    });
    expect(message).toMatch(/^\s+exclude\[0\]: must not be empty$/m);
    expect(message).toMatch(/^\s+uploadTimeoutSeconds: must be greater than 0$/m);
  });
});
