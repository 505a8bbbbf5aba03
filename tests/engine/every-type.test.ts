/**
 * Every resource type through both doors, under the real CLI and through the harness (design §15):
 * the fault matrix's programs without faults (tests/support/samples.ts), all of them in one
 * program, each type once through each door (its prerequisites through the dynamic one, as the
 * matrix declares them). The session: up of the prerequisites, up of everything (each type's
 * create), a preview and an up of each type's in-place change, an up of each type's replacement,
 * refresh, destroy. Then the same session through the harness against an emulator that starts
 * alike, and the two compared step by step (tests/support/differential.ts). The program and its
 * worlds are every-type-program.ts's.
 */
import { isOperationSpec } from "../../provider/spec";
import { declaredProgramFiles } from "../support/declared-program";
import { cliSession, CommandRecord, compareSessions, harnessSession, ProgramRun, recordComparison, SessionCommand } from "../support/differential";
import { ENGINE_TIMEOUT } from "../support/real-engine";
import { CASES, closeWorld, everyTypeProject, programs, settingsOf, Stage, startWorld, World } from "./every-type-program";

/** The session of one world; `program.json` is written before each command from the stage's program. */
function sessionOf(world: World): SessionCommand[] {
  const at = programs(world);
  const stage = (s: Stage) => async (previous: CommandRecord[]) => ({ "program.json": declaredProgramFiles(await at(s, previous))["program.json"] });
  return [
    { command: "up", files: stage("prerequisites") },
    { command: "up", files: stage("create") },
    { command: "preview", files: stage("change") },
    { command: "up" },
    { command: "up", files: stage("replacement") },
    { command: "refresh" },
    { command: "destroy" },
  ];
}

/**
 * What format-preserving encryption makes is the service's, afresh in each run; the mesh's indexes
 * count every write the service took, so they follow the order of writes across resources, which
 * is not compared (each resource's own requests are).
 */
const OPTIONS = { generated: ["encodedValue", "createIndex", "modifyIndex"] };

const worlds: World[] = [];
afterAll(async () => {
  for (const w of worlds) await closeWorld(w);
});

test(
  "every type through each door: create, change, replacement, refresh and destroy take the same steps, leave the same state and send the same requests",
  async () => {
    const project = await everyTypeProject("every-type");
    const run = async (world: World): Promise<ProgramRun> => ({ project, emu: world.emu, main: "index.js", ...settingsOf(world.emu) });

    const cliWorld = await startWorld();
    worlds.push(cliWorld);
    const cli = await cliSession(await run(cliWorld), sessionOf(cliWorld), OPTIONS);
    // The CLI's own run did what the program asks: each type made, changed, replaced where it can, and gone.
    for (const c of CASES) {
      const urn = Object.keys(cli[1].steps).find((u) => u.endsWith(`::${c.name}`))!;
      const label = `${c.entry.type} through the ${c.door} door`;
      expect([label, cli[1].steps[urn]?.op]).toEqual([label, "create"]);
      // An operation runs again on any change: a replacement.
      if (c.entry.sample.change) expect([label, cli[3].steps[urn]?.op]).toEqual([label, isOperationSpec(c.entry.spec) ? "replace" : "update"]);
      if (c.entry.sample.replacement) expect([label, cli[4].steps[urn]?.op]).toEqual([label, "replace"]);
      expect([label, cli[6].steps[urn]?.op]).toEqual([label, "delete"]);
    }
    expect(Object.values(cli[5].steps).filter((s) => s.op !== "same")).toEqual([]);

    const harnessWorld = await startWorld();
    worlds.push(harnessWorld);
    const harness = await harnessSession(await run(harnessWorld), sessionOf(harnessWorld), OPTIONS);
    const comparison = compareSessions("every type through both doors", cli, harness, OPTIONS);
    recordComparison("every type through both doors", comparison);
    expect(comparison.differences).toEqual([]);
  },
  ENGINE_TIMEOUT,
);
