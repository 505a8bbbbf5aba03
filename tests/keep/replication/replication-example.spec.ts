/** examples/replication, run in its two stages as a program through the harness against two emulator clusters. */
import * as path from "node:path";
import { Engine, summarize } from "../../../harness";
import { KeepCluster, KeepClusterSet, startKeepClusters } from "../../../emulator/keep/replication";
import { keepConfig } from "../../support/keep-stack";

const exampleDir = path.join(__dirname, "..", "..", "..", "examples", "replication");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const example = require(path.join(exampleDir, "index.ts")) as () => Promise<Record<string, unknown>>;

describe("examples/replication", () => {
  let set: KeepClusterSet;
  let main: KeepCluster;
  let dr: KeepCluster;
  let engine: Engine;
  beforeAll(async () => {
    set = await startKeepClusters(["main", "dr"]);
    ({ main, dr } = set.clusters as Record<"main" | "dr", KeepCluster>);
    engine = new Engine({ project: "keepstack-replication", cwd: exampleDir, config: {}, secretConfig: ["keep:token", "keep-dr:token"] });
  });
  afterAll(async () => {
    await engine.close();
    await set.close();
  });

  test("a primary and its secondary, then a failover; each stage run again, or after lost state, changes nothing", async () => {
    main.mount("scratch", "kv");
    main.kv.write({ mount: "scratch", path: "draft" }, { text: "not for dr" });
    main.putPolicy("acl", "team", { policy: 'path "secret/data/team/*" {}' });
    dr.putPolicy("acl", "before-wipe", { policy: 'path "x" {}' });
    const config = {
      ...keepConfig(main),
      "keep-dr:address": dr.url,
      "keep-dr:token": dr.rootToken,
      "keep-dr:retryBaseDelayMs": "5",
    };
    const writes = () => [...main.log.entries, ...dr.log.entries].filter((e) => e.method !== "GET").map((e) => `${e.method} ${e.path}`);
    const clearLogs = () => [main, dr].forEach((c) => c.log.clear());
    await engine.setConfig(config);
    expect(summarize((await engine.preview(example)).steps)).toEqual({ create: 4 });

    const first = await engine.up(example);
    expect(summarize(first.steps)).toEqual({ create: 4 });
    expect(first.outputs).toMatchObject({ drState: "stream-wals", drMode: "secondary", drClusterId: dr.replication.clusterId });
    expect(dr.getPolicy("acl", "team")?.policy).toBe('path "secret/data/team/*" {}');
    expect(dr.getPolicy("acl", "before-wipe")).toBeUndefined();
    expect(dr.mounts().some((m) => m.path === "scratch/")).toBe(false);
    main.putPolicy("acl", "later", { policy: 'path "z" {}' });
    expect(dr.getPolicy("acl", "later")?.policy).toBe('path "z" {}');

    clearLogs();
    expect(summarize((await engine.up(example)).steps)).toEqual({ same: 4 });
    expect(writes()).toEqual([]);

    await engine.setConfig({ ...config, "replication:failover": "true" });
    const failover = await engine.up(example);
    expect(summarize(failover.steps)).toEqual({ create: 4, delete: 4 });
    expect(failover.outputs).toEqual({ drMode: "primary", formerPrimaryState: "stream-wals", formerPrimaryMode: "secondary" });
    expect([main.replication.mode, dr.replication.mode]).toEqual(["secondary", "primary"]);
    // The old primary follows dr now, without a wipe.
    dr.putPolicy("acl", "after-failover", { policy: 'path "y" {}' });
    expect(main.getPolicy("acl", "after-failover")?.policy).toBe('path "y" {}');

    clearLogs();
    expect(summarize((await engine.up(example)).steps)).toEqual({ same: 4 });
    engine.state.clear();
    expect(summarize((await engine.up(example)).steps)).toEqual({ create: 4 });
    expect(writes()).toEqual([]);
    expect(main.replication.status()).toMatchObject({ mode: "secondary", state: "stream-wals", secondary_id: "primary" });
  });
});
