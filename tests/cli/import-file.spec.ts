/**
 * `pulumi-keepstack import --format pulumi-import`: the file `pulumi import --file` takes. A cluster's
 * objects, made by one program, are listed into it; the engine imports each line through the plugin
 * (a read by ID alone), and the program written from the answers (what the CLI generates, in any
 * language) plans no change but the credentials the services never show. No secret is in the file.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { Emulator, startEmulator } from "keepstack-emulator";
import { Engine, Program, summarize } from "../../harness";
import { PLUGIN_SECRET_CONFIG, pluginConfigOf, pluginResource, serviceEnv } from "../support/plugin-sdk";

const run = promisify(execFile);
const cli = path.join(__dirname, "..", "..", "dist", "cli", "main.js");
const POLICY = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';
const CREDENTIAL = "never-in-the-file-0123456789";

let emu: Emulator;
const pluginConfig = () => pluginConfigOf(emu);
const secretConfig = PLUGIN_SECRET_CONFIG;

/** The objects a team made earlier, through the plugin. */
const made: Program = () => {
  pluginResource("keep:AclPolicy", "readers", { name: "app-readers", policy: POLICY });
  pluginResource("keep:KvSecret", "db", { path: "app/db", data: { password: CREDENTIAL } });
  pluginResource("keep:SyncCloudASmDestination", "aws", { name: "aws", region: "us-east-1", accessKeyId: "AKIAEXAMPLE", secretAccessKey: CREDENTIAL });
  pluginResource("workspaces:Workspace", "app", { name: "imported-app", autoApply: true });
  pluginResource("mesh:Partition", "team", { name: "team-a", description: "Team A" });
};

beforeAll(async () => {
  emu = await startEmulator();
  const maker = new Engine({ project: "made-earlier", config: pluginConfig(), secretConfig });
  await maker.up(made);
  await maker.close();
});
afterAll(() => emu?.close());

const env = () => ({ ...process.env, ...serviceEnv(emu) });

test("--all --format pulumi-import: every object by the plugin's token, a name and its ID, no secret; the import through the plugin plans no change after", async () => {
  const { stdout, stderr } = await run(process.execPath, [cli, "import", "--all", "--format", "pulumi-import"], { env: env() });
  const file = JSON.parse(stdout) as { resources: { type: string; name: string; id: string }[] };
  // The emulator holds only what the program made: nothing else is adopted.
  const mine = file.resources;
  expect(mine.map((r) => r.type).sort()).toEqual(["keepstack:keep:AclPolicy", "keepstack:keep:KvSecret", "keepstack:keep:SyncCloudASmDestination", "keepstack:mesh:Partition", "keepstack:workspaces:Workspace"]);
  for (const r of file.resources) expect(Object.keys(r).sort()).toEqual(["id", "name", "type"]);
  // Names, types and IDs only: no value of any input, so no secret.
  for (const secret of [CREDENTIAL, emu.keep.rootToken, emu.workspaces.tokens.user]) {
    expect(stdout).not.toContain(secret);
    expect(stderr).not.toContain(secret);
  }
  // What the program will need that no read returns.
  expect(stderr).toContain(`keepstack:keep:SyncCloudASmDestination "cloudA-sm/aws": the service never returns accessKeyId, secretAccessKey: add accessKeyId and secretAccessKey to the program pulumi import writes where the object has them (accessKeyId and secretAccessKey take a reference such as { fromEnv: "NAME" }, which keeps the value out of the state)`);

  const adopter = new Engine({ project: "adopter", config: pluginConfig(), secretConfig });
  try {
    const imported = await adopter.import(mine);
    expect(imported.resources.length).toBe(5);
    const byType = Object.fromEntries(imported.resources.map((r) => [r.type, r.inputs]));
    expect(byType["keepstack:keep:AclPolicy"]).toEqual({ name: "app-readers", policy: POLICY });
    expect(byType["keepstack:workspaces:Workspace"]).toMatchObject({ name: "imported-app", autoApply: true });
    expect(byType["keepstack:keep:SyncCloudASmDestination"]).toMatchObject({ name: "aws", region: "us-east-1" });
    expect(byType["keepstack:keep:SyncCloudASmDestination"].secretAccessKey).toBeUndefined();
    // The program the CLI writes from the answers, with the credential the user adds as told.
    const written: Program = () => {
      for (const r of imported.resources) {
        const extra = r.type === "keepstack:keep:SyncCloudASmDestination" ? { accessKeyId: "AKIAEXAMPLE", secretAccessKey: CREDENTIAL } : {};
        pluginResource(r.type.replace(/^keepstack:/, ""), r.name, { ...r.inputs, ...extra });
      }
    };
    emu.clearLogs();
    const preview = await adopter.preview(written);
    expect(emu.requestCount()).toBe(0);
    expect(summarize(preview.steps)).toEqual({ same: 4, update: 1 });
    expect(preview.steps.find((s) => s.op === "update")).toMatchObject({ type: "keepstack:keep:SyncCloudASmDestination", detailedDiff: { accessKeyId: "add", secretAccessKey: "add" } });
    await adopter.up(written);
    expect(summarize((await adopter.preview(written)).steps)).toEqual({ same: 5 });
    adopter.state.clear();
  } finally {
    await adopter.close();
  }
});

test("one type by ID, read through an explicit provider under a parent: the file names both in its name table by the program's names for them", async () => {
  const providerUrn = "urn:pulumi:dev::adopter::pulumi:providers:keepstack::second";
  const parentUrn = "urn:pulumi:dev::adopter::my:app:Team::team";
  const { stdout } = await run(process.execPath, [cli, "import", "keep:AclPolicy", "app-readers", "--format", "pulumi-import", "--provider-urn", providerUrn, "--parent-urn", parentUrn], { env: env() });
  expect(JSON.parse(stdout)).toEqual({
    // The CLI writes these names into the code it generates (`provider: ${second}`): they are the program's.
    nameTable: { second: providerUrn, team: parentUrn },
    resources: [{ type: "keepstack:keep:AclPolicy", name: "app-readers", id: "app-readers", provider: "second", parent: "team" }],
  });
  const wrong = await run(process.execPath, [cli, "import", "keep:AclPolicy", "app-readers", "--format", "json"], { env: env() }).catch((e: { stderr: string }) => e.stderr);
  expect(wrong).toContain('--format takes typescript or pulumi-import, got "json"');
});
