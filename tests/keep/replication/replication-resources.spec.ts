/**
 * keep.replication through the real provider host, against two (and three) clusters of the
 * emulator on one replication network: `keep:` is the primary, `keep-dr:` the secondary. The
 * program enables a primary, issues a token, enables a secondary (its data wiped), writes a policy
 * on the primary that appears on the secondary, keeps a mount from it with a paths filter; then
 * revoke, update-primary (the filter made again), demote and promote; every transition the table
 * refuses in the current mode; and a run after lost state that changes nothing.
 */
import { keep } from "pulumi-keepstack";
import { Engine, EngineError, summarize } from "../../../harness";
import { KeepCluster, KeepClusterSet, startKeepClusters } from "../../../emulator/keep/replication";
import { createContext } from "../../../provider/context";
import { keepConfig } from "../../support/keep-stack";

const TEXT = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
const STATUS = "GET /v1/sys/replication/performance/status";

let set: KeepClusterSet;
let main: KeepCluster;
let dr: KeepCluster;
let engine: Engine;

const configOf = (clusters: KeepCluster[]) => {
  const config: Record<string, string> = keepConfig(clusters[0]);
  for (const cluster of clusters.slice(1)) {
    config[`keep-${cluster.name}:address`] = cluster.url;
    config[`keep-${cluster.name}:token`] = cluster.rootToken;
    config[`keep-${cluster.name}:retryBaseDelayMs`] = "5";
  }
  return config;
};

/**
 * Each test gets new clusters, on the ports and with the tokens of the first ones, so one engine
 * (one provider host) serves the whole file; a test that changes the configuration restarts it.
 */
let addresses: Record<string, { port: number; rootToken: string }> | undefined;
let baseConfig: Record<string, string> | undefined;
beforeEach(async () => {
  set = await startKeepClusters(["main", "dr"], addresses ?? {});
  ({ main, dr } = set.clusters as Record<"main" | "dr", KeepCluster>);
  addresses ??= Object.fromEntries([main, dr].map((c) => [c.name, { port: c.port, rootToken: c.rootToken }]));
  const config = configOf([main, dr]);
  if (!engine) engine = new Engine({ project: "replication", config, secretConfig: ["keep:token", "keep-dr:token"] });
  else if (JSON.stringify(config) !== JSON.stringify(baseConfig)) await engine.setConfig(config);
  baseConfig = config;
  engine.state.clear();
});
afterEach(async () => {
  await set.close();
});
afterAll(async () => {
  await engine?.close();
});

const functionContext = () => {
  const config = configOf([main, dr]);
  return createContext((key) => config[key]);
};
const clearLogs = () => Object.values(set.clusters).forEach((c) => c.log.clear());
/** Requests that may change state (everything but reads), on every cluster. */
const changes = () => Object.values(set.clusters).flatMap((c) => c.log.entries.filter((e) => e.method !== "GET").map((e) => `${c.name} ${e.method} ${e.path}`));
const errorOf = async (run: Promise<unknown>) => {
  const error = (await run.catch((e) => e)) as EngineError;
  expect(error).toBeInstanceOf(EngineError);
  return error.message;
};

/** The primary `keep:`, its secondary `keep-dr:`, a policy written on the primary, a mount kept from the secondary. */
function replicated(options: { adoptFilter?: boolean } = {}) {
  const primary = new keep.replication.PrimaryEnable("primary", {});
  const token = new keep.replication.SecondaryToken("dr-token", { secondaryId: "dr", ttl: "10m" }, { dependsOn: primary });
  const secondary = new keep.replication.SecondaryEnable("dr", { cluster: "dr", token: token.token, acceptDataWipe: true });
  const filter = new keep.replication.PathsFilter("dr-filter", { secondaryClusterId: secondary.clusterId, mode: "deny", paths: ["excluded"], adopt: options.adoptFilter });
  return { primary, token, secondary, filter };
}

function withPolicy() {
  const r = replicated();
  new keep.AclPolicy("ops", { name: "ops", policy: TEXT }, { dependsOn: r.secondary });
  return { secondaryClusterId: r.secondary.clusterId, state: r.secondary.state };
}

describe("keep.replication", () => {
  test("enable a primary, issue a token, enable a secondary (wiped), replicate, filter; requests per transition", async () => {
    dr.putPolicy("acl", "dr-own", { policy: TEXT });
    main.mount("excluded", "kv");
    main.kv.write({ mount: "excluded", path: "x" }, { a: "1" });

    clearLogs();
    expect(summarize((await engine.preview(withPolicy)).steps)).toEqual({ create: 5 });
    expect(main.log.count + dr.log.count).toBe(0);

    const up = await engine.up(withPolicy);
    expect(summarize(up.steps)).toEqual({ create: 5 });
    expect(dr.replication.mode).toBe("secondary");
    // Wiped, then the primary's: the program's policy arrived through replication, the excluded mount did not.
    expect(dr.getPolicy("acl", "dr-own")).toBeUndefined();
    expect(dr.getPolicy("acl", "ops")?.policy).toBe(TEXT);
    expect(dr.log.lines().some((l) => l.includes("sys/policies"))).toBe(false);
    expect(dr.mounts().some((m) => m.path === "excluded/")).toBe(false);
    expect(up.outputs.state).toBe("stream-wals");
    expect(up.outputs.secondaryClusterId).toBe(dr.replication.clusterId);

    // Requests per transition, in order.
    const linesOf = (c: KeepCluster, part: string) => c.log.lines().filter((l) => l.includes(part));
    expect(linesOf(main, "replication")).toEqual([
      STATUS,
      "POST /v1/sys/replication/performance/primary/enable",
      STATUS,
      STATUS,
      "POST /v1/sys/replication/performance/primary/secondary-token",
      `GET /v1/sys/replication/performance/primary/paths-filter/${dr.replication.clusterId}`,
      `POST /v1/sys/replication/performance/primary/paths-filter/${dr.replication.clusterId}`,
    ]);
    expect(linesOf(dr, "replication")).toEqual([STATUS, "POST /v1/sys/replication/performance/secondary/enable", STATUS]);

    // The token is a secret output; the secondary's input keeps it secret too.
    const token = [...engine.state.values()].find((r) => r.name === "dr-token")!;
    expect(token.secretOutputs).toContain("token");
    expect(token.outputs).toMatchObject({ accessor: expect.any(String), ttlSeconds: 600, creationTime: expect.stringMatching(/^\d{4}-/) });
    const secondary = [...engine.state.values()].find((r) => r.name === "dr")!;
    expect(secondary.secretOutputs).toContain("token");

    // The functions.
    const ctx = functionContext();
    const primaryStatus = await keep.replication.getStatus({}, ctx);
    const secondaryStatus = await keep.replication.getStatus({ cluster: "dr" }, ctx);
    expect(primaryStatus).toMatchObject({ mode: "primary", knownSecondaries: ["dr"], secondaries: [{ connectionStatus: "connected", apiAddress: dr.url }] });
    expect(secondaryStatus).toMatchObject({ mode: "secondary", state: "stream-wals", secondaryId: "dr", primaries: [{ apiAddress: main.url }] });
    if (primaryStatus.mode !== "primary" || secondaryStatus.mode !== "secondary") throw new Error("modes");
    expect(secondaryStatus.lastRemoteWal).toBe(primaryStatus.lastWal);
    const filtered = { mounts: ["excluded/"], namespaces: [] };
    expect(await keep.replication.getDynamicFilter({ side: "primary", id: dr.replication.clusterId }, ctx)).toEqual(filtered);
    expect(await keep.replication.getDynamicFilter({ side: "secondary", id: dr.replication.clusterId, cluster: "dr" }, ctx)).toEqual(filtered);
    expect(await keep.replication.getDynamicFilter({ side: "primary", id: "unknown" }, ctx)).toBeUndefined();

    // A second up changes nothing.
    clearLogs();
    expect(summarize((await engine.up(withPolicy)).steps)).toEqual({ same: 5 });
    expect(changes()).toEqual([]);

    // Destroy undoes nothing: the clusters stay primary and secondary.
    await engine.destroy();
    expect([main.replication.mode, dr.replication.mode]).toEqual(["primary", "secondary"]);
  });

  test("a run after lost state sends no request that changes state and reports what holds", async () => {
    await engine.up(replicated);
    engine.state.clear();
    // The operations find what holds; the filter, an object this resource made (its create journal
    // says so), is taken back as it is.
    clearLogs();
    const back = await engine.up(replicated);
    expect(summarize(back.steps)).toEqual({ create: 4 });
    expect(back.diagnostics.join("\n")).toMatch(/keep:ReplicationPathsFilter "[^"]+": this machine's create journal notes it as made by this resource/);
    expect(changes()).toEqual([]);
    // Lost on another machine (no journal), it is refused by name until the program adopts it.
    await engine.close();
    engine.state.clear();
    clearLogs();
    const refused = (await engine.up(replicated).catch((e) => e)) as EngineError;
    expect(refused.message).toMatch(/keep:ReplicationPathsFilter "[^"]+": create failed: the service already holds keep:ReplicationPathsFilter/);
    expect(changes()).toEqual([]);
    engine.state.clear();
    clearLogs();
    const again = await engine.up(() => replicated({ adoptFilter: true }));
    expect(summarize(again.steps)).toEqual({ create: 4 });
    expect(changes()).toEqual([]);
    const said = again.diagnostics.join("\n");
    expect(said).toMatch(/nothing to do: the cluster: already a performance primary/);
    expect(said).toMatch(/nothing to do: the cluster: secondary "dr" is already known to the primary/);
    expect(said).toMatch(/nothing to do: cluster "dr": already a secondary of https:\/\/main\.cluster\.keep\.test:8201 \(state "stream-wals"\): nothing was wiped/);
  });

  test("revoke disconnects; update-primary with a new token reconnects; the dropped filter is seen by refresh and made again", async () => {
    await engine.up(replicated);
    const revoked = () => {
      const r = replicated();
      return { revoke: new keep.replication.RevokeSecondary("revoke-dr", { secondaryId: "dr" }, { dependsOn: r.filter }) };
    };
    await engine.up(revoked);
    expect(dr.replication.connectionProblem()).toMatch(/revoked this secondary/);
    expect(await keep.replication.getStatus({ cluster: "dr" }, functionContext())).toMatchObject({ mode: "secondary", state: "connecting" });

    const reconnected = () => {
      const { revoke } = revoked();
      const token = new keep.replication.SecondaryToken("dr-token-2", { secondaryId: "dr" }, { dependsOn: revoke });
      return { update: new keep.replication.UpdatePrimary("dr-update", { cluster: "dr", token: token.token }) };
    };
    clearLogs();
    const up = await engine.up(reconnected);
    expect(summarize(up.steps)).toEqual({ same: 5, create: 2 });
    expect(dr.log.lines().filter((l) => l.includes("replication"))).toEqual([STATUS, "POST /v1/sys/replication/performance/secondary/update-primary", STATUS]);
    main.putPolicy("acl", "after-update", { policy: TEXT });
    expect(dr.getPolicy("acl", "after-update")?.policy).toBe(TEXT);

    // The service dropped the filter with the new token: refresh sees it gone, up makes it again.
    const refreshed = await engine.refresh();
    expect(refreshed.steps.filter((s) => s.op === "delete").map((s) => s.name)).toEqual(["dr-filter"]);
    // The operations report the current mode, informational: no change an up would undo, none dropped or run again.
    const moved = refreshed.steps.filter((s) => s.op !== "delete" && s.diffs?.length);
    expect(moved.length).toBeGreaterThan(0);
    for (const step of moved) expect(step).toMatchObject({ op: "same", diffs: ["currentMode"] });
    const restored = await engine.up(reconnected);
    expect(summarize(restored.steps)).toEqual({ same: 6, create: 1 });
    expect(main.replication.filters.get(dr.replication.clusterId)).toEqual({ mode: "deny", paths: ["excluded"] });
  });

  test("demote and promote: the secondary takes over and the demoted primary follows it without a wipe", async () => {
    await engine.up(replicated);
    clearLogs();
    await engine.up(() => {
      const demote = new keep.replication.PrimaryDemote("demote-main", {});
      new keep.replication.SecondaryPromote("promote-dr", { cluster: "dr" }, { dependsOn: demote });
    });
    expect([main.replication.mode, dr.replication.mode]).toEqual(["secondary", "primary"]);
    // Two requests a transition; the filter left out of the program is gone with the demotion (one status read).
    expect(main.log.lines()).toEqual([STATUS, "POST /v1/sys/replication/performance/primary/demote", STATUS]);
    expect(dr.log.lines()).toEqual([STATUS, "POST /v1/sys/replication/performance/secondary/promote"]);
    dr.putPolicy("acl", "written-on-dr", { policy: TEXT });

    await engine.up(() => {
      const token = new keep.replication.SecondaryToken("main-token", { secondaryId: "main", cluster: "dr" });
      new keep.replication.UpdatePrimary("main-follows-dr", { token: token.token });
    });
    expect(main.getPolicy("acl", "written-on-dr")?.policy).toBe(TEXT);
    expect(main.replication.status()).toMatchObject({ mode: "secondary", state: "stream-wals", secondary_id: "main" });
  });

  test("a forced promotion needs its own acknowledgement, checked in preview; unforced, the service's safety check refuses", async () => {
    await engine.up(replicated);
    clearLogs();
    const message = await errorOf(engine.preview(() => new keep.replication.SecondaryPromote("promote-dr", { cluster: "dr", force: true })));
    expect(message).toMatch(/acceptDataLoss: must be true to run this operation, accepting that a forced promotion may lose data/);
    expect(main.log.count + dr.log.count).toBe(0);

    const refused = await errorOf(engine.up(() => new keep.replication.SecondaryPromote("promote-dr", { cluster: "dr" })));
    expect(refused).toMatch(/safety check failed: its primary \(https:\/\/main\.cluster\.keep\.test:8201\) is still an active primary/);
    await engine.up(() => new keep.replication.SecondaryPromote("promote-dr", { cluster: "dr", force: true, acceptDataLoss: true }));
    expect(dr.replication.mode).toBe("primary");
  });

  test.each([
    ["SecondaryEnable", "acceptDataWipe", () => new keep.replication.SecondaryEnable("x", { cluster: "dr", token: "t" })],
    ["PrimaryDisable", "acceptSecondariesDisconnected", () => new keep.replication.PrimaryDisable("x", {})],
    ["SecondaryDisable", "acceptDisconnection", () => new keep.replication.SecondaryDisable("x", { cluster: "dr" })],
  ])("%s without %s fails in preview, naming it, before any request", async (_type, input, program) => {
    const message = await errorOf(engine.preview(program));
    expect(message).toMatch(new RegExp(`${input}: must be true to run this operation, accepting that`));
    expect(main.log.count + dr.log.count).toBe(0);
  });

  const refusals = (mode: string, allows: string) =>
    new RegExp(`is in replication mode "${mode}"; from "${mode}" the replication table allows: ${allows}; nothing was changed`);
  const ALLOWS = {
    disabled: "PrimaryEnable, SecondaryEnable",
    primary: "PrimaryDemote, PrimaryDisable, SecondaryToken, RevokeSecondary, PathsFilter",
    secondary: "SecondaryPromote, SecondaryDisable, UpdatePrimary",
  };

  test.each([
    ["PrimaryDemote", "demote a primary", () => new keep.replication.PrimaryDemote("x", { cluster: "dr" })],
    ["SecondaryToken", "generate a secondary activation token", () => new keep.replication.SecondaryToken("x", { cluster: "dr", secondaryId: "y" })],
    ["RevokeSecondary", "revoke a secondary", () => new keep.replication.RevokeSecondary("x", { cluster: "dr", secondaryId: "y" })],
    ["SecondaryPromote", "promote a secondary", () => new keep.replication.SecondaryPromote("x", { cluster: "dr" })],
    ["UpdatePrimary", "update the primary of a secondary", () => new keep.replication.UpdatePrimary("x", { cluster: "dr", token: "", forgetPrimary: true })],
  ])("disabled: %s is refused naming the mode and what the table allows; only the status is read", async (_type, what, program) => {
    clearLogs();
    const message = await errorOf(engine.up(program));
    expect(message).toMatch(new RegExp(`cannot ${what}: cluster "dr" is in replication mode "disabled"`));
    expect(message).toMatch(refusals("disabled", ALLOWS.disabled));
    expect(dr.log.lines()).toEqual([STATUS]);
  });

  test("a transition whose target mode holds does nothing and says so", async () => {
    const holds = async (program: () => unknown, said: RegExp) => {
      clearLogs();
      const result = await engine.up(program);
      expect(changes()).toEqual([]);
      expect(result.diagnostics.join("\n")).toMatch(said);
      await engine.destroy();
    };
    await holds(() => new keep.replication.PrimaryDisable("x", { cluster: "dr", acceptSecondariesDisconnected: true }), /nothing to do: cluster "dr": replication is already disabled/);
    await holds(() => new keep.replication.SecondaryDisable("x", { cluster: "dr", acceptDisconnection: true }), /nothing to do: cluster "dr": replication is already disabled/);
    await engine.up(replicated);
    await holds(() => (replicated(), new keep.replication.PrimaryEnable("again", {})), /nothing to do: the cluster: already a performance primary \(cluster ID [0-9a-f-]{36}\)/);
    await engine.up(replicated);
    await holds(() => (replicated(), new keep.replication.SecondaryPromote("x", {})), /nothing to do: the cluster: already a primary/);
    await engine.up(replicated);
    await holds(() => (replicated(), new keep.replication.PrimaryDemote("x", { cluster: "dr" })), /nothing to do: cluster "dr": already a secondary: nothing to demote/);
    await engine.up(replicated);
    await holds(() => (replicated(), new keep.replication.RevokeSecondary("x", { secondaryId: "nobody" })), /no secondary "nobody" is known to the primary: nothing to revoke/);
  });

  test("primary and secondary: each transition the table does not allow is refused; only the status is read", async () => {
    await engine.up(replicated);
    const onPrimary: [string, () => unknown][] = [
      ["enable a performance secondary", () => new keep.replication.SecondaryEnable("x", { token: "t", acceptDataWipe: true })],
      ["disable a secondary", () => new keep.replication.SecondaryDisable("x", { acceptDisconnection: true })],
      ["update the primary of a secondary", () => new keep.replication.UpdatePrimary("x", { token: "t" })],
    ];
    const onSecondary: [string, () => unknown][] = [
      ["enable a performance primary", () => new keep.replication.PrimaryEnable("x", { cluster: "dr" })],
      ["revoke a secondary", () => new keep.replication.RevokeSecondary("x", { cluster: "dr", secondaryId: "z" })],
      ["disable a primary", () => new keep.replication.PrimaryDisable("x", { cluster: "dr", acceptSecondariesDisconnected: true })],
      ["generate a secondary activation token", () => new keep.replication.SecondaryToken("x", { cluster: "dr", secondaryId: "z" })],
    ];
    for (const [mode, cases] of [["primary", onPrimary], ["secondary", onSecondary]] as const) {
      for (const [what, resource] of cases) {
        clearLogs();
        const message = await errorOf(engine.up(() => (replicated(), resource())));
        expect(message).toMatch(new RegExp(`cannot ${what}: .*is in replication mode "${mode}"`));
        expect(message).toMatch(refusals(mode, ALLOWS[mode]));
        expect(changes()).toEqual([]);
      }
    }
    // A secondary of another primary is told to use UpdatePrimary.
    await set.add("other");
    await engine.setConfig(configOf([main, dr, set.clusters.other]));
    baseConfig = undefined;
    const message = await errorOf(
      engine.up(() => {
        replicated();
        const other = new keep.replication.PrimaryEnable("other", { cluster: "other" });
        const token = new keep.replication.SecondaryToken("other-token", { cluster: "other", secondaryId: "dr" }, { dependsOn: other });
        new keep.replication.SecondaryEnable("dr-elsewhere", { cluster: "dr", token: token.token, acceptDataWipe: true });
      }),
    );
    expect(message).toMatch(/cannot enable a performance secondary: the cluster is already a secondary of another primary \(http:\/\/127\.0\.0\.1:\d+\): follow a new primary with keep\.replication\.UpdatePrimary, which wipes nothing; nothing was changed/);
    expect(dr.replication.primary?.node).toBe(main.replication);
  });

  test("a secondary that does not start streaming fails the run with its status, after the bounded wait", async () => {
    set.network.unreachable.add("https://main.cluster.keep.test:8201");
    const message = await errorOf(
      engine.up(() => {
        const primary = new keep.replication.PrimaryEnable("primary", {});
        const token = new keep.replication.SecondaryToken("dr-token", { secondaryId: "dr" }, { dependsOn: primary });
        new keep.replication.SecondaryEnable("dr", { cluster: "dr", token: token.token, acceptDataWipe: true, waitSeconds: 0.2 });
      }),
    );
    expect(message).toMatch(
      /the secondary did not start streaming from its primary: timed out after 0\.2 s waiting for cluster "dr" to report state "stream-wals"; last seen: state "connecting", primary https:\/\/main\.cluster\.keep\.test:8201 disconnected \(cannot reach the primary at https:\/\/main\.cluster\.keep\.test:8201\)/,
    );
  });

  test("UpdatePrimary: a blank token alone leaves the secondary; with forgetPrimary it forgets its primary", async () => {
    await engine.up(replicated);
    clearLogs();
    const left = await engine.up(() => (replicated(), new keep.replication.UpdatePrimary("forget", { cluster: "dr", token: "" })));
    expect(changes()).toEqual([]);
    expect(left.diagnostics.join("\n")).toMatch(/no activation token given .*: the secondary was left as it is; set forgetPrimary/);
    expect(dr.replication.status().state).toBe("stream-wals");

    const message = await errorOf(engine.preview(() => new keep.replication.UpdatePrimary("forget", { cluster: "dr", token: "t", forgetPrimary: true })));
    expect(message).toMatch(/forgetPrimary: takes a blank token/);

    clearLogs();
    await engine.up(() => (replicated(), new keep.replication.UpdatePrimary("forget", { cluster: "dr", token: "", forgetPrimary: true })));
    expect(dr.log.lines()).toEqual([STATUS, "POST /v1/sys/replication/performance/secondary/update-primary"]);
    expect(dr.replication.status()).toMatchObject({ mode: "secondary", state: "idle", primaries: [] });
    const again = await engine.up(() => (replicated(), new keep.replication.UpdatePrimary("forget", { cluster: "dr", token: "", forgetPrimary: true, triggers: [1] })));
    expect(again.diagnostics.join("\n")).toMatch(/nothing to do: cluster "dr": already follows no primary/);
  });

  test("SecondaryToken with revokeOnDestroy revokes its secondary at destroy; without it destroy leaves it", async () => {
    const program = (revokeOnDestroy: boolean) => () => {
      const primary = new keep.replication.PrimaryEnable("primary", {});
      const token = new keep.replication.SecondaryToken("dr-token", { secondaryId: "dr", revokeOnDestroy }, { dependsOn: primary });
      new keep.replication.SecondaryEnable("dr", { cluster: "dr", token: token.token, acceptDataWipe: true });
    };
    await engine.up(program(false));
    // Whether destroy revokes is a setting: changing it runs nothing again.
    clearLogs();
    expect(summarize((await engine.up(program(true))).steps)).toEqual({ same: 2, update: 1 });
    expect(changes()).toEqual([]);
    clearLogs();
    await engine.destroy();
    expect(main.log.lines()).toEqual([STATUS, "POST /v1/sys/replication/performance/primary/revoke-secondary"]);
    expect(main.replication.secondaries.size).toBe(0);
    expect(dr.replication.status()).toMatchObject({ mode: "secondary", state: "connecting" });
  });

  test("getStatus needs no token; a disabled cluster reads as such", async () => {
    const config = { "keep:address": main.url, "keep-dr:address": dr.url };
    const ctx = createContext((key) => config[key as keyof typeof config]);
    expect(await keep.replication.getStatus({}, ctx)).toEqual({ mode: "disabled" });
    await engine.up(replicated);
    expect(await keep.replication.getStatus({ cluster: "dr" }, ctx)).toMatchObject({ mode: "secondary", clusterId: dr.replication.clusterId });
    await expect(keep.replication.getStatus({ cluster: "DR" } as never, ctx)).rejects.toThrow(/keep\.replication\.getStatus\(\): cluster: must be a cluster name/);
  });

  test("a secondary that reports bootstrapping first is waited for", async () => {
    set.network.bootstrapReads = 2;
    clearLogs();
    await engine.up(replicated);
    expect(dr.log.lines().filter((l) => l === STATUS)).toHaveLength(4);
    expect(dr.replication.status().state).toBe("stream-wals");
  });

  test("the token given by reference stays out of state", async () => {
    await engine.up(() => new keep.replication.PrimaryEnable("primary", {}));
    const answer = await fetch(`${main.url}/v1/sys/replication/performance/primary/secondary-token`, {
      method: "POST",
      headers: { "X-Keep-Token": main.rootToken },
      body: JSON.stringify({ id: "dr" }),
    });
    const token = ((await answer.json()) as { wrap_info: { token: string } }).wrap_info.token;
    await engine.setConfig({ ...configOf([main, dr]), "replication:drToken": token });
    baseConfig = undefined;
    await engine.up(() => {
      new keep.replication.PrimaryEnable("primary", {});
      new keep.replication.SecondaryEnable("dr", { cluster: "dr", token: { fromConfig: "replication:drToken" }, acceptDataWipe: true });
    });
    expect(dr.replication.mode).toBe("secondary");
    expect(JSON.stringify(engine.exportState())).not.toContain(token);
  });
});
