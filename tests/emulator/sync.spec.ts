/**
 * Secret sync in the secrets-service emulator, over raw HTTP: the spec's tables for configuration,
 * destinations, associations and custom applications, the sync-status state table, and the
 * external stores the tests read.
 */
import { generateKeyPairSync } from "node:crypto";
import { syncOf } from "../../emulator/keep/sync";
import { call, expectErrors, keep, useKeepEmulator } from "./keep/fixture";

useKeepEmulator();

const sync = () => syncOf(keep());
const PATCH = { "Content-Type": "application/merge-patch+json" };
const pem = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();

async function destination(type: string, name: string, body: Record<string, unknown>) {
  const answer = await call("POST", `/v1/sys/sync/destinations/${type}/${name}`, { body });
  expect(answer.status).toBe(200);
  return answer;
}

const accessor = () => keep().mounts().find((m) => m.path === "secret/")!.accessor;

describe("configuration", () => {
  test("PATCH and read, root only unless the namespace is administrative", async () => {
    const patched = await call("PATCH", "/v1/sys/sync/config", { body: { queue_capacity: 10 }, headers: PATCH });
    expect(patched.body).toMatchObject({ data: { disabled: false, queue_capacity: 10 }, mount_type: "system" });
    expect((await call("GET", "/v1/sys/sync/config")).body.data).toEqual({ disabled: false, queue_capacity: 10 });
    keep().addNamespace("team-a");
    const refused = expectErrors(await call("GET", "/v1/sys/sync/config", { headers: { "X-Keep-Namespace": "team-a" } }), 400);
    expect(refused[0]).toMatch(/root namespace or an administrative namespace/);
    sync().addAdministrativeNamespace("admin");
    expect((await call("GET", "/v1/admin/sys/sync/config")).status).toBe(200);
    await call("PATCH", "/v1/sys/sync/config", { body: { queue_capacity: 1000000 }, headers: PATCH });
  });
});

describe("destinations", () => {
  test("parameter rules answer 400 naming the parameter", async () => {
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/cloudB-kv/x", { body: { client_id: "c" } }), 400)[0]).toMatch(/'key_vault_uri'/);
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/repohost/x", { body: { repository_owner: "o", repository_name: "r" } }), 400)[0]).toMatch(/'access_token' or 'app_name'/);
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/repohost/x", { body: { app_name: "a", repository_owner: "o", repository_name: "r" } }), 400)[0]).toMatch(/'installation_id'/);
    const bad = { access_token: "t", project_id: "p", deployment_environments: ["staging"] };
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/webhost-project/x", { body: bad }), 400)[0]).toMatch(/'deployment_environments' value "staging"/);
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/cloudC-sm/x", { body: { credentials: "not json" } }), 400)[0]).toMatch(/'credentials'/);
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/cloudA-sm/x", { body: { secret_name_template: "{{ .Nope }}" } }), 400)[0]).toMatch(/'secret_name_template'/);
    expect(expectErrors(await call("POST", "/v1/sys/sync/destinations/repohost/x", { body: { access_token: "t", repository_owner: "o", repository_name: "r", custom_tags: { a: "b" } } }), 400)[0]).toMatch(/'custom_tags'/);
  });

  test("read obfuscates sensitive details and shows the others; lists have the spec's shapes", async () => {
    await destination("cloudA-sm", "aws", { access_key_id: "AKIA", secret_access_key: "s3cr3t", region: "eu-west-1", custom_tags: { team: "a" } });
    await destination("cloudB-kv", "az", { key_vault_uri: "https://v.example/", client_id: "c", client_secret: "cs", tenant_id: "t" });
    const read = await call("GET", "/v1/sys/sync/destinations/cloudA-sm/aws");
    expect(read.body.data).toEqual({
      type: "cloudA-sm",
      name: "aws",
      connection_details: { access_key_id: "*****", secret_access_key: "*****", region: "eu-west-1", role_arn: "", external_id: "" },
      options: { granularity_level: "secret-path", secret_name_template: "", custom_tags: { team: "a" } },
    });
    expect(JSON.stringify(read.body)).not.toContain("s3cr3t");
    const all = await call("GET", "/v1/sys/sync/destinations?list=true");
    expect(all.body.data).toEqual({ key_info: { "cloudA-sm/": ["aws"], "cloudB-kv/": ["az"] }, keys: ["cloudA-sm/", "cloudB-kv/"], total_destinations: 2 });
    expect((await call("GET", "/v1/sys/sync/destinations/cloudB-kv?list=true")).body.data).toEqual({ keys: ["az"], total_destinations: 1 });
  });

  test("associations follow the status table and the external store follows the secret", async () => {
    keep().kv.write({ path: "app/db" }, { user: "u", password: "p" });
    const set = await call("POST", "/v1/sys/sync/destinations/cloudA-sm/aws/associations/set", { body: { mount: "secret", secret_name: "app/db" } });
    const key = `${accessor()}/app/db`;
    expect(set.body.data).toMatchObject({ store_name: "aws", store_type: "cloudA-sm", associated_secrets: { [key]: { accessor: accessor(), secret_name: "app/db", sync_status: "SYNCED" } } });
    expect(set.body.data.associated_secrets[key].updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    const name = `keep/${accessor()}/app/db`;
    expect(sync().external({ type: "cloudA-sm", name: "aws" })).toEqual({
      [name]: { value: JSON.stringify({ user: "u", password: "p" }), tags: { team: "a", "keep:managed-by": "keep-sync", "keep:mount-accessor": accessor(), "keep:secret-path": "app/db" } },
    });

    keep().kv.write({ path: "app/db" }, { user: "u", password: "p2" });
    expect(sync().external({ type: "cloudA-sm", name: "aws" })[name].value).toBe(JSON.stringify({ user: "u", password: "p2" }));

    const listed = await call("GET", "/v1/sys/sync/associations?list=true");
    expect(listed.body.data).toEqual({ key_info: { "cloudA-sm/aws": [{ mount: "secret", secret_path: "app/db" }] }, keys: ["cloudA-sm/aws"], total_associations: 1, total_secrets: 1 });
    const byQuery = await call("GET", "/v1/sys/sync/associations/destinations?mount=secret&secret_name=app/db");
    expect(byQuery.body.data.associated_destinations).toEqual({ "cloudA-sm/aws": { type: "cloudA-sm", name: "aws", sync_status: "SYNCED", updated_at: expect.any(String) } });
    expect((await call("GET", "/v1/sys/sync/associations/secret/app/db")).body.data).toEqual(byQuery.body.data);

    const refused = expectErrors(await call("DELETE", "/v1/sys/sync/destinations/cloudA-sm/aws"), 400);
    expect(refused[0]).toMatch(/still manages associations \(secret\/app\/db\)/);

    const removed = await call("POST", "/v1/sys/sync/destinations/cloudA-sm/aws/associations/remove", { body: { mount: "secret", secret_name: "app/db" } });
    expect(removed.body.data.associated_secrets[key].sync_status).toBe("UNSYNCED");
    expect(sync().external({ type: "cloudA-sm", name: "aws" })).toEqual({});
    const again = await call("POST", "/v1/sys/sync/destinations/cloudA-sm/aws/associations/remove", { body: { mount: "secret", secret_name: "app/db" } });
    expect(again.status).toBe(200);
  });

  test("only key-value version 2 secrets can be associated", async () => {
    keep().mount("old", "kv");
    keep().kv.write({ mount: "old", path: "x" }, { a: "b" });
    const refused = expectErrors(await call("POST", "/v1/sys/sync/destinations/cloudA-sm/aws/associations/set", { body: { mount: "old", secret_name: "x" } }), 400);
    expect(refused[0]).toMatch(/only key-value version 2 secrets/);
  });

  test("secret-key granularity writes one external secret per key; default names per type", async () => {
    await destination("repohost", "gh", { access_token: "t", repository_owner: "o", repository_name: "r" });
    keep().kv.write({ path: "ci/deploy-keys" }, { "api-key": "k1", token: "k2" });
    await call("POST", "/v1/sys/sync/destinations/repohost/gh/associations/set", { body: { mount: "secret", secret_name: "ci/deploy-keys" } });
    const prefix = `KEEP_${accessor().toUpperCase()}_CI_DEPLOY_KEYS`;
    expect(sync().external({ type: "repohost", name: "gh" })).toEqual({ [`${prefix}_API_KEY`]: { value: "k1" }, [`${prefix}_TOKEN`]: { value: "k2" } });
    keep().kv.write({ path: "ci/deploy-keys" }, { token: "k3" });
    expect(sync().external({ type: "repohost", name: "gh" })).toEqual({ [`${prefix}_TOKEN`]: { value: "k3" } });
  });

  test("a failing destination gives a failure status with its cause; a later set retries", async () => {
    sync().failDestination({ type: "repohost", name: "gh" }, "403 Resource not accessible by integration");
    const failed = await call("POST", "/v1/sys/sync/destinations/repohost/gh/associations/set", { body: { mount: "secret", secret_name: "ci/deploy-keys" } });
    expect(failed.body.data.associated_secrets[`${accessor()}/ci/deploy-keys`]).toMatchObject({ sync_status: "EXTERNAL_SERVICE_ERROR", cause: "403 Resource not accessible by integration" });
    sync().repairDestination({ type: "repohost", name: "gh" });
    const retried = await call("POST", "/v1/sys/sync/destinations/repohost/gh/associations/set", { body: { mount: "secret", secret_name: "ci/deploy-keys" } });
    expect(retried.body.data.associated_secrets[`${accessor()}/ci/deploy-keys`].sync_status).toBe("SYNCED");
  });

  test("disabled sync queues operations up to the capacity; re-enabling drains them in order", async () => {
    await call("PATCH", "/v1/sys/sync/config", { body: { disabled: true, queue_capacity: 2 }, headers: PATCH });
    keep().kv.write({ path: "q/one" }, { a: "1" });
    keep().kv.write({ path: "q/two" }, { a: "2" });
    keep().kv.write({ path: "q/three" }, { a: "3" });
    for (const secret of ["q/one", "q/two"]) {
      const queued = await call("POST", "/v1/sys/sync/destinations/cloudA-sm/aws/associations/set", { body: { mount: "secret", secret_name: secret } });
      expect(queued.body.data.associated_secrets[`${accessor()}/${secret}`].sync_status).toBe("PENDING");
    }
    const full = expectErrors(await call("POST", "/v1/sys/sync/destinations/cloudA-sm/aws/associations/set", { body: { mount: "secret", secret_name: "q/three" } }), 400);
    expect(full[0]).toMatch(/queue is full.*queue_capacity 2/);
    expect(sync().external({ type: "cloudA-sm", name: "aws" })).toEqual({});
    await call("PATCH", "/v1/sys/sync/config", { body: { disabled: false, queue_capacity: 1000000 }, headers: PATCH });
    expect(Object.keys(sync().external({ type: "cloudA-sm", name: "aws" }))).toEqual([`keep/${accessor()}/q/one`, `keep/${accessor()}/q/two`]);
  });

  test("delete with purge unsyncs every association in the background, then deletes the destination", async () => {
    const deleted = await call("DELETE", "/v1/sys/sync/destinations/cloudA-sm/aws?purge=true");
    expect(deleted.status).toBe(204);
    expect((await call("GET", "/v1/sys/sync/destinations/cloudA-sm/aws")).body.data.purge_initiated_at).toEqual(expect.any(String));
    for (let i = 0; i < 100 && (await call("GET", "/v1/sys/sync/destinations/cloudA-sm/aws")).status !== 404; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await call("GET", "/v1/sys/sync/destinations/cloudA-sm/aws")).status).toBe(404);
    expect(sync().external({ type: "cloudA-sm", name: "aws" })).toEqual({});
    expect(sync().associations().filter((a) => a.type === "cloudA-sm")).toEqual([]);
  });
});

describe("custom repository-host applications", () => {
  test("fingerprint computed from the key; delete refused while a destination uses the app", async () => {
    const key = pem();
    const written = await call("POST", "/v1/sys/sync/github-apps/ci-app", { body: { app_id: "1234", private_key: key } });
    const { keyFingerprint } = await import("../../emulator/keep/sync");
    expect(written.body.data).toEqual({ app_id: 1234, fingerprint: keyFingerprint(key), name: "ci-app", private_key: "*****" });
    await destination("repohost", "via-app", { app_name: "ci-app", installation_id: "99", repository_owner: "o", repository_name: "r" });
    const refused = expectErrors(await call("DELETE", "/v1/sys/sync/github-apps/ci-app"), 400);
    expect(refused[0]).toMatch(/used by destination repohost\/via-app/);
    await call("DELETE", "/v1/sys/sync/destinations/repohost/via-app");
    expect((await call("DELETE", "/v1/sys/sync/github-apps/ci-app")).status).toBe(204);
  });
});
