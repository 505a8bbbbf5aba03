/**
 * Mounts on the secrets-service emulator: the mount table per namespace, `sys/mounts` over HTTP
 * (answered as the system backend does), the emulator's mount API, and the service's refusals.
 */
import { KeepMount, KeepState, startKeepEmulator } from "../../../emulator/keep";
import { call, expectEnvelope, expectErrors, keep, useKeepEmulator } from "./fixture";

useKeepEmulator();

const ACCESSOR = (type: string) => new RegExp(`^${type}_[0-9a-f]{8}$`);

describe("the mount table", () => {
  test("the root namespace starts with the system mounts and every engine at its conventional path (secret/ as key-value version 2)", () => {
    const mounts = keep().mounts();
    expect(mounts.map((m) => [m.path, m.type])).toEqual([
      ["cloudA/", "cloudA"],
      ["cubbyhole/", "cubbyhole"],
      ["identity/", "identity"],
      ["secret/", "kv"],
      ["sys/", "system"],
      ["transform/", "transform"],
    ]);
    const secret = mounts.find((m) => m.path === "secret/")!;
    expect(secret.options).toEqual({ version: "2" });
    expect(secret.accessor).toMatch(ACCESSOR("kv"));
    expect(mounts.find((m) => m.path === "sys/")!.accessor).toMatch(ACCESSOR("system"));
  });

  test("a bare emulator has only the system mounts; a path under no mount says so and names sys/mounts", async () => {
    const bare = await startKeepEmulator({ bare: true });
    try {
      expect(bare.mounts().map((m) => m.path)).toEqual(["cubbyhole/", "identity/", "sys/"]);
      const missing = await call("GET", "/v1/transform/alphabet/hex-upper", {}, bare);
      expect(expectErrors(missing, 404)).toEqual([
        'no handler for route "transform/alphabet/hex-upper": no secrets engine is mounted at "transform/"; GET sys/mounts lists the mounts, POST sys/mounts/transform mounts one',
      ]);
    } finally {
      await bare.close();
    }
  });

  test("GET sys/mounts answers each mount by path, at the top level and in data", async () => {
    const result = await call("GET", "/v1/sys/mounts");
    expect(result.status).toBe(200);
    expectEnvelope(result.body, "system");
    const secret = result.body.data["secret/"];
    expect(secret).toEqual(
      expect.objectContaining({
        type: "kv",
        options: { version: "2" },
        accessor: keep().mounts().find((m) => m.path === "secret/")!.accessor,
        config: expect.objectContaining({ default_lease_ttl: 0, max_lease_ttl: 0 }),
        local: false,
        seal_wrap: false,
      }),
    );
    expect(result.body["secret/"]).toEqual(secret);
    expect(result.body.data["sys/"].options).toBeNull();
  });

  test("a mount made over HTTP is routed, read back, and removed with what it stored", async () => {
    expect((await call("POST", "/v1/sys/mounts/kv-one", { body: { type: "kv", description: "first" } })).status).toBe(204);
    const read = await call("GET", "/v1/sys/mounts/kv-one");
    expect(read.body.data).toEqual(expect.objectContaining({ type: "kv", description: "first", options: { version: "1" } }));
    expect(read.body.type).toBe("kv");
    expect((await call("POST", "/v1/kv-one/app", { body: { password: "p" } })).status).toBe(204);
    expect((await call("GET", "/v1/kv-one/app")).body.data).toEqual({ password: "p" });

    expect((await call("DELETE", "/v1/sys/mounts/kv-one")).status).toBe(204);
    expect(keep().mounts().map((m) => m.path)).not.toContain("kv-one/");
    expectErrors(await call("GET", "/v1/kv-one/app"), 404);
    // Mounted again, it starts empty.
    await call("POST", "/v1/sys/mounts/kv-one", { body: { type: "kv" } });
    expect((await call("GET", "/v1/kv-one/app")).status).toBe(404);
    await call("DELETE", "/v1/sys/mounts/kv-one");
  });

  test("type kv-v2 is a key-value engine of version 2; a path may have several segments", async () => {
    expect((await call("POST", "/v1/sys/mounts/apps/prod/", { body: { type: "kv-v2" } })).status).toBe(204);
    const mount = keep().mounts().find((m) => m.path === "apps/prod/")!;
    expect(mount.type).toBe("kv");
    expect(mount.options).toEqual({ version: "2" });
    expect((await call("POST", "/v1/apps/prod/data/db", { body: { data: { user: "u" } } })).status).toBe(200);
    expect((await call("GET", "/v1/apps/prod/data/db")).body.data.data).toEqual({ user: "u" });
    // Only the whole mount path routes there.
    expectErrors(await call("GET", "/v1/apps/data/db"), 404);
    keep().unmount("apps/prod");
  });

  test("refusals: unknown type, reserved path, path in use, path inside or above a mount, bad version", async () => {
    const before = keep().mounts().length;
    expect(expectErrors(await call("POST", "/v1/sys/mounts/x", { body: { type: "no-such-engine" } }), 400)[0]).toContain("no-such-engine");
    expectErrors(await call("POST", "/v1/sys/mounts/x", { body: {} }), 400);
    expectErrors(await call("POST", "/v1/sys/mounts/auth/x", { body: { type: "kv" } }), 400);
    expectErrors(await call("POST", "/v1/sys/mounts/cubbyhole/x", { body: { type: "kv" } }), 400);
    expect(expectErrors(await call("POST", "/v1/sys/mounts/secret", { body: { type: "kv" } }), 400)[0]).toContain("secret/");
    expectErrors(await call("POST", "/v1/sys/mounts/secret/inner", { body: { type: "kv" } }), 400);
    keep().mount("deep/inner", "kv");
    expectErrors(await call("POST", "/v1/sys/mounts/deep", { body: { type: "kv" } }), 400);
    keep().unmount("deep/inner");
    expectErrors(await call("POST", "/v1/sys/mounts/x", { body: { type: "kv", options: { version: "3" } } }), 400);
    expect(keep().mounts().length).toBe(before);
    expect(() => keep().unmount("sys")).toThrow(/sys/);
    expect(() => keep().mount("system-again", "system")).toThrow(/system/);
  });

  test("unmounting a path with nothing there succeeds", async () => {
    expect((await call("DELETE", "/v1/sys/mounts/never-mounted")).status).toBe(204);
    expect(keep().unmount("never-mounted")).toBe(false);
  });
});

describe("mounts per namespace", () => {
  beforeAll(() => keep().addNamespace("team-m"));

  test("a child namespace has the system mounts only, and its mounts are its own", async () => {
    expect(keep().mounts("team-m").map((m) => m.path)).toEqual(["cubbyhole/", "identity/", "sys/"]);
    const made = keep().mount("kv", "kv-v2", { namespace: "team-m" });
    expect(made.accessor).toMatch(ACCESSOR("kv"));
    expect(keep().mounts().map((m) => m.path)).not.toContain("kv/");

    expect((await call("POST", "/v1/team-m/kv/data/a", { body: { data: { k: "v" } } })).status).toBe(200);
    const table = await call("GET", "/v1/sys/mounts", { headers: { "X-Keep-Namespace": "team-m" } });
    expect(table.body.data["kv/"].accessor).toBe(made.accessor);
    expectErrors(await call("GET", "/v1/kv/data/a"), 404);
  });

  test("a namespace and a mount cannot share a name", async () => {
    keep().mount("shared-name", "kv");
    expectErrors(await call("POST", "/v1/sys/namespaces/shared-name"), 400);
    keep().addNamespace("ns-first");
    expectErrors(await call("POST", "/v1/sys/mounts/ns-first", { body: { type: "kv" } }), 400);
  });

  test("mount helpers name a namespace that must exist", () => {
    expect(() => keep().mounts("not-there")).toThrow(/not-there/);
  });
});

describe("mount resolution", () => {
  test("the mount with the longest matching path wins, and the rest of the path is relative to it", () => {
    // The API refuses nested mounts; the resolution rule is checked on a table built directly.
    const state = new KeepState("resolution-root");
    const ns = state.root;
    const noSeeds = () => undefined;
    const ignore = () => undefined;
    ns.mounts.set("a", new KeepMount(ns, "a", "kv", {}, noSeeds, ignore));
    ns.mounts.set("a/b", new KeepMount(ns, "a/b", "kv", {}, noSeeds, ignore));
    const deep = state.resolveMount(ns, ["a", "b", "c"]);
    expect([deep?.mount.path, deep?.rest]).toEqual(["a/b", ["c"]]);
    const shallow = state.resolveMount(ns, ["a", "x", "c"]);
    expect([shallow?.mount.path, shallow?.rest]).toEqual(["a", ["x", "c"]]);
    expect(state.resolveMount(ns, ["b"])).toBeUndefined();
    expect(state.resolveMount(ns, ["sys", "mounts"])?.mount.type).toBe("system");
  });
});
