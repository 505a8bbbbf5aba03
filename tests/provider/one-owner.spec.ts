/**
 * One owner (ARCHITECTURE.md), through both doors: a create never writes over an object it did not make,
 * and an object a create may have made stays its own. The registry-wide form is the fault matrix's
 * `takeover` runs; these are the cases a user meets, told in full: a refused create, a lost answer,
 * an owner the service records (adoption by another stack, `takeOver`, a leftover taken back), a moved address.
 */
import { keep, mesh as mesh_ } from "pulumi-keepstack";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { MeshEmulator, startMeshEmulator } from "../../emulator/mesh";
import { Engine, EngineError, Program, summarize } from "../../harness";
import { pluginResource, settingsOfDoor } from "../support/plugin-sdk";

type Door = "dynamic" | "plugin";
const DOORS: Door[] = ["dynamic", "plugin"];
const POLICY = 'path "secret/*" { capabilities = ["read"] }';
const THEIRS = 'path "secret/*" { capabilities = ["deny"] }';

const policy = (door: Door, name: string, extra: Record<string, unknown> = {}): Program => () => {
  if (door === "plugin") pluginResource("keep:AclPolicy", name, { name, policy: POLICY, ...extra });
  else new keep.AclPolicy(name, { name, policy: POLICY, ...extra });
};

const secret = (door: Door, name: string, data: Record<string, string>): Program => () => {
  if (door === "plugin") pluginResource("keep:KvSecret", name, { path: name, data });
  else new keep.kv.Secret(name, { path: name, data });
};

let emu: KeepEmulator;
beforeAll(async () => {
  emu = await startKeepEmulator();
});
afterAll(() => emu?.close());

describe.each(DOORS)("through the %s door", (door) => {
  const engineWith = (values: Record<string, string> = {}) =>
    new Engine({ project: "one-owner", config: settingsOfDoor(door, { "keep:address": emu.url, "keep:token": emu.rootToken, ...values }) });

  test("a policy someone else made is refused by name and left as it was; adopt takes it over, said in the program", async () => {
    const name = `shared-${door}`;
    emu.putPolicy("acl", name, { policy: THEIRS });
    const engine = engineWith();
    try {
      const error = (await engine.up(policy(door, name)).catch((e) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.errors.join("\n")).toContain(`keep:AclPolicy "${name}": create failed: the service already holds keep:AclPolicy "${name}", and this stack's state does not`);
      expect(emu.getPolicy("acl", name)?.policy).toBe(THEIRS);
      expect(engine.state.size).toBe(0);
      // A refused create leaves no note in the create journal: the next up is refused as well.
      expect(((await engine.up(policy(door, name)).catch((e) => e)) as EngineError).errors?.join("\n")).toContain("already holds");
      expect(emu.getPolicy("acl", name)?.policy).toBe(THEIRS);

      expect(summarize((await engine.up(policy(door, name, { adopt: true }))).steps)).toEqual({ create: 1 });
      expect(emu.getPolicy("acl", name)?.policy).toBe(POLICY);
      await engine.destroy();
    } finally {
      await engine.close();
    }
  });

  test("a key-value secret someone else wrote is refused by the service (cas 0): no version is added", async () => {
    const name = `theirs-${door}`;
    const writer = engineWith();
    try {
      // Another stack's secret, version 1.
      await writer.up(secret(door, name, { owner: "them" }));
    } finally {
      await writer.close();
    }
    const engine = engineWith();
    try {
      const error = (await engine.up(secret(door, name, { owner: "us" })).catch((e) => e)) as EngineError;
      expect(error.errors.join("\n")).toMatch(new RegExp(`keep:KvSecret "secret/${name}": create failed: the service already holds keep:KvSecret "secret/${name}" \\(POST /v1/secret/data/${name} answered 400: check-and-set parameter did not match the current version\\)`));
      // The refused write (cas 0) leaves no note in the create journal: the next up is refused as well.
      expect(((await engine.up(secret(door, name, { owner: "us" })).catch((e) => e)) as EngineError).errors?.join("\n")).toContain("already holds");
      // Read through the dynamic door's `get`, whatever the door of the case.
      const reader = new Engine({ project: "one-owner", config: { "keep:address": emu.url, "keep:token": emu.rootToken } });
      try {
        const read = await reader.up(() => ({ data: keep.kv.Secret.get("read", `secret/${name}`).data, version: keep.kv.Secret.get("read-version", `secret/${name}`).version }));
        expect(read.outputs).toMatchObject({ data: { owner: "them" }, version: 1 });
      } finally {
        await reader.close();
      }
    } finally {
      await engine.close();
    }
  });

  test("a policy (no room for an owner record) this resource made in a run whose state was lost is taken back through the create journal; once destroyed, the same name made by someone else is refused", async () => {
    const name = `journal-${door}`;
    const engine = engineWith();
    try {
      await engine.up(policy(door, name));
      // The run that made it was cut short before the state recorded it.
      engine.state.clear();
      const back = await engine.up(policy(door, name));
      expect(summarize(back.steps)).toEqual({ create: 1 });
      expect(back.diagnostics.join("\n")).toContain(`keep:AclPolicy "${name}": this machine's create journal notes it as made by this resource (Pulumi stack one-owner/dev, resource ${name}) in a run that did not finish: taken back into the state`);
      expect(summarize((await engine.preview(policy(door, name))).steps)).toEqual({ same: 1 });

      // The destroy settles the journal: the name, made again by someone else, is theirs.
      await engine.destroy();
      emu.putPolicy("acl", name, { policy: THEIRS });
      const said = ((await engine.up(policy(door, name)).catch((e) => e)) as EngineError).errors.join("\n");
      expect(said).toContain(`keep:AclPolicy "${name}": create failed: the service already holds keep:AclPolicy "${name}"`);
      expect(emu.getPolicy("acl", name)?.policy).toBe(THEIRS);
    } finally {
      await engine.close();
    }
  });

  test("a key-value secret (refused by the service, cas 0) this resource wrote in a run whose state was lost is taken back through the create journal, with no new version", async () => {
    const name = `journal-kv-${door}`;
    const engine = engineWith();
    try {
      await engine.up(secret(door, name, { owner: "us" }));
      engine.state.clear();
      emu.log.clear();
      const back = await engine.up(secret(door, name, { owner: "us" }));
      expect(summarize(back.steps)).toEqual({ create: 1 });
      expect(back.diagnostics.join("\n")).toContain(`keep:KvSecret "secret/${name}": this machine's create journal notes it as made by this resource`);
      // The refused write (cas 0) was the only one: no version was added.
      expect(emu.log.entries.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST /v1/secret/data/${name} 400`]);
      expect(summarize((await engine.preview(secret(door, name, { owner: "us" }))).steps)).toEqual({ same: 1 });
      await engine.destroy();
    } finally {
      await engine.close();
    }
  });

  test("a create whose every attempt got no answer, while the service acted, stays in the state: the next up converges without a refusal", async () => {
    const name = `unanswered-${door}`;
    // The service acts on each attempt, after the client gave up on it.
    emu.faults.inject({ times: 2, match: new RegExp(`^(PUT|POST) .*acl/${name}$`), holdUntilAborted: true });
    const engine = engineWith({ "keep:timeoutSeconds": "0.5", "keep:maxRetries": "1", "keep:retryBaseDelayMs": "1" });
    try {
      const error = (await engine.up(policy(door, name)).catch((e) => e)) as EngineError;
      expect(error.errors.join("\n")).toMatch(/The object may have been made: the state keeps it, so the next up writes it again/);
      expect(emu.getPolicy("acl", name)?.policy).toBe(POLICY);
      expect([...engine.state.values()].map((r) => r.id)).toEqual([name]);

      emu.faults.clear();
      expect(summarize((await engine.up(policy(door, name))).steps)).toEqual({ update: 1 });
      expect(summarize((await engine.preview(policy(door, name))).steps)).toEqual({ same: 1 });
      await engine.destroy();
      expect(emu.getPolicy("acl", name)).toBeUndefined();
    } finally {
      emu.faults.clear();
      await engine.close();
    }
  });
});

describe.each(DOORS)("an owner the service records (a partition's description), through the %s door", (door) => {
  let mesh: MeshEmulator;
  beforeAll(async () => {
    mesh = await startMeshEmulator({ deletionDelayMs: 1 });
  });
  afterAll(() => mesh?.close());

  const stackOf = (stack: string) =>
    new Engine({ project: "owners", stack, config: settingsOfDoor(door, { "mesh:address": mesh.url, "mesh:token": mesh.rootToken, "mesh:retryBaseDelayMs": "1" }) });
  const partition = (name: string, description: string, extra: Record<string, unknown> = {}): Program => () => {
    if (door === "plugin") pluginResource("mesh:Partition", name, { name, description, ...extra });
    else new mesh_.Partition(name, { name, description, ...extra });
  };
  const errorsOf = async (run: Promise<unknown>) => ((await run.catch((e) => e)) as EngineError).errors?.join("\n") ?? "no error";
  const noteOf = (stack: string, name: string) => `(managed by Pulumi stack owners/${stack}, resource ${name})`;

  test("an adoption of another stack's object is refused naming that stack; takeOver moves it, and the old owner's destroy leaves it", async () => {
    const name = `shared-${door}`;
    const a = stackOf("team-a");
    const b = stackOf("team-b");
    try {
      await a.up(partition(name, "A's"));
      expect(mesh.getPartition(name)?.Description).toBe(`A's\n\n${noteOf("team-a", name)}`);

      // Without adopt: refused, naming the owner.
      const refusedCreate = await errorsOf(b.up(partition(name, "B's")));
      expect(refusedCreate).toMatch(new RegExp(`create failed: the service already holds mesh:Partition "${name}" \\(.*\\), managed by Pulumi stack owners/team-a, resource ${name}, and this stack's state does not`));
      // With adopt alone: refused too, in up, naming the stack and the way to take it over; nothing written.
      mesh.log.clear();
      const refusedAdopt = await errorsOf(b.up(partition(name, "B's", { adopt: true })));
      expect(refusedAdopt).toContain(`mesh:Partition "${name}" is managed by Pulumi stack owners/team-a, resource ${name} (the service records it), so it was not adopted`);
      expect(refusedAdopt).toContain("`adopt: true, takeOver: true`");
      expect(mesh.log.entries.filter((e) => e.method !== "GET")).toEqual([]);
      expect(mesh.getPartition(name)?.Description).toBe(`A's\n\n${noteOf("team-a", name)}`);
      expect(b.state.size).toBe(0);

      // Taken over: converged, recorded as B's, said out loud.
      const taken = await b.up(partition(name, "B's", { adopt: true, takeOver: true }));
      expect(taken.diagnostics.join("\n")).toContain(`taken over from Pulumi stack owners/team-a, resource ${name}`);
      expect(mesh.getPartition(name)?.Description).toBe(`B's\n\n${noteOf("team-b", name)}`);

      // A's refresh says it is no longer A's; A's destroy leaves it to B.
      expect((await a.refresh()).diagnostics.join("\n")).toContain("this stack no longer owns it");
      const destroyed = await a.destroy();
      expect(destroyed.diagnostics.join("\n")).toContain(`left on the service, which records it as managed by Pulumi stack owners/team-b, resource ${name}`);
      expect(a.state.size).toBe(0);
      expect(mesh.getPartition(name)?.Description).toBe(`B's\n\n${noteOf("team-b", name)}`);
      await b.destroy();
      expect(mesh.getPartition(name)).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("a stack's own object its state lost (a run cut short) is taken back by the same resource, said so; another resource of the stack is refused", async () => {
    const name = `leftover-${door}`;
    const a = stackOf("team-a");
    try {
      await a.up(partition(name, "mine"));
      // The run that made it was cut short before the state recorded it.
      a.state.clear();
      const back = await a.up(partition(name, "mine"));
      expect(summarize(back.steps)).toEqual({ create: 1 });
      expect(back.diagnostics.join("\n")).toContain(`mesh:Partition "${name}": the service records it as made by this resource (Pulumi stack owners/team-a, resource ${name}) in a run that did not finish: taken back into the state`);
      expect(summarize((await a.preview(partition(name, "mine"))).steps)).toEqual({ same: 1 });

      // The same object under another resource name is someone else's to that resource.
      const other = stackOf("team-a");
      try {
        const said = await errorsOf(
          other.up(() => {
            if (door === "plugin") pluginResource("mesh:Partition", "another", { name, description: "mine" });
            else new mesh_.Partition("another", { name, description: "mine" });
          }),
        );
        expect(said).toMatch(new RegExp(`create failed: the service already holds mesh:Partition "${name}" \\(.*\\), managed by Pulumi stack owners/team-a, resource ${name}, and this stack's state does not`));
      } finally {
        await other.close();
      }
      await a.destroy();
      expect(mesh.getPartition(name)).toBeUndefined();
    } finally {
      await a.close();
    }
  });

  test("takeOver without adopt is refused in preview, naming the input, with no request", async () => {
    const a = stackOf("team-a");
    try {
      mesh.log.clear();
      const said = await errorsOf(a.preview(partition(`lonely-${door}`, "", { takeOver: true })));
      expect(said).toMatch(/takeOver: takes over an object at its adoption: set adopt: true with it/);
      expect(mesh.log.count).toBe(0);
    } finally {
      await a.close();
    }
  });
});

describe("a changed address, through the dynamic door", () => {
  let other: KeepEmulator;
  beforeAll(async () => {
    other = await startKeepEmulator();
  });
  afterAll(() => other?.close());

  test("preview, refresh and destroy are refused, naming the object and both addresses; the same cluster is told by previousAddresses or a trailing slash", async () => {
    const name = "moved-dynamic";
    const settingsAt = (url: string, extra: Record<string, string> = {}) => ({ "keep:address": url, "keep:token": url.startsWith(emu.url) ? emu.rootToken : other.rootToken, ...extra });
    const engine = new Engine({ project: "one-owner", config: settingsAt(emu.url) });
    try {
      await engine.up(policy("dynamic", name));
      const said = `keep:AclPolicy "${name}" was made at ${emu.url}, and keep:address (or KEEP_ADDR) now names ${other.url}`;
      await engine.setConfig(settingsAt(other.url));
      const errorOf = async (run: Promise<unknown>) => ((await run.catch((e) => e)) as EngineError).errors?.join("\n") ?? "";
      other.log.clear();
      expect(await errorOf(engine.preview(policy("dynamic", name)))).toContain(said);
      expect(await errorOf(engine.refresh())).toContain(`keep:AclPolicy "${name}": read failed: ${said}`);
      expect(await errorOf(engine.destroy())).toContain(`keep:AclPolicy "${name}": delete failed: ${said}`);
      expect(other.log.count).toBe(0);
      expect(emu.getPolicy("acl", name)).toBeDefined();
      expect(engine.state.size).toBe(1);

      // Said to be the same cluster: nothing refused, nothing planned.
      await engine.setConfig(settingsAt(other.url, { "keep:previousAddresses": `https://elsewhere.example, ${emu.url}` }));
      expect(summarize((await engine.preview(policy("dynamic", name))).steps)).toEqual({ same: 1 });
      // An address written with a trailing slash names the same cluster.
      await engine.setConfig(settingsAt(`${emu.url}/`));
      expect(summarize((await engine.preview(policy("dynamic", name))).steps)).toEqual({ same: 1 });
      await engine.destroy();
      expect(emu.getPolicy("acl", name)).toBeUndefined();
    } finally {
      await engine.close();
    }
  });
});
