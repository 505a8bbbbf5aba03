/**
 * Engines of one process running programs at the same time (the campaigns run several lanes so):
 * each run has the SDK runtime's store of its own, so every engine gets its own resources, outputs
 * and configuration, never another's.
 */
import { keep } from "pulumi-keepstack";
import { startKeepEmulator, KeepEmulator } from "../../emulator/keep";
import { Engine } from "../../harness";
import { keepConfig } from "../support/keep-stack";

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
});
