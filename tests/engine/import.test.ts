/**
 * `pulumi import` through the plugin as docs/plugin.md and docs/import.md say, run by the real CLI:
 * one object at a time (the page's commands), and a whole cluster holding one object of every
 * importable type with `pulumi import --file` of the file `pulumi-keepstack import --all --format
 * pulumi-import` writes, into TypeScript and YAML projects (Python: plugin-python.test.ts), into an
 * explicit provider of a second cluster and under a parent. The code the CLI writes then previews
 * with no change but the credentials the import command names, which the user adds as references.
 */
import { Emulator, startEmulator } from "keepstack-emulator";
import { Engine } from "../../harness";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { pluginConfigOf, pluginResource, PLUGIN_SECRET_CONFIG, serviceEnv } from "../support/plugin-sdk";
import { ENGINE_TIMEOUT, expectNoComplaints, planOf, Project } from "../support/real-engine";
import { Cluster, importFileOf, ImportFile, makeCluster } from "./cluster";
import { credentialsToAdd, expectOnlyCredentialsAdded, mergeYamlResources, writtenCode } from "./imported-code";
import { PAGE, pageBlock, pluginSettings, typescriptSdkProject } from "./plugin-door";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require("js-yaml") as { load(text: string): unknown; dump(value: unknown): string };

let emu: Emulator;
let postgres: EmbeddedPostgres;
let made: Cluster;
let cluster: { file: ImportFile; stderr: string };

beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
  postgres = await startEmbeddedPostgres();
  made = await makeCluster(emu, postgres.connectionString);
  cluster = await importFileOf(emu, made.ids);
}, ENGINE_TIMEOUT);
afterAll(async () => {
  await emu?.close();
  await postgres?.close();
});

/** A YAML project of the plugin (no SDK: the packages entry, as docs/plugin.md says). */
const yamlProject = (name: string, resources: Record<string, unknown> = {}) =>
  Project.create({
    name,
    runtime: "yaml",
    files: { "Pulumi.yaml": yaml.dump({ name, runtime: "yaml", packages: { keepstack: "./node_modules/pulumi-keepstack/plugin" }, resources }) },
    node: "package",
  });

test(
  `${PAGE}: pulumi import of one object, as the page's commands say; the code it writes plans no change`,
  async () => {
    // What the page imports: a policy, a workspace and a partition made earlier.
    const maker = new Engine({ project: "made-earlier", config: pluginConfigOf(emu), secretConfig: PLUGIN_SECRET_CONFIG });
    await maker.up(() => {
      pluginResource("keep:AclPolicy", "readers", { name: "readers", policy: 'path "secret/*" { capabilities = ["read"] }' });
      pluginResource("workspaces:Workspace", "app", { name: "app", autoApply: false });
      pluginResource("mesh:Partition", "team", { name: "team-a", description: "Team A" });
    });
    maker.state.clear();
    await maker.close();
    const workspaceId = emu.workspaces.findWorkspace(emu.workspaces.organization, "app")!.id;

    const project = await yamlProject("keepstack-import-one");
    await project.stack("dev", pluginSettings(emu).config, pluginSettings(emu).secrets);
    // The page's commands, the workspace's ID in place of the example; a yes to each question.
    const block = pageBlock("sh", "pulumi import keepstack:keep:AclPolicy").replace(/ws-3fTbk6aNSoYBSXvN/, workspaceId);
    const imported = [];
    for (const line of block.trim().split("\n")) imported.push(await project.exec("bash", ["-c", line], { env: { PULUMI_SKIP_CONFIRMATIONS: "true" } }));
    mergeYamlResources(project, imported.map((ran) => writtenCode(ran.stdout)));
    const state = await project.exportStack();
    expect(state.deployment.resources?.filter((r) => r.type.startsWith("keepstack:")).map((r) => [r.type, r.id, r.protect])).toEqual([
      ["keepstack:keep:AclPolicy", "readers", true],
      ["keepstack:workspaces:Workspace", workspaceId, true],
      ["keepstack:mesh:Partition", "team-a", true],
    ]);
    const again = await project.pulumi(["preview", "--json", "--expect-no-changes"]);
    expect(planOf(again).changes).toEqual({});
    expectNoComplaints(...imported, again);
  },
  ENGINE_TIMEOUT,
);

test(
  "docs/import.md: a cluster of every importable type into a TypeScript project through the SDK; the written code plans only the credentials added",
  async () => {
    const project = await typescriptSdkProject("keepstack-import-typescript", 'import "./imported";\n');
    await project.stack("dev", pluginSettings(emu).config, pluginSettings(emu).secrets);
    project.write("cluster.json", JSON.stringify(cluster.file, null, 2));
    const ran = await project.pulumi(["import", "--file", "cluster.json", "--yes", "--protect=false", "--out", "imported.ts"]);
    const imported = (await project.exportStack()).deployment.resources!.filter((r) => r.type.startsWith("keepstack:"));
    expect(imported.length).toBe(cluster.file.resources.length);
    const credentials = credentialsToAdd(cluster, made.inputs);
    project.write("imported.ts", credentials.addTo("typescript", project.read("imported.ts")));
    await expectOnlyCredentialsAdded(project, credentials);
    expectNoComplaints(ran);
  },
  ENGINE_TIMEOUT,
);

test(
  "docs/import.md: a cluster of every importable type into a YAML project, from the commands as written; the written code plans only the credentials added",
  async () => {
    const project = await yamlProject("keepstack-import-yaml");
    await project.stack("dev", pluginSettings(emu).config, pluginSettings(emu).secrets);
    // The page's commands as written, with the services' settings in the environment; a yes to the question.
    const block = pageBlock("sh", "npx pulumi-keepstack import --all --format pulumi-import > cluster.json");
    const ran = await project.exec("bash", ["-euo", "pipefail", "-c", block], { env: { ...serviceEnv(emu), PULUMI_SKIP_CONFIRMATIONS: "true" } });
    const file = JSON.parse(project.read("cluster.json")) as ImportFile;
    // The types it cannot list are imported by ID, as docs/import.md says.
    const byId = cluster.file.resources.filter((r) => !file.resources.some((l) => l.type === r.type));
    expect(byId.length).toBeGreaterThan(0);
    project.write("by-id.json", JSON.stringify({ resources: byId }));
    const second = await project.pulumi(["import", "--file", "by-id.json", "--yes"]);
    mergeYamlResources(project, [writtenCode(ran.stdout), writtenCode(second.stdout)]);
    const credentials = credentialsToAdd(cluster, made.inputs);
    project.write("Pulumi.yaml", credentials.addTo("yaml", project.read("Pulumi.yaml")));
    await expectOnlyCredentialsAdded(project, credentials);
    expectNoComplaints(second);
  },
  ENGINE_TIMEOUT,
);

test(
  "docs/import.md: objects of a second cluster into its explicit provider, under a parent: the written code names both and plans no change",
  async () => {
    // A second cluster of its own: the cluster above holds replication samples, which made its "dr" a secondary.
    const second = await startEmulator({ clusters: ["main", "dr"] });
    try {
      const drPolicy = 'path "dr/*" { capabilities = ["read"] }';
      const project = await yamlProject("keepstack-import-provider", {
        dr: { type: "pulumi:providers:keepstack", properties: { keepAddress: "${drAddress}", keepToken: "${drToken}" } },
        anchor: { type: "keepstack:keep:AclPolicy", properties: { name: "anchor", policy: drPolicy }, options: { provider: "${dr}" } },
      });
      const text = yaml.load(project.read("Pulumi.yaml")) as Record<string, unknown>;
      project.write("Pulumi.yaml", yaml.dump({ ...text, config: { drAddress: { type: "string" }, drToken: { type: "string", secret: true } } }));
      await project.stack("dev", pluginSettings(second).config, pluginSettings(second).secrets);
      await project.pulumi(["up", "--yes", "--skip-preview"]);
      second.clusters.dr.putPolicy("acl", "dr-ops", { policy: drPolicy });
      const urns = Object.fromEntries((await project.exportStack()).deployment.resources!.map((r) => [r.urn.split("::").pop(), r.urn]));
      const { file } = await importFileOf(second, new Map(), ["--provider-urn", urns.dr, "--parent-urn", urns.anchor], { KEEP_ADDR: second.clusters.dr.url, KEEP_TOKEN: second.clusters.dr.rootToken });
      const mine = file.resources.filter((r) => r.id === "dr-ops");
      expect(mine).toHaveLength(1);
      project.write("dr.json", JSON.stringify({ ...file, resources: mine }));
      const ran = await project.pulumi(["import", "--file", "dr.json", "--yes", "--protect=false"]);
      const written = writtenCode(ran.stdout);
      expect(written).toMatch(/provider: \$\{dr\}/);
      expect(written).toMatch(/parent: \$\{anchor\}/);
      mergeYamlResources(project, [written]);
      // A child of the anchor: its URN's type names the parent's type first.
      const state = await project.exportStack();
      expect(state.deployment.resources!.map((r) => r.urn).filter((urn) => urn.endsWith("::dr-ops"))).toEqual([expect.stringContaining("::keepstack:keep:AclPolicy$keepstack:keep:AclPolicy::")]);
      expect(planOf(await project.pulumi(["preview", "--json", "--expect-no-changes"])).changes).toEqual({});
      expectNoComplaints(ran);
    } finally {
      await second.close();
    }
  },
  ENGINE_TIMEOUT,
);
