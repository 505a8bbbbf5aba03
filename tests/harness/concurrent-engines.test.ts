/**
 * Engines of one process running programs at the same time (the campaigns run several lanes so):
 * each run has the SDK runtime's store of its own, so every engine gets its own resources, outputs
 * and configuration, never another's. A run alone keeps out of the SDK's AsyncLocalStorage (whose
 * promise hooks cost every later promise of the process).
 */
import { keep } from "pulumi-keepstack";
import { startKeepEmulator, KeepEmulator } from "../../emulator/keep";
import { Engine } from "../../harness";
import { keepConfig } from "../support/keep-stack";

/** The store of the SDK's runtime the program runs in: its own AsyncLocalStorage store, or none (the global one). */
const localStore = (): unknown => require("@pulumi/pulumi/runtime/state").getLocalStore();

const RULES = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';

describe("concurrent engines", () => {
  let services: KeepEmulator[];
  let engines: Engine[];
  beforeAll(async () => {
    services = await Promise.all([startKeepEmulator(), startKeepEmulator(), startKeepEmulator()]);
    engines = services.map((s, i) => new Engine({ project: `lane-${i}`, config: keepConfig(s), secretConfig: ["keep:token"] }));
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await Promise.all(services.map((s) => s.close()));
  });

  test("three ups at once: each engine holds only its own policies, on its own service, with its own outputs", async () => {
    const program = (lane: number) => async () => {
      // A pause inside the program lets the other runs start meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const names = [0, 1, 2].map((k) => new keep.AclPolicy(`p${lane}-${k}`, { name: `lane${lane}-${k}`, policy: RULES }).name);
      return { names };
    };
    const results = await Promise.all(engines.map((engine, lane) => engine.up(program(lane))));
    results.forEach((result, lane) => {
      expect(result.outputs.names).toEqual([0, 1, 2].map((k) => `lane${lane}-${k}`));
      expect([...engines[lane].state.values()].map((r) => r.name).sort()).toEqual([0, 1, 2].map((k) => `p${lane}-${k}`));
      const written = services[lane].log.lines().filter((l) => l.startsWith("POST /v1/sys/policies/acl/"));
      expect(written.sort()).toEqual([0, 1, 2].map((k) => `POST /v1/sys/policies/acl/lane${lane}-${k}`));
    });
  });

  test("a run alone uses the global store; runs at the same time get stores of their own, apart from it", async () => {
    const seen: unknown[][] = [[], [], []];
    const program = (lane: number) => async () => {
      seen[lane].push(localStore());
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen[lane].push(localStore());
      new keep.AclPolicy(`alone${lane}`, { name: `alone-${lane}`, policy: RULES });
    };
    await engines[0].up(program(0));
    expect(seen[0]).toEqual([undefined, undefined]);
    await Promise.all(engines.map((engine, lane) => engine.up(program(lane))));
    // The first run started alone; the two that started while it ran each have a store, kept across the pause.
    expect(seen[0].slice(2)).toEqual([undefined, undefined]);
    for (const lane of [1, 2]) {
      expect(seen[lane][0]).toBeDefined();
      expect(seen[lane][1]).toBe(seen[lane][0]);
    }
    expect(seen[1][0]).not.toBe(seen[2][0]);
    for (const lane of [0, 1, 2]) expect([...engines[lane].state.values()].some((r) => r.name === `alone${lane}`)).toBe(true);
  });
});
