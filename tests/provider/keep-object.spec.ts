/**
 * The builder of objects at a path: templates, IDs, the field table both ways, answer shapes, the
 * `data` envelope, singletons. Driven against a scripted server whose request log is asserted.
 */
import Fastify, { FastifyInstance } from "fastify";
import { z } from "zod";
import { createContext, OperationContext } from "../../provider/context";
import { objectAt } from "../../provider/contracts/keep";
import { ResponseShapeError } from "../../provider/errors";
import { keepId, keepObject, mountInput, splitKeepId } from "../../provider/keep-object";
import { pathTemplate } from "../../provider/paths";
import { createMachine } from "../../provider/object-machine";

describe("path templates", () => {
  test("render and parse, one segment or several", () => {
    const t = pathTemplate("{mount*}/roles/{name}");
    expect(t.params).toEqual(["mount", "name"]);
    expect(t.render({ mount: "teams/cloud", name: "a b" })).toBe("teams/cloud/roles/a%20b");
    expect(t.parse("teams/cloud/roles/deploy")).toEqual({ mount: "teams/cloud", name: "deploy" });
    expect(t.parse("cloud/roles")).toBeUndefined();
    expect(pathTemplate("{mount*}/{path*}").parse("secret/a/b")).toEqual({ mount: "secret", path: "a/b" });
    expect(pathTemplate("sync-config").parse("sync-config")).toEqual({});
  });

  test("IDs carry the cluster and the namespace", () => {
    expect(keepId({}, "p")).toBe("p");
    expect(keepId({ namespace: "team-a/dev" }, "cloud/roles/r")).toBe("team-a/dev:cloud/roles/r");
    expect(keepId({ cluster: "dr", namespace: "ns" }, "p")).toBe("dr@ns:p");
    expect(splitKeepId("dr@ns:p")).toEqual({ cluster: "dr", namespace: "ns", id: "p" });
    expect(splitKeepId("ns:p")).toEqual({ namespace: "ns", id: "p" });
    expect(splitKeepId("dr@p")).toEqual({ cluster: "dr", id: "p" });
  });
});

const gadget = keepObject({
  type: "TestGadget",
  description: "A gadget",
  rows: objectAt("{mount*}/gadgets/{name}", {
    answer: z.object({ max_size: z.number().optional(), palette: z.string().optional() }),
    // A write answers with the object, its serial among its fields.
    written: z.object({ serial: z.string() }).partial(),
  }),
  id: "{mount*}/gadgets/{name}",
  inputs: z.object({
    /** Mount. */
    mount: mountInput("gear"),
    /** Name. */
    name: z.string(),
    /** Sent as max_size. */
    maxSize: z.number().optional(),
    /** Sent under another name, as a comma list. */
    colours: z.array(z.string()).optional(),
    /** Never returned. */
    password: z.string().optional(),
  }),
  fields: {
    colours: { wire: "palette", toWire: (v) => v?.join(","), fromWire: (v) => String(v).split(",") },
    password: { writeOnly: true },
  },
  computed: z.object({ serial: z.string() }),
  computedOf: (a) => ({ serial: String(a.serial ?? "") }),
});

const settings = keepObject({
  type: "TestSettings",
  description: "Settings",
  rows: objectAt("sys/test/settings", { write: "PATCH sys/test/settings", list: false }),
  id: "test-settings",
  inputs: z.object({
    /** Off switch. */
    disabled: z.boolean().optional(),
    /** Capacity. */
    queueCapacity: z.number().optional(),
  }),
  singleton: { restore: { disabled: false, queueCapacity: 1000000 } },
});

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  namespace?: string;
  token?: string;
  body?: unknown;
}

describe("objects at a path", () => {
  let server: FastifyInstance;
  let base: string;
  const seen: Seen[] = [];
  let reply: (req: Seen) => { status: number; body?: unknown } = () => ({ status: 204 });
  const infos: string[] = [];
  const ctxFor = (config: Record<string, string>): OperationContext => ({
    ...createContext((k) => config[k], {}),
    info: (m) => infos.push(m),
  });

  beforeAll(async () => {
    server = Fastify();
    // JSON bodies, empty ones included (the client sends its content type on every request).
    const json = (_req: unknown, body: string | Buffer, done: (e: Error | null, v?: unknown) => void) => done(null, String(body) ? JSON.parse(String(body)) : undefined);
    server.removeAllContentTypeParsers();
    server.addContentTypeParser(["application/json", "application/merge-patch+json"], { parseAs: "string" }, json);
    server.all("/*", async (req, res) => {
      const entry: Seen = {
        method: req.method,
        url: req.url,
        contentType: req.headers["content-type"],
        namespace: req.headers["x-keep-namespace"] as string | undefined,
        token: req.headers["x-keep-token"] as string | undefined,
        body: req.body,
      };
      seen.push(entry);
      const { status, body } = reply(entry);
      res.status(status);
      return body === undefined ? res.send() : res.send(body);
    });
    base = await server.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    seen.length = 0;
    infos.length = 0;
  });

  /** Answers 404 to a read until the first write, then `answer` to everything. */
  const absentUntilWritten = (answer: { status: number; body?: unknown }) => (req: Seen) =>
    req.method === "GET" && !seen.some((s) => s.method !== "GET") ? { status: 404 } : answer;

  const config = () => ({ "keep:address": base, "keep:token": "t-default", "keep-dr:address": base, "keep-dr:token": "t-dr" });

  test("create sends the field table's wire names to the rendered path; path parameters are not sent", async () => {
    const machine = createMachine(gadget, () => ctxFor(config()));
    reply = absentUntilWritten({ status: 204 });
    const created = await machine.create({ name: "g1", maxSize: 3, colours: ["red", "blue"], password: "pw", namespace: "ns1" });
    expect(created.id).toBe("ns1:gear/gadgets/g1");
    // Read first: a create never writes over an object it did not make.
    expect(seen[0]).toMatchObject({ method: "GET", url: "/v1/gear/gadgets/g1", namespace: "ns1" });
    expect(seen[1]).toMatchObject({ method: "POST", url: "/v1/gear/gadgets/g1", namespace: "ns1", token: "t-default", body: { max_size: 3, palette: "red,blue", password: "pw" } });
    // The object answered nothing: its computed values are read back.
    expect(seen[2]).toMatchObject({ method: "GET", url: "/v1/gear/gadgets/g1" });
  });

  test("a read maps wire names back, bare or inside the data envelope; write-only fields keep the state's value", async () => {
    const machine = createMachine(gadget, () => ctxFor(config()));
    const state = { mount: "gear", name: "g1", password: "pw", maxSize: 1, serial: "s0" };
    reply = () => ({ status: 200, body: { max_size: 5, palette: "green", password: "****", serial: "s1" } });
    expect((await machine.read("gear/gadgets/g1", state)).props).toEqual({ mount: "gear", name: "g1", maxSize: 5, colours: ["green"], password: "pw", serial: "s1", __address: base });
    reply = () => ({ status: 200, body: { request_id: "r", lease_id: "", data: { max_size: 7, palette: "a,b", serial: "s2" } } });
    expect((await machine.read("gear/gadgets/g1", state)).props).toMatchObject({ maxSize: 7, colours: ["a", "b"], password: "pw", serial: "s2" });
  });

  test("the cluster in an ID selects its connection", async () => {
    const machine = createMachine(gadget, () => ctxFor(config()));
    reply = absentUntilWritten({ status: 200, body: { data: { serial: "s" } } });
    const created = await machine.create({ name: "g2", cluster: "dr" });
    expect(created.id).toBe("dr@gear/gadgets/g2");
    expect(seen.map((s) => s.token)).toEqual(["t-dr", "t-dr"]);
    await machine.delete(created.id, created.outs);
    expect(seen[2]).toMatchObject({ method: "DELETE", url: "/v1/gear/gadgets/g2", token: "t-dr" });
  });

  test("an answer of another shape is a response-shape error naming the field", async () => {
    const machine = createMachine(gadget, () => ctxFor(config()));
    reply = () => ({ status: 200, body: { data: { max_size: "large" } } });
    const error = (await machine.read("gear/gadgets/g1", {}).catch((e) => e)) as Error & { cause: unknown };
    expect(error.cause).toBeInstanceOf(ResponseShapeError);
    expect(error.message).toMatch(/keep: GET \/v1\/gear\/gadgets\/g1 answered with an unexpected body: max_size: .*number/);
  });

  test("settings holding other than the service's defaults are someone's: a create refuses them by name and writes nothing", async () => {
    const machine = createMachine(settings, () => ctxFor(config()));
    reply = () => ({ status: 200, body: { data: { disabled: true, queue_capacity: 10 } } });
    const error = (await machine.create({ disabled: true, queueCapacity: 10 }).catch((e) => e)) as Error;
    expect(error.message).toMatch(/^keep:TestSettings "test-settings": create failed: the service already holds keep:TestSettings "test-settings", and this stack's state does not/);
    expect(error.message).toContain("`adopt: true`");
    expect(seen.map((s) => s.method)).toEqual(["GET"]);
  });

  test("a create refuses an object that exists, by name, and writes nothing; adopt takes it over", async () => {
    const machine = createMachine(gadget, () => ctxFor(config()));
    reply = () => ({ status: 200, body: { data: { max_size: 1, serial: "s" } } });
    const error = (await machine.create({ name: "g3" }).catch((e) => e)) as Error;
    expect(error.message).toMatch(/^keep:TestGadget "gear\/gadgets\/g3": create failed: the service already holds keep:TestGadget "gear\/gadgets\/g3"/);
    expect(seen.map((s) => s.method)).toEqual(["GET"]);
    seen.length = 0;
    const adopted = await machine.create({ name: "g3", maxSize: 1, adopt: true });
    expect(adopted.id).toBe("gear/gadgets/g3");
    expect(seen.map((s) => s.method)).toEqual(["GET"]);
  });

  test("fromId(naturalId(x)) gives back the ID's inputs", () => {
    const inputs = { mount: "a/b", name: "n", namespace: "ns", cluster: "dr" };
    expect(gadget.fromId(gadget.naturalId(inputs as never))).toEqual(inputs);
  });

  test("a singleton writes with a merge patch and destroy restores the service's defaults, saying so", async () => {
    const machine = createMachine(settings, () => ctxFor(config()));
    // At the service's defaults, the settings are nobody's: the create writes them.
    reply = (req) => ({ status: 200, body: { data: req.method === "GET" ? { disabled: false, queue_capacity: 1000000 } : { disabled: true, queue_capacity: 10 } } });
    const created = await machine.create({ disabled: true, queueCapacity: 10 });
    expect(created.id).toBe("test-settings");
    expect(seen[1]).toMatchObject({ method: "PATCH", url: "/v1/sys/test/settings", contentType: "application/merge-patch+json", body: { disabled: true, queue_capacity: 10 } });
    await machine.delete(created.id, created.outs);
    expect(seen[2]).toMatchObject({ method: "PATCH", body: { disabled: false, queue_capacity: 1000000 } });
    expect(infos).toEqual(['keep:TestSettings "test-settings": the service\'s defaults restored ({"disabled":false,"queueCapacity":1000000})']);
  });

  test("a singleton that is left on destroy makes no request and says why", async () => {
    const kept = keepObject({ type: "TestKept", description: "Kept", rows: objectAt("{mount*}/config", { list: false }), id: "{mount*}", inputs: z.object({ /** Mount. */ mount: mountInput("gear") }), singleton: { leave: "the service has no delete for it" } });
    const machine = createMachine(kept, () => ctxFor(config()));
    await machine.delete("gear", { mount: "gear" });
    expect(seen).toEqual([]);
    expect(infos).toEqual(['keep:TestKept "gear": left on the service: the service has no delete for it']);
  });
});
