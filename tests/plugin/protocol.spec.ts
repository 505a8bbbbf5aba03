/**
 * The plugin as a process, spoken to as the engine speaks to it: both ways the engine starts it
 * (the package's executable; the source-plugin folder through the Node.js language host's
 * `run-plugin`), run by hand, configuration checked and diffed, secrets and unknowns in requests,
 * tokens it does not know, and how it ends.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { startKeepEmulator, KeepEmulator } from "../../emulator/keep";
import { pluginExecutable, ProviderHost } from "../../harness/provider-host";
import { SECRET_SIG, SIG_KEY } from "../../provider/plugin/values";
import { UNKNOWN } from "../../provider/unknowns";
import { sdkModules } from "../../provider/plugin/sdk";
import { processGone } from "../support/process-exit";

const root = path.join(__dirname, "..", "..");
const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version as string;
const secret = (value: unknown) => ({ [SIG_KEY]: SECRET_SIG, value });
const urnOf = (type: string, name = "x") => `urn:pulumi:dev::protocol::${type}::${name}`;

/** Waits (up to 30 s) until the process is gone. */
const gone = (pid: number) => processGone(pid, 30);

describe("started as the engine starts it", () => {
  test.each([
    ["the package's executable", () => ({ file: pluginExecutable(root), args: [] as string[] })],
    ["the source-plugin folder, through the Node.js language host's run-plugin", () => ({ file: process.execPath, args: [path.join(sdkModules().sdkRoot, "cmd", "run-plugin"), path.join(root, "plugin")] })],
  ])("%s: prints its port, answers its version and its schema, and ends cleanly when closed", async (_how, command) => {
    const host = await ProviderHost.startPlugin({ cwd: root, project: "protocol", command: command() });
    const pid = host.pid!;
    try {
      expect(await host.getPluginInfo()).toBe(version);
      expect(await host.getSchema()).toBe(fs.readFileSync(path.join(root, "schema.json"), "utf8"));
    } finally {
      await host.close();
    }
    expect(await gone(pid)).toBe(true);
  });

  test("the folder's PulumiPlugin.yaml names the nodejs runtime and its package.json's main starts the plugin", () => {
    expect(fs.readFileSync(path.join(root, "plugin", "PulumiPlugin.yaml"), "utf8")).toMatch(/^runtime: nodejs$/m);
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "plugin", "package.json"), "utf8"));
    expect(fs.existsSync(path.join(root, "plugin", manifest.main))).toBe(true);
    expect(manifest.name).not.toBe("pulumi-keepstack");
  });

  test("its executable keeps Node.js's compile cache, in the system's temporary folder unless NODE_COMPILE_CACHE names one", () => {
    const tmp = fs.mkdtempSync(path.join(fs.realpathSync(require("node:os").tmpdir()), "keepstack-compile-cache-"));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
      delete env.NODE_COMPILE_CACHE;
      delete env.NODE_DISABLE_COMPILE_CACHE;
      const started = spawnSync(
        process.execPath,
        ["-e", `const c = require("child_process").spawn(${JSON.stringify(pluginExecutable(root))}, ["127.0.0.1:1"], { stdio: ["ignore", "pipe", "inherit"] }); c.stdout.once("data", () => { c.kill(); process.exit(0); });`],
        { encoding: "utf8", env },
      );
      expect(started.status).toBe(0);
      expect(fs.readdirSync(path.join(tmp, "node-compile-cache")).length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("it ends when the process that started it is gone, even if nobody closes it", async () => {
    // A parent that starts the plugin, prints its PID, and exits without closing it.
    const parent = spawnSync(
      process.execPath,
      ["-e", `const c = require("child_process").spawn(${JSON.stringify(pluginExecutable(root))}, ["127.0.0.1:1"], { stdio: ["ignore", "pipe", "ignore"], detached: false }); c.stdout.once("data", () => { console.log(c.pid); process.exit(0); });`],
      { encoding: "utf8" },
    );
    const pid = Number(parent.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await gone(pid)).toBe(true);
  });
});

describe("run by hand", () => {
  test("with no argument it says what it is and how it is used, serves on the port it prints, and takes an engine attaching", async () => {
    const child = spawn(pluginExecutable(root), [], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const stderr: string[] = [];
      readline.createInterface({ input: child.stderr! }).on("line", (l) => stderr.push(l));
      const port = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once("line", resolve));
      expect(port).toMatch(/^\d+$/);
      const sdk = sdkModules();
      const client = new sdk.providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, sdk.grpc.credentials.createInsecure());
      const attach = new sdk.plugin.PluginAttach();
      attach.setAddress("127.0.0.1:1");
      await new Promise<void>((resolve, reject) => client.attach(attach, (e: Error | null) => (e ? reject(e) : resolve())));
      client.close();
      const text = stderr.join("\n");
      expect(text).toMatch(/the keepstack resource provider plugin of Pulumi/);
      expect(text).toMatch(/PULUMI_DEBUG_PROVIDERS=keepstack:\d+/);
    } finally {
      child.kill("SIGINT");
    }
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
  });

  test("--help prints the usage and --version the version, and each ends", () => {
    const help = spawnSync(pluginExecutable(root), ["--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/pulumi-resource-keepstack <engine-address>/);
    const v = spawnSync(pluginExecutable(root), ["--version"], { encoding: "utf8" });
    expect(v.stdout.trim()).toBe(version);
  });
});

describe("the protocol", () => {
  let host: ProviderHost;
  let keep: KeepEmulator;
  const TOKEN = "super-secret-token-for-protocol-tests";
  beforeAll(async () => {
    keep = await startKeepEmulator();
    host = await ProviderHost.startPlugin({ cwd: root, project: "protocol" });
    await host.configure({ keepAddress: keep.url, keepToken: secret(TOKEN), keepMaxRetries: 0 });
  });
  afterAll(async () => {
    await host?.close();
    await keep?.close();
  });

  test("CheckConfig names each bad key with its rule in a plain sentence: a wrong type, a misspelt setting, an address that is no URL", async () => {
    const checked = await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, {
      keepMaxRetries: "several",
      keepSkipTlsVerify: "perhaps",
      keepAdress: "https://x",
      workspacesToken: secret("t"),
      dbPassword: "my own value, for a reference",
    });
    // No property: the engine prints a named property with the value it finds under that name.
    expect(checked.failures).toEqual([
      { property: "", reason: expect.stringMatching(/^keepstack:keepAdress is not a setting of keepstack: did you mean keepstack:keepAddress\?/) },
      { property: "", reason: 'keepstack:keepMaxRetries must be a whole number (0 or more), got "several"' },
      { property: "", reason: 'keepstack:keepSkipTlsVerify must be true or false, got "perhaps"' },
    ]);
    // The token stays secret in what CheckConfig answers.
    expect(checked.inputs.workspacesToken).toEqual(secret("t"));
    const address = await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, { keepAddress: "keep.example:8200" });
    expect(address.failures).toEqual([{ property: "", reason: 'keepstack:keepAddress (or KEEP_ADDR) must be an http:// or https:// URL: did you mean https://keep.example:8200? (got "keep.example:8200")' }]);
    const notUrl = await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, { keepAddress: "not a url" });
    expect(notUrl.failures).toEqual([{ property: "", reason: 'keepstack:keepAddress (or KEEP_ADDR) must be an http:// or https:// URL, such as https://keep.example.com:8200 (got "not a url")' }]);
    // Several bad settings of one service: each is named in the same answer.
    const both = await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, { keepAddress: "not a url", keepMaxRetries: "many" });
    expect(both.failures).toEqual([
      { property: "", reason: 'keepstack:keepMaxRetries must be a whole number (0 or more), got "many"' },
      { property: "", reason: 'keepstack:keepAddress (or KEEP_ADDR) must be an http:// or https:// URL, such as https://keep.example.com:8200 (got "not a url")' },
    ]);
    // Typed values, as generated SDKs and explicit providers send them, are taken as they are.
    expect((await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, { keepMaxRetries: 3, keepSkipTlsVerify: false, meshTimeoutSeconds: 2.5 })).failures).toEqual([]);
  });

  test("CheckConfig refuses no service for a setting nobody wrote: an SDK's defaults for a service without an address pass", async () => {
    // What a generated SDK sends for an explicit provider given only the secrets service's settings.
    const defaults = { keepAddress: "https://keep.example.com:8200", keepToken: secret("t"), workspacesMaxRetries: 4, workspacesSkipTlsVerify: false, meshAddress: "http://127.0.0.1:8500" };
    const checked = await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, defaults);
    expect(checked.failures).toEqual([]);
  });

  test("CheckConfig never fails the call, whatever the values", async () => {
    const odd = [null, 1.5, -1, "", [], {}, [1, "a"], { nested: { deep: true } }, UNKNOWN, secret(UNKNOWN), "x".repeat(10_000)];
    for (const value of odd) {
      for (const key of ["keepAddress", "keepMaxRetries", "keepSkipTlsVerify", "keepCaCert", "meshNeverHeardOf", "mine"]) {
        const checked = await host.checkConfig(urnOf("pulumi:providers:keepstack"), {}, { [key]: value });
        for (const f of checked.failures) expect(f.reason).toMatch(/^keepstack:/);
      }
    }
  });

  test("DiffConfig names the changed settings, replaces the provider when an address names another cluster, and answers no change when nothing changed", async () => {
    const urn = urnOf("pulumi:providers:keepstack");
    // The secrets service at another cluster: replaced. The mesh's address set to its default: the same cluster.
    const diff = await host.diffConfig(urn, { keepAddress: "https://a:8200", keepToken: secret("one") }, { keepAddress: "https://b:8200", keepToken: secret("two"), meshAddress: "http://127.0.0.1:8500" });
    expect(diff).toMatchObject({ changes: "some", replaces: ["keepAddress"], diffs: ["keepAddress", "keepToken", "meshAddress"], detailedDiff: { keepAddress: "update-replace", keepToken: "update", meshAddress: "add" } });
    // A token alone, the same cluster written otherwise, or a new address the settings call the same cluster: nothing replaced.
    expect((await host.diffConfig(urn, { keepAddress: "https://a:8200", keepToken: secret("one") }, { keepAddress: "https://A:8200/", keepToken: secret("two") })).replaces).toEqual([]);
    expect((await host.diffConfig(urn, { keepAddress: "https://a:8200" }, { keepAddress: "https://b:8200", keepPreviousAddresses: "https://a:8200" })).replaces).toEqual([]);
    expect((await host.diffConfig(urn, { keepAddress: "https://a:8200" }, { keepAddress: "https://a:8200" })).changes).toBe("none");
  });

  test("a refused token's error names the request and what to do, never the token; nor do the plugin's logs", async () => {
    const error = await host.create(urnOf("keepstack:keep:AclPolicy", "denied"), { name: "denied", policy: 'path "a" { capabilities = ["read"] }' }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/keep:AclPolicy "denied": create failed: .*(GET|PUT|POST) \/v1\/sys\/policies\/acl\/denied.*403.*keepstack:keepToken/);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(host.stderr.join("\n")).not.toContain(TOKEN);
  });

  test("a token it does not know: the error names the token and the installed version", async () => {
    const error = await host.check(urnOf("keepstack:keep:NoSuchType"), {}, {}).catch((e: Error) => e);
    expect((error as Error).message).toBe(`keepstack:keep:NoSuchType is not a resource type of keepstack ${version}: check the type token, or install the version of the package that has it`);
    const foreign = await host.check(urnOf("aws:s3:Bucket"), {}, {}).catch((e: Error) => e);
    expect((foreign as Error).message).toMatch(/^aws:s3:Bucket is not a resource type of keepstack/);
  });

  test("unknowns anywhere pass Check unrefused and make Diff say 'changes'; secrets anywhere keep their property secret", async () => {
    const urn = urnOf("keepstack:keep:KvSecret", "db");
    const checked = await host.check(urn, {}, { path: "app/db", data: { user: UNKNOWN, password: secret("pw") } });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.data).toEqual(secret({ user: UNKNOWN, password: "pw" }));
    const diff = await host.diff(urn, "app/db", { path: "app/db", data: { user: "u" } }, { path: "app/db", data: UNKNOWN }, { path: "app/db", data: { user: "u" } });
    expect(diff).toMatchObject({ changes: "some", diffs: ["data"], detailedDiff: { data: "update" } });
    const partly = await host.check(urnOf("keepstack:keep:AclPolicy"), {}, { name: UNKNOWN, policy: secret(UNKNOWN) });
    expect(partly.failures).toEqual([]);
  });

  test("Create and Update in a preview (as the engine sends them once Handshake is answered) send nothing and answer the checked inputs, unknowns and secrets kept", async () => {
    keep.log.clear();
    const urn = urnOf("keepstack:keep:AclPolicy", "planned");
    const inputs = { name: "planned", policy: secret(UNKNOWN) };
    const created = await host.create(urn, inputs, { preview: true });
    expect(created).toEqual({ id: "", properties: inputs });
    const updated = await host.update(urn, "planned", { name: "planned", policy: "old" }, { name: "planned", policy: 'path "b" { capabilities = ["read"] }' }, { name: "planned", policy: "old" }, { preview: true });
    expect(updated.properties).toEqual({ name: "planned", policy: 'path "b" { capabilities = ["read"] }' });
    expect(keep.log.count).toBe(0);
    expect(keep.listPolicies("acl")).not.toContain("planned");
  });

  test("Diff of equal inputs is no change, with an empty detailed diff", async () => {
    const urn = urnOf("keepstack:keep:AclPolicy", "same");
    const props = { name: "same", policy: 'path "a" { capabilities = ["read"] }' };
    expect(await host.diff(urn, "same", props, props, props)).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false, diffs: [], detailedDiff: {} });
  });
});
