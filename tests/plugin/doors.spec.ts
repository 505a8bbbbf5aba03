/**
 * The plugin door as the engine drives it, next to the dynamic door: a policy, a workspace and a
 * partition declared with the plugin's tokens (what a generated SDK does), through preview, up, a
 * change, a replacement, a refresh after drift, `pulumi import` by ID alone, and destroy; explicit
 * providers; the package's functions through `Invoke`; and one program's objects, declared through
 * either door, ending the same on the services.
 */
import { keep, mesh, workspaces } from "pulumi-keepstack";
import { Emulator, startEmulator } from "keepstack-emulator";
import { Engine, EngineError, Program, summarize } from "../../harness";
import { PLUGIN_SECRET_CONFIG, pluginConfigOf, pluginInvoke, pluginProvider, pluginResource } from "../support/plugin-sdk";

const POLICY = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';

let emu: Emulator;
let engine: Engine;

const config = () => ({ ...pluginConfigOf(emu), "keepstack:keepRetryBaseDelayMs": "5" });
const secretConfig = PLUGIN_SECRET_CONFIG;

beforeAll(async () => {
  emu = await startEmulator();
  engine = new Engine({ project: "plugin-doors", config: config(), secretConfig });
});
afterAll(async () => {
  await engine?.close();
  await emu?.close();
});

describe("a policy, a workspace and a partition through the plugin", () => {
  const program = (policy: string, name = "readers", description = "Team A"): Program => () => {
    const acl = pluginResource("keep:AclPolicy", "readers", { name, policy });
    const ws = pluginResource("workspaces:Workspace", "app", { name: "plugin-app", autoApply: false });
    const part = pluginResource("mesh:Partition", "team", { name: "plugin-team", description });
    return { acl: acl.name, ws: ws.id, createIndex: part.createIndex };
  };

  test("preview plans three creates and sends no request", async () => {
    emu.clearLogs();
    const preview = await engine.preview(program(POLICY));
    expect(summarize(preview.steps)).toEqual({ create: 3 });
    expect(emu.requestCount()).toBe(0);
  });

  test("up creates them; a second preview plans no change and sends no request", async () => {
    const up = await engine.up(program(POLICY));
    expect(summarize(up.steps)).toEqual({ create: 3 });
    expect(up.outputs.acl).toBe("readers");
    expect(up.outputs.ws).toMatch(/^ws-/);
    expect(emu.keep.listPolicies("acl")).toContain("readers");
    emu.clearLogs();
    expect(summarize((await engine.preview(program(POLICY))).steps)).toEqual({ same: 3 });
    expect(emu.requestCount()).toBe(0);
  });

  test("a change is an update whose detailed diff names the property; a rename a replacement", async () => {
    const changed = await engine.preview(program(`${POLICY}# more\n`, "readers", "Team A, again"));
    const acl = changed.steps.find((s) => s.name === "readers")!;
    expect(acl).toMatchObject({ op: "update", detailedDiff: { policy: "update" } });
    expect(changed.steps.find((s) => s.name === "team")).toMatchObject({ op: "update", detailedDiff: { description: "update" } });
    const renamed = await engine.preview(program(POLICY, "readers-2"));
    expect(renamed.steps.find((s) => s.name === "readers")).toMatchObject({ op: "replace", replaces: ["name"], detailedDiff: { name: "update-replace" } });
    const up = await engine.up(program(`${POLICY}# more\n`, "readers-2"));
    expect(up.steps.find((s) => s.name === "readers")).toMatchObject({ op: "replace" });
    expect(emu.keep.listPolicies("acl")).toContain("readers-2");
    expect(emu.keep.listPolicies("acl")).not.toContain("readers");
  });
});

describe("refresh, import and destroy through the plugin", () => {
  const program = (policy: string): Program => () => {
    pluginResource("keep:AclPolicy", "readers", { name: "readers-2", policy });
    pluginResource("workspaces:Workspace", "app", { name: "plugin-app", autoApply: false });
    pluginResource("mesh:Partition", "team", { name: "plugin-team", description: "Team A" });
  };

  test("a refresh after drift takes the service's values, inputs included; the next preview plans the way back", async () => {
    emu.keep.putPolicy("acl", "readers-2", { policy: `${POLICY}# drifted\n` });
    const wsId = [...engine.state.values()].find((r) => r.name === "app")!.id;
    emu.workspaces.updateWorkspaceAttributes(wsId, { "auto-apply": true });
    const refreshed = await engine.refresh();
    expect(refreshed.steps.find((s) => s.name === "readers")).toMatchObject({ op: "update", diffs: ["policy"] });
    expect(refreshed.steps.find((s) => s.name === "app")).toMatchObject({ op: "update", diffs: expect.arrayContaining(["autoApply"]) });
    const acl = [...engine.state.values()].find((r) => r.name === "readers")!;
    expect(acl.outputs.policy).toContain("# drifted");
    expect(acl.inputs.policy).toContain("# drifted");
    const preview = await engine.preview(program(`${POLICY}# more\n`));
    expect(preview.steps.find((s) => s.name === "readers")).toMatchObject({ op: "update", detailedDiff: { policy: "update" } });
    expect(preview.steps.find((s) => s.name === "app")).toMatchObject({ op: "update", detailedDiff: { autoApply: "update" } });
    expect(summarize((await engine.up(program(`${POLICY}# more\n`))).steps)).toEqual({ update: 2, same: 1 });
  });

  test("`pulumi import` by ID alone answers the inputs; the program they make plans no change", async () => {
    // The objects stay on the services; a new stack adopts them.
    const ids = Object.fromEntries([...engine.state.values()].map((r) => [r.name, r.id]));
    const other = new Engine({ project: "plugin-import", config: config(), secretConfig });
    try {
      emu.clearLogs();
      const imported = await other.import([
        { type: "keepstack:keep:AclPolicy", name: "readers", id: ids.readers },
        { type: "keepstack:workspaces:Workspace", name: "app", id: ids.app },
        { type: "keepstack:mesh:Partition", name: "team", id: ids.team },
      ]);
      expect(summarize(imported.steps)).toEqual({ import: 3 });
      const inputs = Object.fromEntries(imported.resources.map((r) => [r.name, r.inputs]));
      expect(inputs.readers).toEqual({ name: "readers-2", policy: `${POLICY}# more\n` });
      expect(inputs.team).toMatchObject({ name: "plugin-team", description: "Team A" });
      expect(inputs.app).toMatchObject({ name: "plugin-app", autoApply: false });
      // Each import read its object once: a GET per object, no write.
      expect(emu.requestCount()).toBe(3);
      // The code the CLI writes from those inputs.
      const written: Program = () => {
        for (const r of imported.resources) pluginResource(r.type.replace(/^keepstack:/, ""), r.name, r.inputs);
      };
      emu.clearLogs();
      expect(summarize((await other.preview(written)).steps)).toEqual({ same: 3 });
      expect(emu.requestCount()).toBe(0);
      // Forget them again: the first stack still owns them.
      other.state.clear();
    } finally {
      await other.close();
    }
  });

  test("an import of a dynamic resource is refused, naming what can be imported", async () => {
    const error = await engine.import([{ type: "pulumi-nodejs:dynamic/keep:AclPolicy", name: "x", id: "readers-2" }]).catch((e: EngineError) => e);
    expect((error as EngineError).errors[0]).toMatch(/cannot be imported: only the keepstack plugin's resources answer a read by ID alone/);
  });

  test("destroy deletes them", async () => {
    const destroyed = await engine.destroy();
    expect(summarize(destroyed.steps)).toEqual({ delete: 3 });
    expect(emu.keep.listPolicies("acl")).not.toContain("readers-2");
    expect(emu.mesh.getPartition("plugin-team")?.DeletedAt ?? "gone").toBeTruthy();
  });
});

describe("secrets through the plugin", () => {
  test("a secret input stays secret in the outputs; a computed secret output is marked; nothing secret is in the diagnostics", async () => {
    const program: Program = () => {
      const kv = pluginResource("keep:KvSecret", "db", { path: "plugin/db", data: { user: "app", password: "hunter2-plugin" } });
      return { data: kv.data };
    };
    const up = await engine.up(program);
    const state = [...engine.state.values()].find((r) => r.name === "db")!;
    expect(state.secretInputs).toContain("data");
    expect(state.secretOutputs).toContain("data");
    expect(up.outputs.data).toEqual({ user: "app", password: "hunter2-plugin" });
    expect(engine.diagnostics().join("\n")).not.toContain("hunter2-plugin");
    await engine.destroy();
  });
});

describe("explicit providers", () => {
  test("a second provider reaches another cluster; resources go to the provider they name", async () => {
    const second = await startEmulator();
    const local = new Engine({ project: "plugin-providers", config: config(), secretConfig });
    try {
      const program = (address: string): Program => () => {
        const other = pluginProvider("second", { keepAddress: address, keepToken: second.keep.rootToken });
        pluginResource("keep:AclPolicy", "here", { name: "here", policy: POLICY });
        pluginResource("keep:AclPolicy", "there", { name: "there", policy: POLICY }, { provider: other });
      };
      const preview = await local.preview(program(second.keep.url));
      expect(summarize(preview.steps)).toEqual({ create: 3 });
      await local.up(program(second.keep.url));
      expect(emu.keep.listPolicies("acl")).toContain("here");
      expect(emu.keep.listPolicies("acl")).not.toContain("there");
      expect(second.keep.listPolicies("acl")).toContain("there");
      expect(summarize((await local.preview(program(second.keep.url))).steps)).toEqual({ same: 3 });
      // A provider's token stays out of the state's plain values.
      const provider = [...local.state.values()].find((r) => r.type === "pulumi:providers:keepstack")!;
      expect(provider.secretInputs).toContain("keepToken");
      await local.destroy();
      expect(second.keep.listPolicies("acl")).not.toContain("there");
    } finally {
      await local.close();
      await second.close();
    }
  });

  test("a bad provider setting fails the preview, naming the key and the rule", async () => {
    const local = new Engine({ project: "plugin-providers", config: config(), secretConfig });
    try {
      const program: Program = () => {
        pluginProvider("bad", { keepAddress: "keep.example:8200", keepMaxRetries: "many" });
      };
      const error = await local.preview(program).catch((e: EngineError) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).message).toMatch(/keepstack:keepMaxRetries must be a whole number/);
    } finally {
      await local.close();
    }
  });
});

describe("functions through the plugin", () => {
  test("the mesh's CA roots and a workspace listing, invoked as a generated SDK does", async () => {
    const program: Program = async () => {
      const roots = await pluginInvoke("mesh:getCaRoots", {});
      const listing = await pluginInvoke("workspaces:listWorkspaces", {});
      return { active: roots.activeRootId, roots: roots.roots.length, workspaces: listing.result.length };
    };
    const run = await engine.preview(program);
    expect(run.outputs.active).toBeTruthy();
    expect(run.outputs.roots).toBeGreaterThan(0);
    expect(run.outputs.workspaces).toBeGreaterThanOrEqual(0);
  });

  test("a function's refused arguments fail with the family's message; an unknown function names itself and the version", async () => {
    const bad = await engine.preview(async () => pluginInvoke("keep:transformEncode", { value: "x" })).catch((e: EngineError) => e);
    expect((bad as EngineError).message).toMatch(/keep\.transform\.encode: invalid arguments: role/);
    const unknown = await engine.preview(async () => pluginInvoke("keep:noSuchFunction", {})).catch((e: EngineError) => e);
    expect((unknown as EngineError).message).toMatch(/keepstack:keep:noSuchFunction is not a function of keepstack 0\.1\.0/);
  });
});

describe("one program through both doors", () => {
  /** What the services hold of the program's objects, as plain data. */
  const held = (names: { policy: string; partition: string; workspace: string }) => {
    const ws = emu.workspaces.findWorkspace(emu.workspaces.organization, names.workspace);
    const partition = emu.mesh.getPartition(names.partition);
    return {
      policy: emu.keep.getPolicy("acl", names.policy),
      partition: partition && { Name: partition.Name, Description: partition.Description },
      workspace: ws && { name: ws.attributes.name, autoApply: ws.attributes["auto-apply"], description: ws.attributes.description },
    };
  };
  const names = { policy: "both-doors", partition: "both-doors", workspace: "both-doors" };
  const inputs = {
    policy: { name: names.policy, policy: POLICY },
    partition: { name: names.partition, description: "declared once" },
    workspace: { name: names.workspace, autoApply: true, description: "declared once" },
  };

  test("the objects end the same on the services", async () => {
    const dynamic: Program = () => {
      new keep.AclPolicy("p", inputs.policy);
      new mesh.Partition("m", inputs.partition);
      new workspaces.Workspace("w", inputs.workspace);
    };
    const plugin: Program = () => {
      pluginResource("keep:AclPolicy", "p", inputs.policy);
      pluginResource("mesh:Partition", "m", inputs.partition);
      pluginResource("workspaces:Workspace", "w", inputs.workspace);
    };
    const dynamicConfig = Object.fromEntries(Object.entries(config()).map(([k, v]) => [k.replace(/^keepstack:(keep|workspaces|mesh)([A-Z])/, (_m, s: string, c: string) => `${s}:${c.toLowerCase()}`), v]));
    // One project and stack: the owner each door records is the same too.
    const first = new Engine({ project: "doors", config: dynamicConfig });
    const second = new Engine({ project: "doors", config: config(), secretConfig });
    try {
      await first.up(dynamic);
      const throughDynamic = held(names);
      await first.destroy();
      emu.mesh.setDeletionDelay(0);
      await second.up(plugin);
      const throughPlugin = held(names);
      await second.destroy();
      expect(throughDynamic.policy).toBeDefined();
      expect(throughDynamic.partition).toBeDefined();
      expect(throughDynamic.workspace).toBeDefined();
      expect(throughDynamic.partition?.Description).toBe("declared once\n\n(managed by Pulumi stack doors/dev, resource m)");
      expect(throughPlugin).toEqual(throughDynamic);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
