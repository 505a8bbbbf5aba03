/**
 * docs/plugin.md's TypeScript program, through the SDK `pulumi package add` generates (the plugin
 * door; the README's program, examples/quickstart, is the dynamic door's, in examples-life.test.ts), run
 * by the real CLI and then through the harness against an emulator that starts alike, and compared
 * step by step (tests/support/differential.ts): preview, up, a change that updates one resource and
 * replaces another (previewed, then applied), a refresh after someone changed a policy by hand,
 * destroy. Its second cluster is reached through an explicit provider.
 */
import { Emulator, startEmulator } from "keepstack-emulator";
import { cliSession, CommandRecord, compareSessions, harnessSession, recordComparison, SessionCommand, withoutDelays } from "../support/differential";
import { ENGINE_TIMEOUT } from "../support/real-engine";
import { expectPageProgramMade, pageBlock, pluginSettings, typescriptSdkProject } from "./plugin-door";

const emulators: Emulator[] = [];
afterAll(() => Promise.all(emulators.map((e) => e.close())));

test(
  "docs/plugin.md's TypeScript program: the real CLI and the harness take the same steps, hold the same state and send the same requests",
  async () => {
    const program = pageBlock("ts", "@keepstack/pulumi-keepstack");
    // The first policy's text is the readers' (the second cluster's, the same text, stays); the partition's name replaces it.
    const changed = program.replace('capabilities = ["read", "list"] }', 'capabilities = ["read"] }').replace("team-a", "team-b");
    expect(changed).not.toBe(program);
    const session: SessionCommand[] = [
      { command: "preview", files: { "index.ts": program } },
      { command: "up" },
      { command: "preview", files: { "index.ts": changed } },
      { command: "up" },
      // Someone changes a policy by hand: the refresh takes the service's text in, as the engine reports it.
      { command: "refresh", before: (emu) => emu.keep.putPolicy("acl", "readers", { policy: 'path "secret/*" { capabilities = ["deny"] }' }) },
      { command: "destroy" },
    ];
    const project = await typescriptSdkProject("docs-plugin-program", program, { checkoutSdk: true });
    const started = async () => {
      const emu = withoutDelays(await startEmulator({ clusters: ["main", "dr"] }));
      emulators.push(emu);
      return emu;
    };
    const cliEmu = await started();
    // What each up did is checked on the services right after it, as the other languages' flows check it.
    let ups = 0;
    const afterUp = (r: CommandRecord) => {
      if (r.command !== "up") return;
      if (++ups === 1) expectPageProgramMade(cliEmu);
      else {
        expect(cliEmu.keep.getPolicy("acl", "readers")?.policy).toBe('path "secret/*" { capabilities = ["read"] }');
        expect(cliEmu.mesh.getPartition("team-b")).toBeDefined();
        expect(cliEmu.mesh.getPartition("team-a")).toBeUndefined();
      }
    };
    const cli = await cliSession({ project, emu: cliEmu, main: "index.ts", ...pluginSettings(cliEmu) }, session, {}, afterUp);
    expect(Object.values(cli[1].steps).map((s) => s.op)).toEqual(["create", "create", "create", "create", "create"]);
    expect(Object.values(cli[3].steps).filter((s) => s.op !== "same").map((s) => s.op).sort()).toEqual(["replace", "update"]);
    expect(Object.entries(cli[4].steps).filter(([, s]) => s.op !== "same")).toEqual([[expect.stringMatching(/::readers$/), { op: "update", detailedDiff: { policy: "update" }, diffs: ["policy"] }]]);
    const harnessEmu = await started();
    const harness = await harnessSession({ project, emu: harnessEmu, main: "index.ts", ...pluginSettings(harnessEmu) }, session);
    const comparison = compareSessions("docs/plugin.md (TypeScript)", cli, harness);
    recordComparison("docs/plugin.md (TypeScript)", comparison);
    expect(comparison.differences).toEqual([]);
  },
  ENGINE_TIMEOUT,
);
