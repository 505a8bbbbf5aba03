/** The generic machine on a small spec: pure check and diff, replacement planning, partial failure. */
import { z } from "zod";
import { createContext } from "../../provider/context";
import { PartialCreateError } from "../../provider/errors";
import { ADDRESS_KEY, createMachine } from "../../provider/object-machine";
import { resourceSpec } from "../../provider/spec";
import { UNKNOWN } from "../../provider/unknowns";
import { validateInputs } from "../../provider/validate";

const calls: string[] = [];
const spec = resourceSpec({
  module: "keep",
  type: "Thing",
  inputs: z.object({
    name: z.string().regex(/^[a-z]+$/, "lower-case letters only"),
    size: z.number().int().positive().default(1),
    tags: z.array(z.object({ key: z.string().min(1, "must not be empty") })).default([]),
  }),
  computed: z.object({ serial: z.string() }),
  replaceOnChanges: ["name", "size"],
  naturalId: (i) => i.name,
  fromId: (id) => ({ name: id }),
  async create(_ctx, inputs) {
    calls.push(`create ${inputs.name}`);
    if (inputs.name === "half") throw new PartialCreateError("made, then failed to finish", "half", { serial: "s-1" }, ["finish step failed"]);
    return { id: inputs.name, computed: { serial: "s-1" } };
  },
  async read() {
    return undefined;
  },
  async update() {
    return { serial: "s-2" };
  },
  async delete() {},
});
const machine = createMachine(spec, () => createContext(() => undefined, {}));
/** Where the object's service is (the default address): recorded with its inputs and outputs. */
const AT = { [ADDRESS_KEY]: "https://127.0.0.1:8200" };

describe("validateInputs", () => {
  test("names nested properties with the rule and fills defaults", () => {
    const schema = spec.inputs.strict();
    expect(validateInputs(schema, { name: "ok", tags: [{ key: "" }] }).failures).toEqual([{ property: "tags[0].key", reason: "must not be empty" }]);
    expect(validateInputs(schema, { name: "ok" }).value).toEqual({ name: "ok", size: 1, tags: [] });
  });

  test("skips rules on unknown values, at any depth", () => {
    const schema = spec.inputs.strict();
    expect(validateInputs(schema, { name: UNKNOWN, size: UNKNOWN, tags: [{ key: UNKNOWN }] }).failures).toEqual([]);
    expect(validateInputs(schema, { name: "Bad", size: UNKNOWN }).failures).toEqual([{ property: "name", reason: "lower-case letters only" }]);
  });
});

describe("machine", () => {
  test("check returns parsed inputs or failures; with unknowns the inputs pass through", async () => {
    expect(await machine.check({}, { name: "a", __provider: "p" })).toEqual({ inputs: { name: "a", size: 1, tags: [], ...AT }, failures: [] });
    expect((await machine.check({}, { name: "a", size: -1 })).failures).toEqual([{ property: "size", reason: expect.stringMatching(/>0|positive|greater/i) }]);
    expect(await machine.check({}, { name: UNKNOWN })).toEqual({ inputs: { name: UNKNOWN }, failures: [] });
    expect((await machine.check({}, { name: "a", adopt: "yes" })).failures[0].property).toBe("adopt");
  });

  test("diff: no change, in-place change, replacement, unknowns", async () => {
    const olds = { name: "a", size: 1, tags: [], serial: "s-1", __provider: "p" };
    expect(await machine.diff("a", olds, { name: "a", size: 1, tags: [] })).toMatchObject({ changes: false, replaces: [] });
    expect(await machine.diff("a", olds, { name: "a", size: 1, tags: [{ key: "x" }] })).toMatchObject({ changes: true, replaces: [] });
    // Same natural ID: the old object must go before the new one is made.
    expect(await machine.diff("a", olds, { name: "a", size: 2, tags: [] })).toMatchObject({ replaces: ["size"], deleteBeforeReplace: true });
    expect(await machine.diff("a", olds, { name: "b", size: 1, tags: [] })).toMatchObject({ replaces: ["name"], deleteBeforeReplace: false });
    expect(await machine.diff("a", olds, { name: UNKNOWN, size: 1, tags: [] })).toMatchObject({ changes: true, replaces: ["name"] });
  });

  test("check and diff make no service call", async () => {
    calls.length = 0;
    await machine.check({}, { name: "a" });
    await machine.diff("a", { name: "a" }, { name: "b" });
    expect(calls).toEqual([]);
  });

  test("outputs are the inputs plus computed values, as plain JSON", async () => {
    expect(await machine.create({ name: "a", __provider: "p" })).toEqual({ id: "a", outs: { name: "a", size: 1, tags: [], serial: "s-1", ...AT } });
  });

  test("a partial create reports the object as created-but-failed, provider included", async () => {
    const error = (await machine.create({ name: "half", __provider: "p" }).catch((e: unknown) => e)) as {
      message: string;
      id: string;
      properties: Record<string, unknown>;
      reasons: string[];
    };
    expect(error.id).toBe("half");
    expect(error.properties).toEqual({ name: "half", size: 1, tags: [], serial: "s-1", __provider: "p", ...AT });
    expect(error.reasons).toEqual(["finish step failed"]);
    expect(error.message).toMatch(/keep:Thing "half": create failed: made, then failed to finish/);
  });

  test("a read that finds nothing tells the engine the object is gone", async () => {
    expect(await machine.read("a", { name: "a" })).toEqual({ id: "", props: {} });
  });
});
