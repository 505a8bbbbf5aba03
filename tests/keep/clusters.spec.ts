/** Several clusters, one program (ARCHITECTURE.md, "Several clusters"): `cluster` selects `keep-<name>:` settings and is part of the ID. */
import { keep } from "pulumi-keepstack";
import { Engine, EngineError, summarize } from "../../harness";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { keepConfig } from "../support/keep-stack";

const TEXT = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';

describe("named clusters", () => {
  let main: KeepEmulator;
  let dr: KeepEmulator;
  beforeAll(async () => {
    [main, dr] = await Promise.all([startKeepEmulator(), startKeepEmulator()]);
  });
  afterAll(async () => {
    await Promise.all([main.close(), dr.close()]);
  });

  const program = () => {
    new keep.AclPolicy("here", { name: "here", policy: TEXT });
    new keep.AclPolicy("there", { name: "there", policy: TEXT, cluster: "dr" });
  };

  test("each resource goes to its cluster; the cluster is part of the ID; the token stays out of state", async () => {
    const engine = new Engine({
      project: "clusters",
      config: { ...keepConfig(main), "keep-dr:address": dr.url, "keep-dr:token": dr.rootToken },
      secretConfig: ["keep:token", "keep-dr:token"],
    });
    try {
      main.log.clear();
      dr.log.clear();
      expect(summarize((await engine.preview(program)).steps)).toEqual({ create: 2 });
      expect(main.log.count + dr.log.count).toBe(0);

      await engine.up(program);
      expect(main.listPolicies("acl")).toEqual(["default", "here", "root"]);
      expect(dr.listPolicies("acl")).toEqual(["default", "root", "there"]);
      const ids = Object.fromEntries([...engine.state.values()].map((r) => [r.name, r.id]));
      expect(ids).toEqual({ here: "here", there: "dr@there" });
      expect(JSON.stringify(engine.exportState())).not.toContain(dr.rootToken);

      // Drift on the named cluster is seen there and put back there.
      dr.putPolicy("acl", "there", { policy: 'path "x" {}' });
      expect((await engine.refresh()).steps.filter((s) => s.diffs?.length)).toEqual([expect.objectContaining({ name: "there", diffs: ["policy"] })]);
      await engine.up(program);
      expect(dr.getPolicy("acl", "there")?.policy).toBe(TEXT);
      expect(main.getPolicy("acl", "there")).toBeUndefined();

      // Moving a resource to another cluster replaces it.
      const moved = await engine.preview(() => new keep.AclPolicy("there", { name: "there", policy: TEXT }));
      expect(moved.steps.find((s) => s.name === "there")).toMatchObject({ op: "replace", replaces: ["cluster"] });

      await engine.destroy();
      expect(dr.getPolicy("acl", "there")).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  test("a cluster's settings may come from KEEP_<CLUSTER>_ADDR and KEEP_<CLUSTER>_TOKEN", async () => {
    const engine = new Engine({ project: "clusters", config: keepConfig(main), env: { KEEP_DR_ADDR: dr.url, KEEP_DR_TOKEN: dr.rootToken } });
    try {
      await engine.up(() => new keep.AclPolicy("there", { name: "by-env", policy: TEXT, cluster: "dr" }));
      expect(dr.getPolicy("acl", "by-env")?.policy).toBe(TEXT);
      await engine.destroy();
    } finally {
      await engine.close();
    }
  });

  test("a cluster without settings fails in preview, naming the settings to add", async () => {
    const engine = new Engine({ project: "clusters", config: keepConfig(main) });
    try {
      const error = (await engine.preview(() => new keep.AclPolicy("x", { name: "x", policy: TEXT, cluster: "west" })).catch((e) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.message).toMatch(/invalid inputs:\n\s+cluster: cluster "west": no address configured: set keep-west:address \(or KEEP_WEST_ADDR\)/);
    } finally {
      await engine.close();
    }
  });

  test("a failure on a named cluster points at that cluster's settings", async () => {
    const engine = new Engine({ project: "clusters", config: { ...keepConfig(main), "keep-west:address": "http://127.0.0.1:1", "keep-west:token": "t", "keep-west:maxRetries": "0" } });
    try {
      const error = (await engine.up(() => new keep.AclPolicy("x", { name: "x", policy: TEXT, cluster: "west" })).catch((e) => e)) as EngineError;
      expect(error.message).toMatch(/check that the service is reachable at http:\/\/127\.0\.0\.1:1 \(keep-west:address \(or KEEP_WEST_ADDR\)\)/);
    } finally {
      await engine.close();
    }
  });

  test("a bad cluster name fails in preview, naming the property", async () => {
    const engine = new Engine({ project: "clusters", config: keepConfig(main) });
    try {
      const error = (await engine.preview(() => new keep.AclPolicy("x", { name: "x", policy: TEXT, cluster: "DR_1" })).catch((e) => e)) as EngineError;
      expect(error.message).toMatch(/cluster: must be a cluster name/);
    } finally {
      await engine.close();
    }
  });
});
