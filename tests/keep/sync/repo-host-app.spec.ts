/** keep.sync.RepoHostApp through the provider host: fingerprint, a key replaced out of band, destroy refused while used. */
import { generateKeyPairSync } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { keep } from "pulumi-keepstack";
import { keyFingerprint as emulatorFingerprint, syncOf } from "../../../emulator/keep/sync";
import { keyFingerprint } from "../../../resources/keep/sync/repo-host-app";
import { EngineError, summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";

const newKey = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();

describe("keep.sync.RepoHostApp", () => {
  let stack: KeepStack;
  const key1 = newKey();
  const key2 = newKey();
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());
  const app = (name: string) => syncOf(stack.keep).app(name);
  const program = (name: string, appId: number | string, privateKey: unknown, extra: Record<string, unknown> = {}) => () => {
    const a = new keep.sync.RepoHostApp("ci", { name, appId, privateKey, ...extra } as never);
    return { fingerprint: a.fingerprint };
  };

  test("the provider computes the fingerprint as the service does", () => {
    expect(keyFingerprint(key1)).toBe(emulatorFingerprint(key1));
    expect(keyFingerprint(key1)).not.toBe(keyFingerprint(key2));
    expect(keyFingerprint(key1)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  test("preview sends nothing; a bad app ID fails in preview naming it", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("ci-app", 1234, key1))).steps)).toEqual({ create: 1 });
    const error = (await stack.engine.preview(program("ci-app", "12ab", key1)).catch((e) => e)) as EngineError;
    expect(error.message).toMatch(/appId: /);
    expect(stack.keep.log.count).toBe(0);
  });

  test("up writes it; the fingerprint is an output; preview again changes nothing", async () => {
    const up = await stack.engine.up(program("ci-app", 1234, key1));
    expect(up.outputs).toEqual({ fingerprint: keyFingerprint(key1) });
    expect(app("ci-app")).toMatchObject({ app_id: 1234, fingerprint: keyFingerprint(key1) });
    expect([...stack.engine.state.values()][0].secretOutputs).toContain("privateKey");
    expect(summarize((await stack.engine.preview(program("ci-app", 1234, key1))).steps)).toEqual({ same: 1 });
    expect(summarize((await stack.engine.refresh()).steps)).toEqual({ same: 1 });
  });

  test("a new app ID is written in place; a new name replaces it", async () => {
    expect((await stack.engine.up(program("ci-app", "5678", key1))).steps[0]).toMatchObject({ op: "update", diffs: ["appId"] });
    expect(app("ci-app")?.app_id).toBe(5678);
    expect((await stack.engine.up(program("ci-app-2", 5678, key1))).steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    expect(app("ci-app")).toBeUndefined();
    expect(app("ci-app-2")?.app_id).toBe(5678);
  });

  test("a key replaced behind the program's back is seen by its fingerprint and written back", async () => {
    syncOf(stack.keep).putApp("ci-app-2", 5678, key2);
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps[0]).toMatchObject({ op: "update", diffs: expect.arrayContaining(["privateKey", "fingerprint"]) });
    expect((await stack.engine.preview(program("ci-app-2", 5678, key1))).steps[0]).toMatchObject({ op: "update", diffs: ["privateKey"] });
    await stack.engine.up(program("ci-app-2", 5678, key1));
    expect(app("ci-app-2")?.fingerprint).toBe(keyFingerprint(key1));
    expect(summarize((await stack.engine.refresh()).steps)).toEqual({ same: 1 });
  });

  test("a key given by reference: the same comparison, and the key never enters state", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "repo-host-app-"));
    const file = path.join(dir, "app.pem");
    fs.writeFileSync(file, key1);
    try {
      await stack.engine.up(program("ci-app-2", 5678, { fromFile: file }));
      syncOf(stack.keep).putApp("ci-app-2", 5678, key2);
      expect((await stack.engine.refresh()).steps[0]).toMatchObject({ op: "update", diffs: expect.arrayContaining(["privateKey"]) });
      await stack.engine.up(program("ci-app-2", 5678, { fromFile: file }));
      expect(app("ci-app-2")?.fingerprint).toBe(keyFingerprint(key1));
      expect(JSON.stringify(stack.engine.exportState())).not.toContain(key1.split("\n")[1]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("destroy is refused while a destination uses the app, naming it; done once it does not", async () => {
    const used = await fetch(`${stack.keep.url}/v1/sys/sync/destinations/repohost/uses-app`, {
      method: "POST",
      headers: { "X-Keep-Token": stack.keep.rootToken },
      body: JSON.stringify({ app_name: "ci-app-2", installation_id: "7", repository_owner: "acme", repository_name: "web" }),
    });
    expect(used.status).toBe(200);
    const error = (await stack.engine.destroy().catch((e) => e)) as EngineError;
    expect(error.message).toMatch(/custom application "ci-app-2" is used by destination repohost\/uses-app/);
    await fetch(`${stack.keep.url}/v1/sys/sync/destinations/repohost/uses-app`, { method: "DELETE", headers: { "X-Keep-Token": stack.keep.rootToken } });
    await stack.engine.destroy();
    expect(app("ci-app-2")).toBeUndefined();
  });

  test("an existing app is adopted and converged to the declared app ID", async () => {
    syncOf(stack.keep).putApp("legacy", 1, key1);
    stack.keep.log.clear();
    await stack.engine.up(program("legacy", 42, key1, { adopt: true }));
    expect(stack.keep.log.lines()).toEqual(["GET /v1/sys/sync/github-apps/legacy", "POST /v1/sys/sync/github-apps/legacy"]);
    expect(app("legacy")).toMatchObject({ app_id: 42, fingerprint: keyFingerprint(key1) });
    await stack.engine.destroy();
  });

  test("a repohost destination uses an app of the program, ordered by its outputs", async () => {
    await stack.engine.up(() => {
      const a = new keep.sync.RepoHostApp("ci", { name: "ci-app", appId: 9, privateKey: key1 });
      new keep.sync.RepoHostDestination("gh", { name: "gh", appName: a.name, installationId: 77, repositoryOwner: "acme", repositoryName: "web" });
    });
    expect(syncOf(stack.keep).destination({ type: "repohost", name: "gh" })?.connection).toMatchObject({ app_name: "ci-app", installation_id: "77" });
    expect(summarize((await stack.engine.destroy()).steps)).toEqual({ delete: 2 });
  });
});
