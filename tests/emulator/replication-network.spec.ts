/**
 * Performance replication of the secrets-service emulator over raw HTTP: several clusters on one
 * network, the spec's replication-mode table row by row (and every transition it does not allow),
 * activation tokens, real replication of policies, key-value secrets and engine objects, paths
 * filters and dynamic filters, revocation, demote, promote, disable and update-primary.
 */
import { KeepCluster, KeepClusterSet, startKeepClusters } from "../../emulator/keep/replication";
import { call, CallResult, expectErrors } from "./keep/fixture";

const R = "/v1/sys/replication/performance";
const TEXT = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';

let set: KeepClusterSet;
let main: KeepCluster;
let dr: KeepCluster;
let dr2: KeepCluster;

beforeEach(async () => {
  set = await startKeepClusters(["main", "dr", "dr2"]);
  ({ main, dr, dr2 } = set.clusters as Record<"main" | "dr" | "dr2", KeepCluster>);
});
afterEach(async () => {
  await set.close();
});

const post = (cluster: KeepCluster, path: string, body: unknown = {}) => call("POST", `${R}/${path}`, { body }, cluster);
const status = async (cluster: KeepCluster) => {
  const answer = await call("GET", `${R}/status`, { token: null }, cluster);
  expect(answer.status).toBe(200);
  return answer.body.data;
};
const ok = (answer: CallResult) => {
  if (answer.status >= 300) throw new Error(`${answer.status}: ${answer.text}`);
  return answer;
};

async function token(id: string, body: Record<string, unknown> = {}): Promise<string> {
  const answer = ok(await post(main, "primary/secondary-token", { id, ...body }));
  return answer.body.wrap_info.token;
}

/** main primary, dr its secondary. */
async function pair(): Promise<void> {
  ok(await post(main, "primary/enable"));
  ok(await post(dr, "secondary/enable", { token: await token("dr") }));
}

describe("replication mode table", () => {
  test("the status needs no token; a cluster starts disabled", async () => {
    expect(await status(main)).toEqual({ mode: "disabled" });
    expect((await call("GET", "/v1/sys/policies/acl?list=true", { token: null }, main)).status).toBe(403);
  });

  test.each([
    ["primary/demote", "demote a primary"],
    ["primary/disable", "disable a primary"],
    ["primary/secondary-token", "generate a secondary activation token"],
    ["primary/revoke-secondary", "revoke a secondary"],
    ["secondary/promote", "promote a secondary"],
    ["secondary/disable", "disable a secondary"],
    ["secondary/update-primary", "update the primary of a secondary"],
  ])("disabled: %s is refused naming the mode and what it allows", async (path, what) => {
    const errors = expectErrors(await post(main, path, { id: "x", token: "" }), 400);
    expect(errors[0]).toBe(`cannot ${what}: this cluster's replication mode is "disabled"; from "disabled" the replication state table allows: primary enable, secondary enable`);
  });

  test("primary: enable again, secondary enable, promote, secondary disable and update-primary are refused", async () => {
    ok(await post(main, "primary/enable"));
    for (const path of ["primary/enable", "secondary/enable", "secondary/promote", "secondary/disable", "secondary/update-primary"]) {
      const errors = expectErrors(await post(main, path, { token: "t" }), 400);
      expect(errors[0]).toMatch(/replication mode is "primary"; from "primary" the replication state table allows: primary demote, primary disable, secondary-token, revoke-secondary, paths filters$/);
    }
  });

  test("secondary: primary enable, demote, disable, secondary enable and token generation are refused", async () => {
    await pair();
    for (const path of ["primary/enable", "primary/demote", "primary/disable", "secondary/enable", "primary/secondary-token"]) {
      const errors = expectErrors(await post(dr, path, { id: "x", token: "t" }), 400);
      expect(errors[0]).toMatch(/replication mode is "secondary"; from "secondary" the replication state table allows: secondary promote, secondary disable, update-primary$/);
    }
  });

  test("a secondary is known to its primary from its token's issue on, connected or not, until revoked", async () => {
    ok(await post(main, "primary/enable"));
    const issued = await post(main, "primary/secondary-token", { id: "pending" });
    expect(issued.status).toBe(200);
    expect(await status(main)).toMatchObject({ known_secondaries: ["pending"], secondaries: [] });
    ok(await post(main, "primary/revoke-secondary", { id: "pending" }));
    expect((await status(main)).known_secondaries).toEqual([]);
  });

  test("primary enable: a cluster ID and the cluster address given to secondaries", async () => {
    ok(await post(main, "primary/enable", { primary_cluster_addr: "https://main.example:8201" }));
    const s = await status(main);
    expect(s).toMatchObject({ mode: "primary", known_secondaries: [], secondaries: [], primary_cluster_addr: "https://main.example:8201" });
    expect(s.cluster_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("primary disable: re-enabling changes the cluster ID; its secondary cannot reconnect without a wipe", async () => {
    await pair();
    const before = (await status(main)).cluster_id;
    ok(await post(main, "primary/disable"));
    expect(await status(main)).toEqual({ mode: "disabled" });
    expect(await status(dr)).toMatchObject({ state: "connecting", primaries: [expect.objectContaining({ connection_status: "disconnected" })] });
    ok(await post(main, "primary/enable"));
    expect((await status(main)).cluster_id).not.toBe(before);
    const errors = expectErrors(await post(dr, "secondary/update-primary", { token: await token("dr") }), 400);
    expect(errors[0]).toMatch(/belongs to another replication set .* needs a storage wipe: disable this secondary and enable it/);
    // The wipe path works: disable, then enable with a new token.
    ok(await post(dr, "secondary/disable"));
    ok(await post(dr, "secondary/enable", { token: await token("dr-again") }));
    expect((await status(dr)).state).toBe("stream-wals");
  });

  test("primary demote keeps the cluster ID; a promoted secondary takes over; the demoted one rejoins without a wipe", async () => {
    await pair();
    const mainId = (await status(main)).cluster_id;
    ok(await post(main, "primary/demote"));
    expect(await status(main)).toMatchObject({ mode: "secondary", cluster_id: mainId, state: "idle", known_primary_cluster_addrs: [], primaries: [] });
    expect((await status(dr)).state).toBe("connecting");
    // A demoted primary refuses writes like any secondary.
    expectErrors(await call("POST", "/v1/sys/policies/acl/x", { body: { policy: TEXT } }, main), 400);

    ok(await post(dr, "secondary/promote"));
    expect(await status(dr)).toMatchObject({ mode: "primary", known_secondaries: [] });
    ok(await call("POST", "/v1/sys/policies/acl/after-failover", { body: { policy: TEXT } }, dr));
    // A local mount of the demoted cluster: a rejoin without a wipe keeps it.
    ok(await call("POST", "/v1/sys/mounts/main-local", { body: { type: "kv", local: true } }, main));
    ok(await call("POST", "/v1/main-local/note", { body: { kept: "yes" } }, main));

    const answer = ok(await post(dr, "primary/secondary-token", { id: "main" }));
    ok(await post(main, "secondary/update-primary", { token: answer.body.wrap_info.token }));
    expect(await status(main)).toMatchObject({ mode: "secondary", cluster_id: mainId, state: "stream-wals", secondary_id: "main" });
    expect(main.getPolicy("acl", "after-failover")?.policy).toBe(TEXT);
    expect((await call("GET", "/v1/main-local/note", {}, main)).body.data).toEqual({ kept: "yes" });
    expect((await status(main)).merkle_root).toBe((await status(dr)).merkle_root);
  });

  test("secondary promote: refused while its primary is active, unless forced", async () => {
    await pair();
    const errors = expectErrors(await post(dr, "secondary/promote"), 400);
    expect(errors[0]).toMatch(/^safety check failed: its primary \(https:\/\/main\.cluster\.keep\.test:8201\) is still an active primary/);
    ok(await post(dr, "secondary/promote", { force: true }));
    expect((await status(dr)).mode).toBe("primary");
    // The old primary no longer streams to it.
    expect((await status(main)).secondaries[0].connection_status).toBe("disconnected");
  });

  test("secondary promote: refused when it never synced, unless forced", async () => {
    ok(await post(main, "primary/enable"));
    set.network.unreachable.add("https://main.cluster.keep.test:8201");
    ok(await post(dr, "secondary/enable", { token: await token("dr") }));
    expect(await status(dr)).toMatchObject({ state: "connecting", connection_error: "cannot reach the primary at https://main.cluster.keep.test:8201" });
    ok(await post(main, "primary/demote"));
    expect(expectErrors(await post(dr, "secondary/promote"), 400)[0]).toMatch(/never completed a sync from a primary/);
    ok(await post(dr, "secondary/promote", { force: true }));
  });

  test("secondary disable: the cluster leaves replication; re-enabling changes its cluster ID", async () => {
    await pair();
    const before = (await status(dr)).cluster_id;
    ok(await post(dr, "secondary/disable"));
    expect(await status(dr)).toEqual({ mode: "disabled" });
    expect((await status(main)).secondaries[0].connection_status).toBe("disconnected");
    ok(await post(main, "primary/revoke-secondary", { id: "dr" }));
    ok(await post(dr, "secondary/enable", { token: await token("dr") }));
    expect((await status(dr)).cluster_id).not.toBe(before);
  });

  test("update-primary with a blank token forgets the primary and stays secondary", async () => {
    await pair();
    ok(await post(dr, "secondary/update-primary", { token: "" }));
    expect(await status(dr)).toMatchObject({ mode: "secondary", state: "idle", known_primary_cluster_addrs: [], primaries: [], primary_cluster_addr: "" });
    expectErrors(await post(dr, "secondary/update-primary", {}), 400);
  });
});

describe("activation tokens", () => {
  beforeEach(async () => {
    ok(await post(main, "primary/enable"));
  });

  test("wrapped, with a TTL (30m by default), a JWT naming the primary's API address; sudo only", async () => {
    const answer = ok(await post(main, "primary/secondary-token", { id: "dr" }));
    expect(answer.body.data).toBeNull();
    expect(answer.body.wrap_info).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      accessor: expect.any(String),
      ttl: 1800,
      creation_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      creation_path: "sys/replication/performance/primary/secondary-token",
      wrapped_accessor: "",
    });
    const claims = JSON.parse(Buffer.from(answer.body.wrap_info.token.split(".")[1], "base64url").toString());
    expect(claims).toMatchObject({ addr: main.url, type: "wrapping", jti: answer.body.wrap_info.accessor });
    expect(ok(await post(main, "primary/secondary-token", { id: "other", ttl: "5m" })).body.wrap_info.ttl).toBe(300);
    expectErrors(await post(main, "primary/secondary-token", { id: "x", ttl: "soon" }), 400);

    main.addToken("no-sudo");
    expect((await call("POST", `${R}/primary/secondary-token`, { body: { id: "y" }, token: "no-sudo" }, main)).status).toBe(403);
  });

  test("single use; expired after its TTL; an ID in use needs a revoke first", async () => {
    const t = await token("dr");
    ok(await post(dr, "secondary/enable", { token: t }));
    expect(expectErrors(await post(dr2, "secondary/enable", { token: t }), 400)[0]).toMatch(/not valid or does not exist/);
    expect(expectErrors(await post(main, "primary/secondary-token", { id: "dr" }), 400)[0]).toMatch(/already known to this primary: revoke it/);

    const late = await token("dr2", { ttl: "1m" });
    set.network.clockOffsetMs = 61_000;
    expect(expectErrors(await post(dr2, "secondary/enable", { token: late }), 400)[0]).toMatch(/has expired/);
    expect(await status(dr2)).toEqual({ mode: "disabled" });
  });

  test("a token for a secondary's public key works on that secondary only", async () => {
    const key = ok(await post(dr, "secondary/generate-public-key")).body.data.secondary_public_key;
    const t = await token("dr", { secondary_public_key: key });
    expect(expectErrors(await post(dr2, "secondary/enable", { token: t }), 400)[0]).toMatch(/another secondary's public key/);
    const again = await token("dr", { secondary_public_key: key });
    ok(await post(dr, "secondary/enable", { token: again }));
  });

  test("primary_api_addr that no primary answers at, or a missing CA file, fail before any wipe", async () => {
    dr.putPolicy("acl", "mine", { policy: TEXT });
    expect(expectErrors(await post(dr, "secondary/enable", { token: await token("dr"), primary_api_addr: "http://127.0.0.1:1" }), 400)[0]).toBe(
      "error unwrapping the activation token: no primary answers at http://127.0.0.1:1",
    );
    expect(expectErrors(await post(dr, "secondary/enable", { token: await token("dr"), ca_file: "/nonexistent/ca.pem" }), 400)[0]).toMatch(/CA file/);
    expect(dr.getPolicy("acl", "mine")?.policy).toBe(TEXT);
  });
});

describe("replication of data", () => {
  test("secondary enable wipes every piece of the secondary's data and takes the primary's", async () => {
    dr.putPolicy("acl", "dr-only", { policy: TEXT });
    dr.kv.write({ path: "dr-secret" }, { a: "1" });
    dr.mount("dr-kv", "kv");
    dr.addNamespace("dr-team");
    ok(await call("POST", "/v1/sys/mounts/dr-local", { body: { type: "kv", local: true } }, dr));
    main.putPolicy("acl", "ops", { policy: TEXT });
    main.kv.write({ path: "app" }, { password: "p" });
    await pair();
    expect(dr.listPolicies("acl")).toEqual(["default", "ops", "root"]);
    expect(dr.kv.read({ path: "dr-secret" })).toBeUndefined();
    expect(dr.kv.read({ path: "app" })?.data).toEqual({ password: "p" });
    expect(dr.mounts().map((m) => m.path)).toEqual(["cloudA/", "cubbyhole/", "identity/", "secret/", "sys/", "transform/"]);
    expect(dr.hasNamespace("dr-team")).toBe(false);
  });

  test("writes on the primary appear on the secondary: policies, secrets, mounts, engine objects, namespaces; WALs advance, merkle roots match", async () => {
    await pair();
    const before = await status(main);
    ok(await call("POST", "/v1/sys/policies/acl/ops", { body: { policy: TEXT } }, main));
    ok(await call("POST", "/v1/secret/data/app", { body: { data: { password: "p2" } } }, main));
    ok(await call("POST", "/v1/sys/mounts/tx", { body: { type: "transform" } }, main));
    ok(await call("POST", "/v1/tx/role/payments", { body: { transformations: ["ccn"] } }, main));
    ok(await call("POST", "/v1/sys/namespaces/team", {}, main));
    ok(await call("POST", "/v1/team/sys/policies/acl/team-ops", { body: { policy: TEXT } }, main));

    expect(dr.getPolicy("acl", "ops")?.policy).toBe(TEXT);
    expect(dr.kv.read({ path: "app" })?.data).toEqual({ password: "p2" });
    expect((await call("GET", "/v1/tx/role/payments", {}, dr)).body.data).toEqual({ transformations: ["ccn"] });
    expect(dr.getPolicy("acl", "team-ops", "team")?.policy).toBe(TEXT);
    expect(dr.mounts().find((m) => m.path === "tx/")?.accessor).toBe(main.mounts().find((m) => m.path === "tx/")?.accessor);

    const primary = await status(main);
    const secondary = await status(dr);
    expect(primary.last_wal).toBeGreaterThan(before.last_wal);
    expect(secondary.last_remote_wal).toBe(primary.last_wal);
    expect(secondary.merkle_root).toBe(primary.merkle_root);
    expect(primary).toMatchObject({
      known_secondaries: ["dr"],
      secondaries: [{ api_address: dr.url, cluster_address: "https://dr.cluster.keep.test:8201", connection_status: "connected", last_heartbeat: expect.any(String), node_id: "dr-node-1" }],
    });
    expect(secondary).toMatchObject({
      mode: "secondary",
      state: "stream-wals",
      secondary_id: "dr",
      primary_cluster_addr: "https://main.cluster.keep.test:8201",
      known_primary_cluster_addrs: ["https://main.cluster.keep.test:8201"],
      primaries: [{ api_address: main.url, cluster_address: "https://main.cluster.keep.test:8201", connection_status: "connected", last_heartbeat: expect.any(String) }],
    });

    // Deletes replicate too.
    ok(await call("DELETE", "/v1/sys/policies/acl/ops", {}, main));
    ok(await call("DELETE", "/v1/sys/mounts/tx", {}, main));
    expect(dr.getPolicy("acl", "ops")).toBeUndefined();
    expect(dr.mounts().some((m) => m.path === "tx/")).toBe(false);
    expect((await status(dr)).merkle_root).toBe((await status(main)).merkle_root);
  });

  test("a secondary refuses writes to replicated paths; its local mounts take writes and stay its own", async () => {
    await pair();
    const errors = expectErrors(await call("POST", "/v1/sys/policies/acl/x", { body: { policy: TEXT } }, dr), 400);
    expect(errors[0]).toBe(
      `cannot write to "sys/policies/acl/x" on a performance secondary: the path is replicated from the primary and this cluster does not forward writes; write to the primary at ${main.url}, or to a local mount`,
    );
    expectErrors(await call("POST", "/v1/secret/data/app", { body: { data: { a: 1 } } }, dr), 400);
    expectErrors(await call("POST", "/v1/sys/mounts/more", { body: { type: "kv" } }, dr), 400);
    expect((await call("GET", "/v1/sys/policies/acl?list=true", {}, dr)).status).toBe(200);

    ok(await call("POST", "/v1/sys/mounts/scratch", { body: { type: "kv", local: true } }, dr));
    ok(await call("POST", "/v1/scratch/note", { body: { a: "1" } }, dr));
    expect((await call("GET", "/v1/scratch/note", {}, dr)).body.data).toEqual({ a: "1" });
    // A local mount of the primary stays there too.
    ok(await call("POST", "/v1/sys/mounts/main-local", { body: { type: "kv", local: true } }, main));
    expect(dr.mounts().some((m) => m.path === "main-local/")).toBe(false);
    expect((await status(dr)).merkle_root).toBe((await status(main)).merkle_root);
    // The secondary's own primary token works there (tokens replicate).
    expect((await call("GET", "/v1/sys/policies/acl?list=true", { token: main.rootToken }, dr)).status).toBe(200);
  });

  test("an unreachable primary: the secondary misses writes, then catches up when it can connect", async () => {
    await pair();
    set.network.unreachable.add("https://main.cluster.keep.test:8201");
    main.putPolicy("acl", "while-away", { policy: TEXT });
    expect(dr.getPolicy("acl", "while-away")).toBeUndefined();
    expect((await status(dr)).state).toBe("connecting");
    set.network.unreachable.clear();
    expect((await status(dr)).state).toBe("stream-wals");
    expect(dr.getPolicy("acl", "while-away")?.policy).toBe(TEXT);
  });

  test("a new secondary reports bootstrapping for the configured status reads before streaming", async () => {
    set.network.bootstrapReads = 2;
    await pair();
    expect([(await status(dr)).state, (await status(dr)).state, (await status(dr)).state]).toEqual(["bootstrapping", "bootstrapping", "stream-wals"]);
  });
});

describe("paths filters, dynamic filters, revocation", () => {
  test("deny excludes a mount and a namespace; the secondary loses them; allow keeps only what it names", async () => {
    main.mount("excluded", "kv");
    main.kv.write({ mount: "excluded", path: "x" }, { a: 1 });
    main.addNamespace("team");
    main.mount("kv", "kv", { namespace: "team" });
    await pair();
    expect(dr.mounts().some((m) => m.path === "excluded/")).toBe(true);
    const id = (await status(dr)).cluster_id;

    expect(await call("GET", `${R}/primary/paths-filter/${id}`, {}, main)).toMatchObject({ status: 200, text: "" });
    ok(await post(main, `primary/paths-filter/${id}`, { mode: "deny", paths: ["excluded/", "team/", "later/"] }));
    expect((await call("GET", `${R}/primary/paths-filter/${id}`, {}, main)).body).toEqual({ mode: "deny", paths: ["excluded/", "team/", "later/"] });
    expect(dr.mounts().some((m) => m.path === "excluded/")).toBe(false);
    expect(dr.hasNamespace("team")).toBe(false);
    main.kv.write({ mount: "excluded", path: "y" }, { b: 2 });
    main.mount("later", "kv");
    expect(dr.mounts().some((m) => m.path === "later/")).toBe(false);
    main.putPolicy("acl", "still", { policy: TEXT });
    expect(dr.getPolicy("acl", "still")?.policy).toBe(TEXT);

    const dynamic = { dynamic_filtered_mounts: ["excluded/", "later/"], dynamic_filtered_namespaces: ["team/"] };
    expect((await call("GET", `${R}/primary/dynamic-filter/${id}`, {}, main)).body).toEqual(dynamic);
    expect((await call("GET", `${R}/secondary/dynamic-filter/${id}`, {}, dr)).body).toEqual(dynamic);
    expect(await call("GET", `${R}/primary/dynamic-filter/unknown`, {}, main)).toMatchObject({ status: 200, text: "" });

    ok(await post(main, `primary/paths-filter/${id}`, { mode: "allow", paths: ["team/kv/"] }));
    expect(dr.hasNamespace("team")).toBe(true);
    expect(dr.mounts("team").some((m) => m.path === "kv/")).toBe(true);
    expect(dr.mounts().some((m) => m.path === "secret/")).toBe(false);
    expect(dr.getPolicy("acl", "still")?.policy).toBe(TEXT);
    expectErrors(await post(main, `primary/paths-filter/${id}`, { mode: "both" }), 400);

    ok(await call("DELETE", `${R}/primary/paths-filter/${id}`, {}, main));
    expect(dr.mounts().some((m) => m.path === "excluded/")).toBe(true);
    expect(dr.kv.read({ mount: "excluded", path: "y" })?.data).toEqual({ b: 2 });
    expect((await status(dr)).merkle_root).toBe((await status(main)).merkle_root);
  });

  test("revoke disconnects at once; update-primary with a new token reconnects, catches up, and drops the filter", async () => {
    await pair();
    const id = (await status(dr)).cluster_id;
    ok(await post(main, `primary/paths-filter/${id}`, { mode: "deny", paths: ["nothing/"] }));
    ok(await post(main, "primary/revoke-secondary", { id: "dr" }));
    expect((await status(main)).known_secondaries).toEqual([]);
    expect(await status(dr)).toMatchObject({ state: "connecting", connection_error: expect.stringMatching(/revoked this secondary/) });
    main.putPolicy("acl", "after-revoke", { policy: TEXT });
    expect(dr.getPolicy("acl", "after-revoke")).toBeUndefined();

    ok(await post(dr, "secondary/update-primary", { token: await token("dr") }));
    expect((await status(dr)).state).toBe("stream-wals");
    expect(dr.getPolicy("acl", "after-revoke")?.policy).toBe(TEXT);
    expect((await call("GET", `${R}/primary/paths-filter/${id}`, {}, main)).text).toBe("");
  });
});
