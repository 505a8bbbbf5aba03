/**
 * Building an engine on the emulator: a collection registered on an engine type, mounted at one or
 * more paths (one or several segments, in any namespace), dispatched by mount, documented by help,
 * and reachable out of band through `keep.objects`; change events for every write.
 */
import { KeepChange, addCollection } from "../../../emulator/keep";
import { readStringList } from "../../../emulator/keep/fields";
import { badRequest } from "../../../emulator/keep/replies";
import { call, expectEnvelope, expectErrors, keep, useKeepEmulator } from "./fixture";

useKeepEmulator();

interface Role {
  transformations: string[];
}

beforeAll(() => {
  const engine = keep().router.engine("gadget", { summary: "An engine of the test's own (the shape of a transform engine)." });
  addCollection<Role>(engine, {
    path: "role",
    label: "transform role",
    parse: (body) => {
      const transformations = readStringList(body, "transformations") ?? [];
      if (transformations.some((t) => t.includes(" "))) throw badRequest("'transformations' names must not contain spaces");
      return { transformations };
    },
    view: (stored) => ({ transformations: [...stored.transformations] }),
  });
  addCollection<{ alphabet: string }>(engine, {
    path: "alphabet",
    label: "alphabet",
    normalizeName: (name) => name.toLowerCase(),
    seed: { builtin: { alphabet: "0123456789" } },
    writeAnswer: "view",
    parse: (body) => ({ alphabet: String(body.alphabet ?? "") }),
  });
  keep().mount("gadgets", "gadget");
  keep().mount("tx/prod", "gadget");
});

describe("a collection over HTTP", () => {
  test("write, read, list and delete, answered inside data with the engine's mount type", async () => {
    expect((await call("POST", "/v1/gadgets/role/payments", { body: { transformations: "ccn, ssn" } })).status).toBe(204);
    const read = await call("GET", "/v1/gadgets/role/payments");
    expect(read.status).toBe(200);
    expectEnvelope(read.body, "gadget");
    expect(read.body.data).toEqual({ transformations: ["ccn", "ssn"] });
    // Engines answer only inside data.
    expect(read.body.transformations).toBeUndefined();

    const list = await call("GET", "/v1/gadgets/role?list=true");
    expect(list.body.data).toEqual({ keys: ["payments"] });
    expect(list.body.keys).toBeUndefined();

    expect((await call("DELETE", "/v1/gadgets/role/payments")).status).toBe(204);
    expectErrors(await call("GET", "/v1/gadgets/role/payments"), 404);
    const empty = await call("GET", "/v1/gadgets/role?list=true");
    expect(empty.status).toBe(404);
    expect(empty.body).toEqual({ errors: [] });
  });

  test("the parse function's refusal is a 400 and stores nothing", async () => {
    expect(expectErrors(await call("POST", "/v1/gadgets/role/bad", { body: { transformations: ["a b"] } }), 400)[0]).toContain("transformations");
    expect(keep().objects.read({ mount: "gadgets", kind: "role", name: "bad" })).toBeUndefined();
  });

  test("seeds, name rules and a write that answers the object", async () => {
    const listed = await call("GET", "/v1/tx/prod/alphabet?list=true");
    expect(listed.body.data.keys).toEqual(["builtin"]);
    const written = await call("POST", "/v1/tx/prod/alphabet/Letters", { body: { alphabet: "abc" } });
    expect(written.status).toBe(200);
    expect(written.body.data).toEqual({ alphabet: "abc" });
    expect((await call("GET", "/v1/tx/prod/alphabet/LETTERS")).body.data).toEqual({ alphabet: "abc" });
    expect(keep().objects.list({ mount: "tx/prod", kind: "alphabet" })).toEqual(["builtin", "letters"]);
  });
});

describe("mounts dispatch to their engine", () => {
  test("each mount has its own objects; a multi-segment mount routes by its whole path", async () => {
    await call("POST", "/v1/tx/prod/role/only-prod", { body: { transformations: ["t"] } });
    expect((await call("GET", "/v1/tx/prod/role/only-prod")).status).toBe(200);
    expectErrors(await call("GET", "/v1/gadgets/role/only-prod"), 404);
    const unrouted = expectErrors(await call("GET", "/v1/tx/role/only-prod"), 404);
    expect(unrouted[0]).toContain("tx/role/only-prod");
    // Every segment of the mount path must match, not only the first.
    expectErrors(await call("GET", "/v1/tx/other/role/only-prod"), 404);
  });

  test("an engine mounted in a namespace is reached through the header or the path prefix", async () => {
    keep().addNamespace("team-t");
    keep().mount("gadgets", "gadget", { namespace: "team-t" });
    await call("POST", "/v1/team-t/gadgets/role/ns-role", { body: { transformations: ["x"] } });
    const byHeader = await call("GET", "/v1/gadgets/role/ns-role", { headers: { "X-Keep-Namespace": "team-t" } });
    expect(byHeader.body.data).toEqual({ transformations: ["x"] });
    expectErrors(await call("GET", "/v1/gadgets/role/ns-role"), 404);
  });

  test("a path the engine has no route for is 404, a method it lacks is 405", async () => {
    expectErrors(await call("GET", "/v1/gadgets/nowhere/x"), 404);
    expectErrors(await call("PATCH", "/v1/gadgets/role/x", { body: {} }), 405);
  });

  test("help under a mount documents the engine's routes relative to the queried path", async () => {
    const help = await call("GET", "/v1/tx/prod?help=1");
    expect(help.status).toBe(200);
    expect(Object.keys(help.body.openapi.paths)).toEqual(expect.arrayContaining(["/role", "/role/{name}", "/alphabet/{name}"]));
    const exact = await call("GET", "/v1/tx/prod/role/x?help=1");
    expect(exact.body.help).toContain("tx/prod/role/:name");
  });
});

describe("out-of-band access", () => {
  test("read, view, write, change, delete and list any stored object", async () => {
    const ref = { mount: "gadgets", kind: "role", name: "oob" };
    keep().objects.write(ref, { transformations: ["one"] });
    expect((await call("GET", "/v1/gadgets/role/oob")).body.data).toEqual({ transformations: ["one"] });
    expect(keep().objects.view(ref)).toEqual({ transformations: ["one"] });

    // A change behind the program's back is what the API answers next.
    keep().objects.change<Role>(ref, { transformations: ["drifted"] });
    expect((await call("GET", "/v1/gadgets/role/oob")).body.data.transformations).toEqual(["drifted"]);
    keep().objects.change<Role>(ref, (role) => ({ transformations: [...role.transformations, "more"] }));
    expect(keep().objects.read<Role>(ref)).toEqual({ transformations: ["drifted", "more"] });

    // What read hands out is a copy.
    keep().objects.read<Role>(ref)!.transformations.push("not stored");
    expect(keep().objects.read<Role>(ref)!.transformations).toEqual(["drifted", "more"]);

    expect(keep().objects.list({ mount: "gadgets", kind: "role" })).toContain("oob");
    expect(keep().objects.delete(ref)).toBe(true);
    expect(keep().objects.delete(ref)).toBe(false);
    expectErrors(await call("GET", "/v1/gadgets/role/oob"), 404);
    expect(() => keep().objects.change(ref, {})).toThrow(/oob/);
  });

  test("system objects are addressed by mount sys, with the kind's name rule", async () => {
    keep().objects.write({ mount: "sys", kind: "policies/acl", name: "Ops" }, { name: "ops", policy: "# oob" });
    expect((await call("GET", "/v1/sys/policies/acl/ops")).body.data).toEqual({ name: "ops", policy: "# oob" });
    expect(keep().getPolicy("acl", "OPS")).toEqual({ name: "ops", policy: "# oob" });
  });

  test("a mount or namespace that does not exist is an error, not undefined", () => {
    expect(() => keep().objects.read({ mount: "nothing", kind: "role", name: "x" })).toThrow(/nothing/);
    expect(() => keep().objects.read({ namespace: "ghost", mount: "sys", kind: "role", name: "x" })).toThrow(/ghost/);
  });
});

describe("change events", () => {
  test("API writes, out-of-band changes, deletes and mounts are announced in order", async () => {
    const seen: string[] = [];
    const stop = keep().onChange((change: KeepChange) => {
      const where = `${change.namespace.path || "root"}:${change.mount.path}`;
      seen.push(change.change === "write" || change.change === "delete"
        ? `${change.change} ${where} ${change.kind}/${change.name} ${change.source}`
        : `${change.change} ${where} ${change.source}`);
    });
    try {
      await call("POST", "/v1/gadgets/role/evt", { body: { transformations: ["a"] } });
      keep().objects.change({ mount: "gadgets", kind: "role", name: "evt" }, { transformations: ["b"] });
      await call("DELETE", "/v1/gadgets/role/evt");
      await call("POST", "/v1/sys/mounts/extra", { body: { type: "gadget" } });
      await call("DELETE", "/v1/sys/mounts/extra");
    } finally {
      stop();
    }
    await call("POST", "/v1/gadgets/role/after", { body: {} });
    expect(seen).toEqual([
      "write root:gadgets role/evt api",
      "write root:gadgets role/evt out-of-band",
      "delete root:gadgets role/evt api",
      "mount root:extra api",
      "unmount root:extra api",
    ]);
  });
});
