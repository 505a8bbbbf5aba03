/**
 * The flows users meet after their first run, through both doors in one TypeScript program (the
 * dynamic resources of `pulumi-keepstack` beside the SDK `pulumi package add` generates), run by
 * the real CLI: resource options (protect, retainOnDelete, deleteBeforeReplace, ignoreChanges,
 * replaceOnChanges, deletedWith, dependsOn), a replaced object whose delete failed (kept, marked,
 * deleted by the next up), renaming an adopted object, the `import` option with inputs that differ
 * from the object, `up` after a create that failed half-way, and a state that holds no token.
 */
import { Emulator, startEmulator } from "keepstack-emulator";
import { countSteps, ENGINE_TIMEOUT, eventsOf, expectNoComplaints, planOf, Project, stepsOf } from "../support/real-engine";
import { pluginSettings, typescriptSdkProject } from "./plugin-door";

let emu: Emulator;
let project: Project;

/** The dynamic door's settings and the plugin's, tokens as secrets, as `pulumi config set --secret` keeps them. */
function bothDoors(e: Emulator): { config: Record<string, string>; secrets: string[] } {
  const plugin = pluginSettings(e);
  return {
    config: { ...plugin.config, "keep:address": e.keep.url, "keep:token": e.keep.rootToken, "workspaces:address": e.workspaces.url, "workspaces:token": e.workspaces.tokens.user, "workspaces:organization": e.workspaces.organization },
    secrets: [...plugin.secrets, "keep:token", "workspaces:token"],
  };
}

/** A program declaring, for each door, what `body(door, ns)` writes; `ns` is the door's namespace of classes. */
function program(body: (door: "dyn" | "plug", ns: string) => string): string {
  return [
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as dynamic from "pulumi-keepstack";',
    'import * as plugin from "@keepstack/pulumi-keepstack";',
    "void pulumi;",
    body("dyn", "dynamic"),
    body("plug", "plugin"),
    "",
  ].join("\n");
}

const rule = (capability: string) => `path "secret/*" { capabilities = ["${capability}"] }`;

beforeAll(async () => {
  emu = await startEmulator({ clusters: ["main", "dr"] });
  project = await typescriptSdkProject("keepstack-flows", program(() => ""));
}, ENGINE_TIMEOUT);
afterAll(() => emu?.close());

test(
  "protect, retainOnDelete, deleteBeforeReplace, ignoreChanges and replaceOnChanges, through both doors, as the engine applies them",
  async () => {
    await project.stack("options", bothDoors(emu).config, bothDoors(emu).secrets);
    const declare = (text: string, dbrName: string, withRetained: boolean) =>
      program((door, ns) =>
        [
          `new ${ns}.keep.AclPolicy("${door}-protected", { name: "${door}-protected", policy: ${JSON.stringify(rule("read"))} }, { protect: true });`,
          withRetained ? `new ${ns}.keep.AclPolicy("${door}-retained", { name: "${door}-retained", policy: ${JSON.stringify(rule("read"))} }, { retainOnDelete: true });` : "",
          `new ${ns}.keep.AclPolicy("${door}-dbr", { name: "${door}-${dbrName}", policy: ${JSON.stringify(rule("read"))} }, { deleteBeforeReplace: true });`,
          `new ${ns}.keep.AclPolicy("${door}-ignored", { name: "${door}-ignored", policy: ${JSON.stringify(rule(text))} }, { ignoreChanges: ["policy"] });`,
          `new ${ns}.keep.AclPolicy("${door}-roc", { name: "${door}-roc", policy: ${JSON.stringify(rule(text))} }, { replaceOnChanges: ["policy"] });`,
        ].join("\n"),
      );
    project.write("index.ts", declare("read", "first", true));
    const up = await project.pulumi(["up", "--yes", "--skip-preview", "--json"]);
    expect(countSteps(stepsOf(up))).toEqual({ create: 10 });

    project.write("index.ts", declare("list", "second", false));
    const plan = planOf(await project.pulumi(["preview", "--json"]));
    const byName = Object.fromEntries(plan.steps.map((s) => [s.name, s.op]));
    for (const door of ["dyn", "plug"]) {
      expect(byName[`${door}-ignored`]).toBeUndefined();
      expect(byName[`${door}-protected`]).toBeUndefined();
      expect(byName[`${door}-roc`]).toBe("replace");
      expect(byName[`${door}-dbr`]).toBe("replace");
      expect(byName[`${door}-retained`]).toBe("delete");
    }
    emu.clearLogs();
    const changed = await project.pulumi(["up", "--yes", "--skip-preview", "--json"]);
    const writes = emu.keep.log.lines().filter((l) => !l.startsWith("GET"));
    for (const door of ["dyn", "plug"]) {
      // Deleted before its replacement is made: as asked (a new name), and where the replacement has the same name.
      const order = (name: string, method: string) => writes.indexOf(`${method} /v1/sys/policies/acl/${name}`);
      expect({ door, before: order(`${door}-first`, "DELETE") < order(`${door}-second`, "POST") }).toEqual({ door, before: true });
      expect({ door, before: order(`${door}-roc`, "DELETE") < order(`${door}-roc`, "POST") }).toEqual({ door, before: true });
      // Out of the program and the state, still on the service.
      expect(emu.keep.getPolicy("acl", `${door}-retained`)).toBeDefined();
      // The change ignored; the one that replaces made.
      expect(emu.keep.getPolicy("acl", `${door}-ignored`)?.policy).toBe(rule("read"));
      expect(emu.keep.getPolicy("acl", `${door}-roc`)?.policy).toBe(rule("list"));
    }

    const refused = await project.pulumi(["destroy", "--yes", "--skip-preview"], { expect: "failure" });
    expect(refused.output).toMatch(/protected/);
    for (const door of ["dyn", "plug"]) expect(emu.keep.getPolicy("acl", `${door}-protected`)).toBeDefined();
    expectNoComplaints(up, changed);
  },
  ENGINE_TIMEOUT,
);

test(
  "renaming an object the program adopted, adopt still set: refused in preview through both doors, before any request; nothing is taken over",
  async () => {
    await project.stack("adopted", bothDoors(emu).config, bothDoors(emu).secrets);
    for (const name of ["dyn-legacy", "plug-legacy", "dyn-other", "plug-other"]) emu.keep.putPolicy("acl", name, { policy: rule("deny") });
    project.write("index.ts", program((door, ns) => `new ${ns}.keep.AclPolicy("${door}-adopted", { name: "${door}-legacy", policy: ${JSON.stringify(rule("read"))}, adopt: true });`));
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    expect(emu.keep.getPolicy("acl", "plug-legacy")?.policy).toBe(rule("read"));

    // One door a run: the engine stops at the first resource that fails its check.
    for (const door of ["dyn", "plug"] as const) {
      project.write("index.ts", program((d, ns) => `new ${ns}.keep.AclPolicy("${d}-adopted", { name: "${d}-${d === door ? "other" : "legacy"}", policy: ${JSON.stringify(rule("read"))}, adopt: true });`));
      emu.clearLogs();
      const refused = await project.pulumi(["preview"], { expect: "failure" });
      expect(emu.requestCount()).toBe(0);
      const type = door === "dyn" ? "pulumi-nodejs:dynamic/keep:AclPolicy" : "keepstack:keep:AclPolicy";
      expect(refused.output).toContain(`error: ${type} resource '${door}-adopted': property adopt value {true} has a problem: takes over an existing object at the first create only, and this object is in state: the change of name replaces it, and with adopt set the replacement would take over the object the new inputs name instead of creating one. Remove adopt from the program (it is done), then run again`);
      expect(emu.keep.getPolicy("acl", `${door}-other`)?.policy).toBe(rule("deny"));
    }
  },
  ENGINE_TIMEOUT,
);

test(
  "the import option with inputs that differ from the object: the preview writes nothing, up updates the object it took",
  async () => {
    await project.stack("import-option", bothDoors(emu).config, bothDoors(emu).secrets);
    emu.keep.putPolicy("acl", "existing", { policy: rule("deny") });
    project.write("index.ts", `import * as plugin from "@keepstack/pulumi-keepstack";\nnew plugin.keep.AclPolicy("existing", { name: "existing", policy: ${JSON.stringify(rule("read"))} }, { import: "existing" });\n`);
    emu.clearLogs();
    const preview = await project.pulumi(["preview", "--json"]);
    expect(emu.keep.log.lines().filter((l) => !l.startsWith("GET"))).toEqual([]);
    // As the engine does it: the object read by ID and taken, then updated to the program's inputs in the same run.
    expect(planOf(preview).steps.map((s) => [s.name, s.op, s.detailedDiff])).toEqual([
      ["existing", "import", undefined],
      ["existing", "update", { policy: "update" }],
    ]);
    expect(emu.keep.getPolicy("acl", "existing")?.policy).toBe(rule("deny"));
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    expect(emu.keep.getPolicy("acl", "existing")?.policy).toBe(rule("read"));
    expect(planOf(await project.pulumi(["preview", "--json", "--expect-no-changes"])).changes).toEqual({});
  },
  ENGINE_TIMEOUT,
);

test(
  "up after a create that failed half-way (the workspace made, its repository link refused): the object stays in state, the next up repairs it, no duplicate, both doors",
  async () => {
    await project.stack("half-way", bothDoors(emu).config, bothDoors(emu).secrets);
    const installation = emu.workspaces.githubAppInstallationId;
    project.write(
      "index.ts",
      program((door, ns) => `new ${ns}.workspaces.Workspace("${door}-linked", { name: "${door}-linked", vcsRepo: { identifier: "acme/app", githubAppInstallationId: "${installation}" } });`),
    );
    emu.workspaces.faults.inject({ times: 2, status: 403, match: /^PATCH \/api\/v2\/workspaces\// });
    // Both doors' creates run: the engine stops at the first failure otherwise.
    const failed = await project.pulumi(["up", "--yes", "--skip-preview", "--continue-on-error"], { expect: "failure" });
    for (const door of ["dyn", "plug"]) {
      const ws = emu.workspaces.findWorkspace(emu.workspaces.organization, `${door}-linked`)!;
      expect(failed.output).toContain(`workspace ${ws.id} was created, but linking its repository through the application installation failed`);
    }
    const state = await project.exportStack();
    const kept = state.deployment.resources!.filter((r) => r.urn.endsWith("-linked"));
    const byName = kept.map((r) => [r.urn.split("::").pop(), r.id, Boolean((r as { initErrors?: string[] }).initErrors?.length)]);
    expect(byName.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ["dyn-linked", emu.workspaces.findWorkspace(emu.workspaces.organization, "dyn-linked")!.id, true],
      ["plug-linked", emu.workspaces.findWorkspace(emu.workspaces.organization, "plug-linked")!.id, true],
    ]);
    const repaired = await project.pulumi(["up", "--yes", "--skip-preview", "--json"]);
    expect(countSteps(stepsOf(repaired))).toEqual({ update: 2 });
    for (const door of ["dyn", "plug"]) {
      expect(emu.workspaces.findWorkspace(emu.workspaces.organization, `${door}-linked`)?.attributes["vcs-repo"]).toMatchObject({ "github-app-installation-id": installation });
    }
  },
  ENGINE_TIMEOUT,
);

test(
  "a replacement whose old object's delete is refused: the old object stays in the state marked for deletion; the next preview shows no change, the next up deletes it after the program's steps, both doors",
  async () => {
    await project.stack("pending-delete", bothDoors(emu).config, bothDoors(emu).secrets);
    const declare = (suffix: string) => program((door, ns) => `new ${ns}.keep.AclPolicy("${door}-moving", { name: "${door}-${suffix}", policy: ${JSON.stringify(rule("read"))} });`);
    project.write("index.ts", declare("old"));
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    emu.keep.faults.inject({ times: 2, status: 403, match: /^DELETE \/v1\/sys\/policies\/acl\/(dyn|plug)-old$/ });
    project.write("index.ts", declare("new"));
    // Both doors' deletes run: the engine stops at the first failure otherwise.
    await project.pulumi(["up", "--yes", "--skip-preview", "--continue-on-error"], { expect: "failure" });
    const moving = (await project.exportStack()).deployment.resources!.filter((r) => r.urn.endsWith("-moving"));
    const marked = moving.map((r) => [r.id, Boolean((r as { delete?: boolean }).delete)]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(marked).toEqual([
      ["dyn-new", false],
      ["dyn-old", true],
      ["plug-new", false],
      ["plug-old", true],
    ]);
    for (const door of ["dyn", "plug"]) expect(emu.keep.getPolicy("acl", `${door}-old`)).toBeDefined();
    // The engine's preview does not show the deletes it owes (tests/harness/resource-options.test.ts holds the harness to this).
    expect(planOf(await project.pulumi(["preview", "--json"])).changes).toEqual({});
    const up = await project.pulumi(["up", "--yes", "--skip-preview", "--json"]);
    const events = (eventsOf(up) as { resOutputsEvent?: { metadata: { op: string; urn: string } } }[]).flatMap((e) => (e.resOutputsEvent?.metadata.urn.endsWith("-moving") ? [e.resOutputsEvent.metadata.op] : []));
    expect(events).toEqual(["same", "same", "delete-replaced", "delete-replaced"]);
    for (const door of ["dyn", "plug"]) {
      expect(emu.keep.getPolicy("acl", `${door}-old`)).toBeUndefined();
      expect(emu.keep.getPolicy("acl", `${door}-new`)).toBeDefined();
    }
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
  },
  ENGINE_TIMEOUT,
);

test(
  "deletedWith and dependsOn: destroy sends no delete for a resource deleted with its owner, and deletes a dependent before what it depends on; an object read with get is read, never deleted, both doors",
  async () => {
    await project.stack("delete-order", bothDoors(emu).config, bothDoors(emu).secrets);
    for (const door of ["dyn", "plug"]) emu.keep.putPolicy("acl", `${door}-outside`, { policy: rule("deny") });
    project.write(
      "index.ts",
      program((door, ns) =>
        [
          `const ${door}Owner = new ${ns}.keep.AclPolicy("${door}-owner", { name: "${door}-owner", policy: ${JSON.stringify(rule("read"))} });`,
          `new ${ns}.keep.AclPolicy("${door}-part", { name: "${door}-part", policy: ${JSON.stringify(rule("read"))} }, { deletedWith: ${door}Owner });`,
          `new ${ns}.keep.AclPolicy("${door}-after", { name: "${door}-after", policy: ${JSON.stringify(rule("read"))} }, { dependsOn: ${door}Owner });`,
          `${ns}.keep.AclPolicy.get("${door}-outside", "${door}-outside");`,
        ].join("\n"),
      ),
    );
    const up = await project.pulumi(["up", "--yes", "--skip-preview", "--json"]);
    expect(stepsOf(up).filter((s) => s.name.endsWith("-outside")).map((s) => s.op)).toEqual(["read", "read"]);
    emu.clearLogs();
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
    const deletes = emu.keep.log.lines().filter((l) => l.startsWith("DELETE"));
    for (const door of ["dyn", "plug"]) {
      const at = (name: string) => deletes.indexOf(`DELETE /v1/sys/policies/acl/${door}-${name}`);
      expect({ door, part: at("part"), outside: at("outside"), afterFirst: at("after") >= 0 && at("after") < at("owner") }).toEqual({ door, part: -1, outside: -1, afterFirst: true });
      expect(emu.keep.getPolicy("acl", `${door}-outside`)?.policy).toBe(rule("deny"));
      // Out of the state, left on the service: the owner's delete would have taken it, had it been part of it.
      expect(emu.keep.getPolicy("acl", `${door}-part`)).toBeDefined();
      emu.keep.deletePolicy("acl", `${door}-part`);
    }
  },
  ENGINE_TIMEOUT,
);

test(
  "tokens set with pulumi config set --secret: encrypted in the stack file and the state; the resources hold none; given in the environment instead, the state holds none at all",
  async () => {
    const tokens = [emu.keep.rootToken, emu.workspaces.tokens.user, emu.mesh.rootToken, emu.clusters.dr.rootToken];
    const declare = program((door, ns) => `new ${ns}.keep.AclPolicy("${door}-readers", { name: "${door}-readers", policy: ${JSON.stringify(rule("read"))} });`);
    project.write("index.ts", declare);
    await project.stack("tokens", bothDoors(emu).config, bothDoors(emu).secrets);
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    const stackFile = project.read("Pulumi.tokens.yaml");
    expect(stackFile).toMatch(/keepstack:keepToken:\n\s+secure: /);
    expect(stackFile).toMatch(/keep:token:\n\s+secure: /);
    for (const token of tokens) expect(stackFile).not.toContain(token);
    const holding = (resources: { urn: string }[]) => resources.filter((r) => tokens.some((t) => JSON.stringify(r).includes(t))).map((r) => r.urn.split("::")[2]);
    // Encrypted as every secret setting is; --show-secrets decrypts the copy of the stack's settings the
    // engine keeps in each default provider's inputs, as it does for any provider; no resource holds one.
    expect(holding((await project.exportStack(false)).deployment.resources!)).toEqual([]);
    expect(holding((await project.exportStack(true)).deployment.resources!).sort()).toEqual(["pulumi:providers:keepstack", "pulumi:providers:pulumi-nodejs"]);

    // The tokens in the environment of `pulumi` instead: nothing of them reaches the state. The first
    // stack's objects go first: a second stack never takes them over.
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
    const env = { KEEP_TOKEN: emu.keep.rootToken, WORKSPACES_TOKEN: emu.workspaces.tokens.user, MESH_HTTP_TOKEN: emu.mesh.rootToken };
    const settings = Object.fromEntries(Object.entries(bothDoors(emu).config).filter(([key]) => !/[Tt]oken$/.test(key)));
    await project.stack("tokens-env", settings);
    project.write("index.ts", declare);
    await project.pulumi(["up", "--yes", "--skip-preview"], { env });
    expect(emu.keep.getPolicy("acl", "plug-readers")).toBeDefined();
    expect(holding((await project.exportStack(true)).deployment.resources!)).toEqual([]);
  },
  ENGINE_TIMEOUT,
);

test(
  "an address that is no URL and a retry count that is no number are refused in one preview through both doors, each naming its key and rule in a plain message",
  async () => {
    const bad = { ...bothDoors(emu).config, "keep:address": "not a url", "keepstack:keepAddress": "not a url", "keep:maxRetries": "many", "keepstack:keepMaxRetries": "many" };
    await project.stack("bad-address", bad, bothDoors(emu).secrets);
    const expected = {
      dyn: [
        `error: pulumi-nodejs:dynamic/keep:AclPolicy resource 'dyn-readers' has a problem: keep:address (or KEEP_ADDR) must be an http:// or https:// URL, such as https://keep.example.com:8200 (got "not a url"); keep:maxRetries (or KEEP_MAX_RETRIES) must be a number >= 0, got "many"`,
      ],
      plug: [
        `error: pulumi:providers:keepstack resource 'default_0_1_0' has a problem: keepstack:keepAddress (or KEEP_ADDR) must be an http:// or https:// URL, such as https://keep.example.com:8200 (got "not a url")`,
        `error: pulumi:providers:keepstack resource 'default_0_1_0' has a problem: keepstack:keepMaxRetries must be a whole number (0 or more), got "many"`,
      ],
    };
    for (const door of ["dyn", "plug"] as const) {
      project.write("index.ts", program((d, ns) => (d === door ? `new ${ns}.keep.AclPolicy("${d}-readers", { name: "${d}-readers", policy: ${JSON.stringify(rule("read"))} });` : "")));
      emu.clearLogs();
      const refused = await project.pulumi(["preview"], { expect: "failure" });
      for (const line of expected[door]) expect(refused.output).toContain(line);
      expect(emu.requestCount()).toBe(0);
    }
  },
  ENGINE_TIMEOUT,
);

test(
  "verbose logs (-v=9): no token, no value given by reference; a secret value given directly is in the Node.js SDK's RegisterResource line, through either door (README, Configuration)",
  async () => {
    await project.stack("verbose", bothDoors(emu).config, bothDoors(emu).secrets);
    await project.setConfig({ "app:awsSecret": "by-reference-value" }, ["app:awsSecret"]);
    project.write(
      "index.ts",
      [
        'import * as dynamic from "pulumi-keepstack";',
        'import * as plugin from "@keepstack/pulumi-keepstack";',
        'new dynamic.keep.kv.Secret("dyn-verbose", { path: "verbose/dyn", data: { password: "dyn-verbose-value" } });',
        'new plugin.keep.KvSecret("plug-verbose", { path: "verbose/plug", data: { password: "plug-verbose-value" } });',
        'new dynamic.keep.sync.CloudASmDestination("dyn-ref", { name: "verbose-ref", region: "eu-west-1", accessKeyId: "AKIAVERBOSE", secretAccessKey: { fromConfig: "app:awsSecret" } });',
        "",
      ].join("\n"),
    );
    const ran = await project.pulumi(["up", "--yes", "--skip-preview", "-v=9", "--logtostderr"]);
    for (const value of ["dyn-verbose-value", "plug-verbose-value"]) {
      expect([value, ran.output.split("\n").some((l) => l.includes("RegisterResource RPC finished") && l.includes(value))]).toEqual([value, true]);
    }
    expect(ran.output).not.toContain("by-reference-value");
    for (const token of [emu.keep.rootToken, emu.workspaces.tokens.user]) expect(ran.output).not.toContain(token);
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
  },
  ENGINE_TIMEOUT,
);

test(
  "a changed address is never silent: the dynamic door refuses preview, refresh and destroy naming both addresses, the plugin replaces its objects on the new cluster; previousAddresses says it is the same cluster",
  async () => {
    const [a, b] = [emu.keep.url, emu.clusters.dr.url];
    const at = (url: string) => ({ "keep:address": url, "keep:token": url === a ? emu.keep.rootToken : emu.clusters.dr.rootToken });
    const plugAt = (url: string) => ({ "keepstack:keepAddress": url, "keepstack:keepToken": url === a ? emu.keep.rootToken : emu.clusters.dr.rootToken });
    const secrets = ["keep:token", "keepstack:keepToken"];
    const declare = (only: "dyn" | "plug") => program((door, ns) => (door === only ? `new ${ns}.keep.AclPolicy("${door}-moved", { name: "${door}-moved", policy: ${JSON.stringify(rule("read"))} });` : ""));

    // The dynamic door: a command that runs the program with the new address is refused, before any
    // request. Refresh and destroy run the provider with the settings the state holds for it: the old
    // ones until an up records the new, then refused alike, never taking the object for gone.
    await project.stack("moved-dyn", bothDoors(emu).config, bothDoors(emu).secrets);
    project.write("index.ts", declare("dyn"));
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    await project.setConfig(at(b), secrets);
    const said = `keep:AclPolicy "dyn-moved" was made at ${a}, and keep:address (or KEEP_ADDR) now names ${b}`;
    emu.clearLogs();
    expect((await project.pulumi(["preview"], { expect: "failure" })).output).toContain(said);
    expect((await project.pulumi(["preview", "--refresh"], { expect: "failure" })).output).toContain(said);
    expect(countSteps(stepsOf(await project.pulumi(["refresh", "--yes", "--skip-preview", "--json"])))).toEqual({ same: 1 });
    expect((await project.pulumi(["up", "--yes", "--skip-preview"], { expect: "failure" })).output).toContain(said);
    expect((await project.pulumi(["refresh", "--yes", "--skip-preview"], { expect: "failure" })).output).toContain(`keep:AclPolicy "dyn-moved": read failed: ${said}`);
    expect((await project.pulumi(["destroy", "--yes", "--skip-preview"], { expect: "failure" })).output).toContain(`keep:AclPolicy "dyn-moved": delete failed: ${said}`);
    expect(emu.clusters.dr.log.count).toBe(0);
    expect(emu.keep.getPolicy("acl", "dyn-moved")).toBeDefined();
    // The user says b is the same cluster: nothing to plan.
    await project.setConfig({ "keep:previousAddresses": a });
    expect(planOf(await project.pulumi(["preview", "--json"])).changes).toEqual({});
    // Back at a: an up records it for the provider, and destroy deletes the object where it lives.
    await project.pulumi(["config", "rm", "keep:previousAddresses"]);
    await project.setConfig(at(a), secrets);
    expect(countSteps(stepsOf(await project.pulumi(["up", "--yes", "--skip-preview", "--json"])))).toEqual({ same: 1 });
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(emu.keep.getPolicy("acl", "dyn-moved")).toBeUndefined();

    // The plugin: the engine replaces the default provider's objects, the old ones deleted at a.
    await project.stack("moved-plug", bothDoors(emu).config, bothDoors(emu).secrets);
    project.write("index.ts", declare("plug"));
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    await project.setConfig(plugAt(b), secrets);
    const plan = planOf(await project.pulumi(["preview", "--json"]));
    expect(plan.steps.filter((s) => s.name === "plug-moved").map((s) => s.op)).toEqual(["replace"]);
    await project.pulumi(["up", "--yes", "--skip-preview"]);
    expect(emu.keep.getPolicy("acl", "plug-moved")).toBeUndefined();
    expect(emu.clusters.dr.getPolicy("acl", "plug-moved")).toBeDefined();
    await project.pulumi(["destroy", "--yes", "--skip-preview"]);
    expect(emu.clusters.dr.getPolicy("acl", "plug-moved")).toBeUndefined();
  },
  ENGINE_TIMEOUT,
);
