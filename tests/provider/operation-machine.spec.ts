/** Operations as resources (ARCHITECTURE.md, "Operations are resources"), on an operation declared here against an in-memory service. */
import { z } from "zod";
import { OperationContext } from "../../provider/context";
import { machineOf } from "../../provider/machine";
import { operationSpec } from "../../provider/spec";
import { UNKNOWN } from "../../provider/unknowns";
import { throwingContext } from "../support/contexts";

/** A switch that can be flipped once: the service under the operation. */
const service = { on: false, flips: 0, unflips: 0, log: [] as string[] };

const flip = operationSpec({
  module: "keep",
  type: "TestFlip",
  inputs: z.object({
    /** Why the switch is flipped. */
    reason: z.string().min(1),
    /** Flipping wipes what was behind the switch. */
    acceptWipe: z.boolean().optional(),
    /** Forcing may lose data. */
    force: z.boolean().default(false),
    /** Forcing must be acknowledged on its own. */
    acceptLoss: z.boolean().optional(),
    /** Destroy flips the switch back. */
    unflipOnDestroy: z.boolean().default(false),
  }),
  computed: z.object({ flippedAt: z.number(), secretReceipt: z.string() }),
  secretOutputs: ["secretReceipt"],
  acknowledgements: [
    { input: "acceptWipe", accepts: "everything behind the switch is wiped" },
    { input: "acceptLoss", accepts: "data may be lost", when: (i) => i.force },
  ],
  label: (i) => `flip-${i.reason}`,
  async current() {
    service.log.push("status");
    return service.on ? { computed: { flippedAt: 0, secretReceipt: "" }, message: "the switch is already on" } : undefined;
  },
  async run() {
    service.log.push("flip");
    service.on = true;
    service.flips++;
    return { flippedAt: service.flips, secretReceipt: `r-${service.flips}` };
  },
  async status() {
    service.log.push("status");
    return {};
  },
  undo: {
    input: "unflipOnDestroy",
    async run() {
      service.log.push("unflip");
      service.on = false;
      service.unflips++;
    },
  },
});

const infos: string[] = [];
const context = (): OperationContext => ({ ...throwingContext(), info: (m) => infos.push(m), warn: (m) => infos.push(m) });
const machine = machineOf(flip, context);

beforeEach(() => {
  Object.assign(service, { on: false, flips: 0, unflips: 0, log: [] });
  infos.length = 0;
});

describe("operation machine", () => {
  test("check demands each acknowledgement, naming the input and what it accepts", async () => {
    const { failures } = await machine.check({}, { reason: "r" });
    expect(failures).toEqual([{ property: "acceptWipe", reason: "must be true to run this operation, accepting that everything behind the switch is wiped" }]);
    const forced = await machine.check({}, { reason: "r", acceptWipe: true, force: true });
    expect(forced.failures.map((f) => f.property)).toEqual(["acceptLoss"]);
    expect((await machine.check({}, { reason: "r", acceptWipe: true })).failures).toEqual([]);
  });

  test("check passes unknown values and cannot judge a conditional acknowledgement before its condition is known", async () => {
    expect((await machine.check({}, { reason: "r", acceptWipe: UNKNOWN })).failures).toEqual([]);
    expect((await machine.check({}, { reason: "r", acceptWipe: true, force: UNKNOWN })).failures).toEqual([]);
  });

  test("there is no adopt; triggers take any values", async () => {
    expect((await machine.check({}, { reason: "r", acceptWipe: true, adopt: true })).failures).toEqual([
      { property: "adopt", reason: "is not a property of this resource" },
    ]);
    expect((await machine.check({}, { reason: "r", acceptWipe: true, triggers: ["2026-11-22", 3, { a: 1 }] })).failures).toEqual([]);
  });

  test("check and diff call no service (the context's clients throw)", async () => {
    await machine.check({}, { reason: "r", acceptWipe: true });
    await machine.diff("x", { reason: "r" }, { reason: "s" });
    expect(service.log).toEqual([]);
  });

  test("every input change and triggers replace; the undo setting alone updates in place", async () => {
    const olds = { reason: "r", acceptWipe: true, force: false, unflipOnDestroy: false, triggers: [1], flippedAt: 1, secretReceipt: "x" };
    expect(await machine.diff("id", olds, { ...olds })).toMatchObject({ changes: false, replaces: [] });
    expect(await machine.diff("id", olds, { ...olds, triggers: [2] })).toMatchObject({ changes: true, replaces: ["triggers"], deleteBeforeReplace: false });
    expect(await machine.diff("id", olds, { ...olds, reason: "s" })).toMatchObject({ replaces: ["reason"] });
    expect(await machine.diff("id", olds, { ...olds, reason: UNKNOWN })).toMatchObject({ changes: true, replaces: ["reason"] });
    expect(await machine.diff("id", olds, { ...olds, unflipOnDestroy: true })).toMatchObject({ changes: true, replaces: [] });
  });

  test("create reads the current state, runs once, and outputs the result with a unique ID per run", async () => {
    const first = await machine.create({ reason: "r", acceptWipe: true, __provider: "p" });
    expect(service.log).toEqual(["status", "flip"]);
    expect(first.id).toMatch(/^flip-r-[0-9a-f]{12}$/);
    expect(first.outs).toEqual({ reason: "r", acceptWipe: true, force: false, unflipOnDestroy: false, flippedAt: 1, secretReceipt: "r-1" });
    service.on = false;
    const second = await machine.create({ reason: "r", acceptWipe: true });
    expect(second.id).not.toBe(first.id);
  });

  test("a re-run after lost state finds the target state and does not act again", async () => {
    service.on = true;
    const again = await machine.create({ reason: "r", acceptWipe: true });
    expect(service.flips).toBe(0);
    expect(service.log).toEqual(["status"]);
    expect(infos).toEqual([expect.stringMatching(/^keep:TestFlip "flip-r-[0-9a-f]+": nothing to do: the switch is already on$/)]);
    expect(again.outs.flippedAt).toBe(0);
  });

  test("refresh keeps the operation and never runs it again", async () => {
    const { id, outs } = await machine.create({ reason: "r", acceptWipe: true });
    const read = await machine.read(id, { ...outs, __provider: "p" });
    expect(read).toEqual({ id, props: outs });
    expect(service.flips).toBe(1);
  });

  test("delete does nothing unless the undo is asked for", async () => {
    const { id, outs } = await machine.create({ reason: "r", acceptWipe: true });
    await machine.delete(id, outs);
    expect(service.on).toBe(true);
    const updated = await machine.update(id, outs, { reason: "r", acceptWipe: true, unflipOnDestroy: true });
    await machine.delete(id, updated.outs);
    expect(service.unflips).toBe(1);
    expect(service.on).toBe(false);
  });

  test("a failed run names the operation and its ID", async () => {
    const failing = machineOf({ ...flip, run: async () => Promise.reject(new Error("the switch is stuck")) }, context);
    await expect(failing.create({ reason: "r", acceptWipe: true })).rejects.toThrow(/^keep:TestFlip "flip-r-[0-9a-f]+": run failed: the switch is stuck$/);
  });

  test("a refresh whose status read fails says so, naming the operation, as any resource's refresh does", async () => {
    const { id, outs } = await machine.create({ reason: "r", acceptWipe: true });
    const refused = machineOf({ ...flip, status: async () => Promise.reject(new Error("permission denied")) }, context);
    await expect(refused.read(id, outs)).rejects.toThrow(/^keep:TestFlip "flip-r-[0-9a-f]+": status read failed: permission denied$/);
  });
});
