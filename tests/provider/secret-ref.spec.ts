/** Secrets by reference (ARCHITECTURE.md): resolved by the host, fingerprinted in check, never in outputs. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { OperationContext } from "../../provider/context";
import { createMachine } from "../../provider/object-machine";
import { fingerprintOf, matchesFingerprint, secretInput } from "../../provider/secret-ref";
import { resourceSpec } from "../../provider/spec";
import { throwingContext } from "../support/contexts";

const sent: Record<string, unknown>[] = [];
/** The objects the fake service holds, by name: a create reads first and refuses one that exists. */
const held = new Set<string>();
const spec = resourceSpec({
  module: "keep",
  type: "TestCredential",
  inputs: z.object({
    /** Name. */
    name: z.string(),
    /** The secret. */
    secret: secretInput("secret"),
  }),
  computed: z.object({}),
  secretInputs: ["secret"],
  writeOnly: ["secret"],
  naturalId: (i) => i.name,
  fromId: (id) => ({ name: id }),
  async create(_ctx, inputs) {
    sent.push(inputs);
    held.add(inputs.name);
    return { id: inputs.name, computed: {} };
  },
  async read(_ctx, id) {
    return held.has(id) ? { inputs: {}, computed: {} } : undefined;
  },
  async update(_ctx, _id, inputs) {
    sent.push(inputs);
    return {};
  },
  async delete(_ctx, id) {
    held.delete(id);
  },
});

const config: Record<string, string> = { "app:secret": "hunter2" };
const env: Record<string, string> = {};
let ctx: OperationContext;
const machine = createMachine(spec, () => ctx);

beforeEach(() => {
  sent.length = 0;
  held.clear();
  // The context's service clients throw: resolving a reference reaches no service.
  ctx = throwingContext(config, env);
});

describe("fingerprints", () => {
  test("salted, slow, and comparable only with the same salt", () => {
    const a = fingerprintOf("hunter2");
    const b = fingerprintOf("hunter2");
    expect(a).toMatch(/^scrypt\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(fingerprintOf("hunter2", a)).toBe(a);
    expect(matchesFingerprint("hunter2", a)).toBe(true);
    expect(matchesFingerprint("hunter3", a)).toBe(false);
    expect(a).not.toContain("hunter2");
  });
});

describe("a write-only secret given by reference", () => {
  test("check fingerprints the value; an unchanged value plans no change, a changed one an update", async () => {
    const first = await machine.check({}, { name: "c", secret: { fromConfig: "app:secret" } });
    expect(first.failures).toEqual([]);
    const checked = first.inputs.secret as { fromConfig: string; fingerprint: string };
    expect(checked.fromConfig).toBe("app:secret");
    expect(matchesFingerprint("hunter2", checked.fingerprint)).toBe(true);

    const { outs } = await machine.create(first.inputs);
    expect(sent).toEqual([{ name: "c", secret: "hunter2" }]);
    expect(JSON.stringify(outs)).not.toContain("hunter2");

    const again = await machine.check(first.inputs, { name: "c", secret: { fromConfig: "app:secret" } });
    expect(again.inputs.secret).toEqual(checked);
    expect(await machine.diff("c", outs, again.inputs)).toMatchObject({ changes: false });

    config["app:secret"] = "correct horse";
    try {
      const changed = await machine.check(first.inputs, { name: "c", secret: { fromConfig: "app:secret" } });
      expect(await machine.diff("c", outs, changed.inputs)).toMatchObject({ changes: true, replaces: [] });
      await machine.update("c", outs, changed.inputs);
      expect(sent[1]).toEqual({ name: "c", secret: "correct horse" });
    } finally {
      config["app:secret"] = "hunter2";
    }
  });

  test("environment variables and files resolve too", async () => {
    env.TEST_SECRET = "from-env";
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ref-"));
    const file = path.join(dir, "secret.txt");
    fs.writeFileSync(file, "from-file\n");
    for (const [ref, value] of [
      [{ fromEnv: "TEST_SECRET" }, "from-env"],
      [{ fromFile: file }, "from-file"],
    ] as const) {
      const name = `c-${Object.keys(ref)[0]}`;
      const { inputs, failures } = await machine.check({}, { name, secret: ref });
      expect(failures).toEqual([]);
      await machine.create(inputs);
      expect(sent.pop()).toEqual({ name, secret: value });
    }
  });

  test("a reference that does not resolve fails check naming the property and what to set", async () => {
    expect((await machine.check({}, { name: "c", secret: { fromConfig: "app:missing" } })).failures).toEqual([
      { property: "secret", reason: "stack config app:missing is not set: run `pulumi config set --secret app:missing <value>`" },
    ]);
    expect((await machine.check({}, { name: "c", secret: { fromEnv: "NOT_SET_ANYWHERE" } })).failures).toEqual([
      { property: "secret", reason: "environment variable NOT_SET_ANYWHERE is not set where pulumi runs" },
    ]);
    expect((await machine.check({}, { name: "c", secret: { fromFile: "/nonexistent/secret" } })).failures[0]).toEqual({
      property: "secret",
      reason: expect.stringMatching(/^cannot read \/nonexistent\/secret: ENOENT$/),
    });
    expect((await machine.check({}, { name: "c", secret: { fromVault: "x" } })).failures[0].property).toBe("secret");
  });

  test("switching from a value to a reference of the same value is an update (the state changes form)", async () => {
    const plain = await machine.check({}, { name: "c", secret: "hunter2" });
    const { outs } = await machine.create(plain.inputs);
    const byRef = await machine.check(plain.inputs, { name: "c", secret: { fromConfig: "app:secret" } });
    expect(await machine.diff("c", outs, byRef.inputs)).toMatchObject({ changes: true });
  });
});
