/** The import command: existing objects become a program that adopts them, and that program runs. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as path from "node:path";
import { keep } from "pulumi-keepstack";
import { importObjects, specOf } from "../../cli/import";
import { programText } from "../../cli/program-text";
import { createContext } from "../../provider/context";
import { summarize } from "../../harness";
import { KeepStack, startKeepStack } from "../support/keep-stack";

const TEXT = 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n';

describe("pulumi-keepstack import", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
    stack.keep.putPolicy("acl", "app-readers", { policy: TEXT });
    stack.keep.putPolicy("acl", "ops", { policy: 'path "sys/*" { capabilities = ["sudo"] }' });
    stack.keep.putPolicy("egp", "guard", { policy: "main = rule { true }", enforcement_level: "hard-mandatory", paths: ["secret/*", "transit/*"] });
  });
  afterAll(() => stack.close());

  const ctx = () => createContext((k) => ({ "keep:address": stack.keep.url, "keep:token": stack.keep.rootToken })[k], {});

  test("--all lists the objects of a type, leaving out the built-in policies", async () => {
    expect(await specOf("keep:AclPolicy").list!(ctx())).toEqual(["app-readers", "ops"]);
  });

  test("the printed program declares each object as it is, with adopt: true", async () => {
    const text = programText([
      ...(await importObjects(ctx(), specOf("keep.AclPolicy"), ["app-readers"])),
      ...(await importObjects(ctx(), specOf("pulumi-nodejs:dynamic/keep:EgpPolicy"), ["guard"])),
    ]);
    expect(text).toBe(`import { keep } from "pulumi-keepstack";

new keep.AclPolicy("app-readers", {
  name: "app-readers",
  policy: \`path "secret/data/app/*" {
  capabilities = ["read"]
}
\`,
  adopt: true,
});

new keep.EgpPolicy("guard", {
  name: "guard",
  policy: "main = rule { true }",
  enforcementLevel: "hard-mandatory",
  paths: ["secret/*", "transit/*"],
  adopt: true,
});
`);
  });

  test("running the printed program adopts the objects without changing them", async () => {
    const text = programText(await importObjects(ctx(), specOf("keep:AclPolicy"), ["app-readers", "ops"]));
    const body = text.replace(/^import .*\n/, "");
    const program = () => new Function("keep", body)(keep);
    stack.keep.log.clear();
    expect(summarize((await stack.engine.up(program)).steps)).toEqual({ create: 2 });
    expect(stack.keep.log.entries.filter((e) => e.method !== "GET")).toEqual([]);
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 2 });
  });

  test("the installed command prints the same, and fails clearly on an unknown ID or type", async () => {
    // Asynchronous: the emulator answering the command runs in this process.
    const run = promisify(execFile);
    const cli = path.join(__dirname, "..", "..", "dist", "cli", "main.js");
    const env = { ...process.env, KEEP_ADDR: stack.keep.url, KEEP_TOKEN: stack.keep.rootToken };
    const { stdout } = await run(process.execPath, [cli, "import", "keep:EgpPolicy", "--all"], { env });
    expect(stdout).toContain('new keep.EgpPolicy("guard", {');
    expect(stdout).not.toContain(stack.keep.rootToken);
    const fail = (args: string[]) =>
      run(process.execPath, [cli, ...args], { env }).then(
        () => "",
        (e: { stderr: string }) => e.stderr,
      );
    expect(await fail(["import", "keep:AclPolicy", "nope"])).toContain('no object with ID "nope" exists');
    expect(await fail(["import", "keep:Nothing", "x"])).toContain('unknown resource type "keep:Nothing"');
  });

  test("--all says what it found: none of a type is no error; a namespace that does not exist is, naming the setting", async () => {
    const run = promisify(execFile);
    const cli = path.join(__dirname, "..", "..", "dist", "cli", "main.js");
    const env = { ...process.env, KEEP_ADDR: stack.keep.url, KEEP_TOKEN: stack.keep.rootToken };
    const none = await run(process.execPath, [cli, "import", "keep:RgpPolicy", "--all"], { env });
    expect(none.stdout).toBe("");
    expect(none.stderr).toBe("no keep:RgpPolicy objects in the root namespace: nothing to import\n");

    const missing = { ...env, KEEP_NAMESPACE: "no-such-team" };
    const fail = (args: string[]) =>
      run(process.execPath, [cli, ...args], { env: missing }).then(
        () => "exited 0",
        (e: { stderr: string; code: number }) => `exited ${e.code}: ${e.stderr}`,
      );
    const reason = 'namespace "no-such-team" does not exist: check keep:namespace (or KEEP_NAMESPACE), or create it (POST sys/namespaces/no-such-team)';
    expect(await fail(["import", "keep:RgpPolicy", "--all"])).toContain(`exited 1: `);
    expect(await fail(["import", "keep:RgpPolicy", "--all"])).toContain(reason);
    expect(await fail(["import", "--all"])).toContain(reason);

    // A refused token gets the provider's advice: which setting to check.
    const refused = await run(process.execPath, [cli, "import", "keep:AclPolicy", "--all"], { env: { ...env, KEEP_TOKEN: "not-a-token" } }).then(
      () => "exited 0",
      (e: { stderr: string; code: number }) => `exited ${e.code}: ${e.stderr}`,
    );
    expect(refused).toContain("exited 1: error: keep: GET /v1/sys/policies/acl?list=true returned 403");
    expect(refused).toContain("the token was refused or lacks permission: check keep:token (or KEEP_TOKEN) and what it may do.");
  });
});
