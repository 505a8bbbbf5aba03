/**
 * keep.sync.Association through the provider host, with the key-value secret it syncs and its
 * destination: the status table (SYNCED, PENDING while disabled, failures with their cause), drift,
 * adoption, destroy with and without purge, and the requests each operation costs.
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { syncOf } from "../../../emulator/keep/sync";
import { EngineError, summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";
import { definedOutputs } from "../../support/outputs";

describe("keep.sync.Association", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());
  const sync = () => syncOf(stack.keep);
  const accessor = () => stack.keep.mounts().find((m) => m.path === "secret/")!.accessor;
  const external = () => sync().external({ type: "cloudA-sm", name: "aws" });
  const lines = () => stack.keep.log.lines();

  interface Options {
    secretName?: string;
    data?: Record<string, string>;
    purgeOnDestroy?: boolean;
    disabled?: boolean;
    adopt?: boolean;
  }
  const program = (o: Options = {}) => () => {
    const config = o.disabled === undefined ? undefined : new keep.sync.Config("sync", { disabled: o.disabled });
    const secret = new keep.kv.Secret("db", { path: o.secretName ?? "app/db", data: o.data ?? { user: "app", password: "pw-1" }, adopt: o.adopt });
    const destination = new keep.sync.CloudASmDestination("aws", { name: "aws", region: "eu-west-1", purgeOnDestroy: o.purgeOnDestroy, adopt: o.adopt });
    const association = new keep.sync.Association(
      "db-aws",
      { destinationType: destination.destinationType, destinationName: destination.name, mount: secret.mount, secretName: secret.path, adopt: o.adopt },
      { dependsOn: config ? [config] : [] },
    );
    return definedOutputs({ status: association.syncStatus });
  };

  test("preview plans the secret, the destination and the association without a request", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ create: 3 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("bad inputs fail in preview naming the property", async () => {
    stack.keep.log.clear();
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ destinationType: "cloudD-sm" }, /destinationType: must be one of cloudA-sm, cloudB-kv, cloudC-sm, repohost, webhost-project/],
      [{ secretName: "app/db." }, /secretName: must not have a segment ending in a period/],
      [{ destinationName: "a/b" }, /destinationName: destination name must not contain '\/'/],
      [{ synced: false }, /synced: must be true/],
    ];
    for (const [extra, reason] of bad) {
      const error = (await stack.engine
        .preview(() => new keep.sync.Association("x", { destinationType: "cloudA-sm", destinationName: "aws", secretName: "app/db", ...extra } as never))
        .catch((e) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.message).toMatch(reason);
    }
    expect(stack.keep.log.count).toBe(0);
  });

  test("up syncs the secret: one request for the association, SYNCED, the external secret written", async () => {
    stack.keep.log.clear();
    const up = await stack.engine.up(program());
    expect(up.outputs.status).toBe("SYNCED");
    // Each create reads first: it never writes over an object it did not make.
    expect(lines().filter((l) => l.includes("/associations"))).toEqual([
      "GET /v1/sys/sync/associations/destinations?mount=secret&secret_name=app%2Fdb",
      "POST /v1/sys/sync/destinations/cloudA-sm/aws/associations/set",
    ]);
    expect(lines().filter((l) => l.includes("/destinations/cloudA-sm/aws") && !l.includes("/associations"))).toEqual(["GET /v1/sys/sync/destinations/cloudA-sm/aws", "POST /v1/sys/sync/destinations/cloudA-sm/aws"]);
    expect(JSON.parse(external()[`keep/${accessor()}/app/db`].value)).toEqual({ user: "app", password: "pw-1" });
    const association = [...stack.engine.state.values()].find((r) => r.name === "db-aws")!;
    expect(association.id).toBe("cloudA-sm/aws/secret/app/db");
    expect(association.outputs).toMatchObject({ syncStatus: "SYNCED", accessor: accessor(), updatedAt: expect.stringMatching(/\.\d{9}Z$/) });
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program())).steps)).toEqual({ same: 3 });
    expect(stack.keep.log.count).toBe(0);
  });

  test("refresh reads each object with one request", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.refresh()).steps)).toEqual({ same: 3 });
    expect(lines().sort()).toEqual(
      [
        "GET /v1/secret/data/app/db",
        "GET /v1/sys/sync/destinations/cloudA-sm/aws",
        "GET /v1/sys/sync/associations/destinations?mount=secret&secret_name=app%2Fdb",
      ].sort(),
    );
  });

  test("a new version of the secret is synced; the association is unchanged", async () => {
    const up = await stack.engine.up(program({ data: { user: "app", password: "pw-2" } }));
    expect(summarize(up.steps)).toEqual({ update: 1, same: 2 });
    expect(JSON.parse(external()[`keep/${accessor()}/app/db`].value)).toEqual({ user: "app", password: "pw-2" });
  });

  test("another secret replaces the association: the old external secret goes, the new one is synced", async () => {
    const up = await stack.engine.up(program({ secretName: "app/cache", data: { url: "redis://x" } }));
    expect(up.steps.find((s) => s.name === "db-aws")).toMatchObject({ op: "replace", replaces: ["secretName"] });
    expect(Object.keys(external())).toEqual([`keep/${accessor()}/app/cache`]);
  });

  test("an association removed or failed behind the program's back is drift; the next up sets it again", async () => {
    const [association] = sync().associations();
    sync().dropAssociation(association);
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps.find((s) => s.name === "db-aws")).toMatchObject({ op: "update", diffs: expect.arrayContaining(["synced", "syncStatus"]) });
    expect((await stack.engine.preview(program({ secretName: "app/cache", data: { url: "redis://x" } }))).steps.find((s) => s.name === "db-aws")).toMatchObject({
      op: "update",
      diffs: ["synced"],
    });
    await stack.engine.up(program({ secretName: "app/cache", data: { url: "redis://x" } }));
    expect(sync().associations()).toEqual([expect.objectContaining({ secret_name: "app/cache", sync_status: "SYNCED" })]);

    sync().failDestination({ type: "cloudA-sm", name: "aws" }, "AccessDeniedException: not authorized to perform PutSecretValue");
    stack.keep.kv.write({ path: "app/cache" }, { url: "redis://y" });
    const failed = await stack.engine.refresh();
    expect(failed.steps.find((s) => s.name === "db-aws")).toMatchObject({ op: "update", diffs: expect.arrayContaining(["synced", "syncStatus", "cause"]) });
    const state = [...stack.engine.state.values()].find((r) => r.name === "db-aws")!;
    expect(state.outputs).toMatchObject({ syncStatus: "EXTERNAL_SERVICE_ERROR", cause: "AccessDeniedException: not authorized to perform PutSecretValue", synced: false });
    sync().repairDestination({ type: "cloudA-sm", name: "aws" });
    await stack.engine.up(program({ secretName: "app/cache", data: { url: "redis://y" } }));
    expect(external()[`keep/${accessor()}/app/cache`].value).toBe(JSON.stringify({ url: "redis://y" }));
    expect(summarize((await stack.engine.refresh()).steps)).toEqual({ same: 3 });
  });

  test("destroy removes the association (one request), then the destination and the secret", async () => {
    stack.keep.log.clear();
    const destroyed = await stack.engine.destroy();
    expect(summarize(destroyed.steps)).toEqual({ delete: 3 });
    expect(lines().filter((l) => l.includes("/associations"))).toEqual(["POST /v1/sys/sync/destinations/cloudA-sm/aws/associations/remove"]);
    expect(lines()).toContain("DELETE /v1/sys/sync/destinations/cloudA-sm/aws");
    expect(external()).toEqual({});
    expect(stack.keep.kv.read({ path: "app/cache" })).toBeUndefined();
  });

  test("create polls the status while the service is still syncing (1 request plus the polls)", async () => {
    sync().holdSyncing(2);
    stack.keep.log.clear();
    const up = await stack.engine.up(program());
    sync().holdSyncing(0);
    expect(up.outputs.status).toBe("SYNCED");
    expect(lines().filter((l) => l.includes("/associations"))).toEqual([
      "GET /v1/sys/sync/associations/destinations?mount=secret&secret_name=app%2Fdb",
      "POST /v1/sys/sync/destinations/cloudA-sm/aws/associations/set",
      "GET /v1/sys/sync/associations/destinations?mount=secret&secret_name=app%2Fdb",
      "GET /v1/sys/sync/associations/destinations?mount=secret&secret_name=app%2Fdb",
    ]);
  });

  test("an existing association is adopted with one read", async () => {
    stack.engine.state.clear();
    stack.keep.log.clear();
    const up = await stack.engine.up(program({ adopt: true }));
    expect(up.outputs.status).toBe("SYNCED");
    expect(lines().filter((l) => l.includes("/associations"))).toEqual(["GET /v1/sys/sync/associations/destinations?mount=secret&secret_name=app%2Fdb"]);
    await stack.engine.destroy();
    expect(sync().associations()).toEqual([]);
  });

  test("while sync is disabled the association waits PENDING, and reaches SYNCED once enabled again", async () => {
    const pending = await stack.engine.up(program({ disabled: true }));
    expect(pending.outputs.status).toBe("PENDING");
    expect(external()).toEqual({});
    expect(sync().config()).toEqual({ disabled: true, queueCapacity: 1000000, queued: 1 });
    expect(pending.diagnostics.join("\n")).toMatch(/PENDING: syncing is disabled/);
    // PENDING while disabled is what the program declared: no drift.
    expect(summarize((await stack.engine.refresh()).steps)).toEqual({ same: 4 });

    await stack.engine.up(program({ disabled: false }));
    expect(Object.keys(external())).toEqual([`keep/${accessor()}/app/db`]);
    // Its status moved as the service worked: computed, no change an up would undo.
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps.find((s) => s.name === "db-aws")).toMatchObject({ op: "same", diffs: expect.arrayContaining(["syncStatus"]) });
    expect([...stack.engine.state.values()].find((r) => r.name === "db-aws")!.outputs.syncStatus).toBe("SYNCED");
    await stack.engine.destroy();
    expect(sync().config()).toEqual({ disabled: false, queueCapacity: 1000000, queued: 0 });
  });

  test("a failing destination fails the create with the service's cause; the association stays in state and a later up repairs it", async () => {
    await stack.engine.up(() => {
      new keep.sync.CloudASmDestination("aws", { name: "aws", region: "eu-west-1" });
    });
    sync().failDestination({ type: "cloudA-sm", name: "aws" }, "ResourceNotFoundException: region eu-west-1 is not enabled");
    const error = (await stack.engine.up(program()).catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(/keep:SyncAssociation "cloudA-sm\/aws\/secret\/app\/db": create failed: .*EXTERNAL_SERVICE_ERROR: ResourceNotFoundException: region eu-west-1 is not enabled/);
    const kept = [...stack.engine.state.values()].find((r) => r.name === "db-aws")!;
    expect(kept.initErrors).toEqual(["the service reports status EXTERNAL_SERVICE_ERROR: ResourceNotFoundException: region eu-west-1 is not enabled"]);

    sync().repairDestination({ type: "cloudA-sm", name: "aws" });
    const repaired = await stack.engine.up(program());
    expect(repaired.steps.find((s) => s.name === "db-aws")).toMatchObject({ op: "update" });
    expect(repaired.outputs).toEqual({ status: "SYNCED" });
  });

  test("an association to a destination that does not exist fails naming destinationName and the request", async () => {
    const error = (await stack.engine
      .up(() => new keep.sync.Association("nowhere", { destinationType: "cloudA-sm", destinationName: "nowhere", secretName: "app/db" }))
      .catch((e) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    expect(error.message).toMatch(
      /POST \/v1\/sys\/sync\/destinations\/cloudA-sm\/nowhere\/associations\/set returned 404.*no cloudA-sm destination named "nowhere" is visible here: check destinationType and destinationName/,
    );
    expect([...stack.engine.state.values()].some((r) => r.name === "nowhere")).toBe(false);
  });

  test("destroy of a destination that still manages associations: refused without purge, done with it", async () => {
    // An association made outside the program.
    stack.keep.kv.write({ path: "other/app" }, { k: "v" });
    const outside = await fetch(`${stack.keep.url}/v1/sys/sync/destinations/cloudA-sm/aws/associations/set`, {
      method: "POST",
      headers: { "X-Keep-Token": stack.keep.rootToken },
      body: JSON.stringify({ mount: "secret", secret_name: "other/app" }),
    });
    expect(outside.status).toBe(200);
    const refused = (await stack.engine.destroy().catch((e) => e)) as EngineError;
    expect(refused).toBeInstanceOf(EngineError);
    expect(refused.message).toMatch(/still manages associations \(secret\/other\/app\).*purgeOnDestroy: true/);
    expect(sync().destination({ type: "cloudA-sm", name: "aws" })).toMatchObject({ name: "aws" });

    await stack.engine.up(program({ purgeOnDestroy: true }));
    const destroyed = await stack.engine.destroy();
    expect(summarize(destroyed.steps)).toEqual({ delete: 3 });
    expect(sync().destination({ type: "cloudA-sm", name: "aws" })).toBeUndefined();
    expect(sync().associations()).toEqual([]);
    expect(external()).toEqual({});
  });

  test("the key-value secret's data is a secret output", async () => {
    const result = await stack.engine.up(() => {
      const secret = new keep.kv.Secret("db", { path: "app/db", data: { password: "pw" } });
      return { secret: pulumi.isSecret(secret.data) };
    });
    expect(result.outputs.secret).toBe(true);
    expect([...stack.engine.state.values()][0].secretOutputs).toEqual(["data"]);
    await stack.engine.destroy();
  });
});
