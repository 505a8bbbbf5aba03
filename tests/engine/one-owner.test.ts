/**
 * One owner, under the real CLI (design §4): stack A makes an object of every type whose create can
 * meet an existing one, through each door; stack B of the same project declares the same objects,
 * changed, without `adopt`. B's `up` is refused for each of them by name, with the way to adopt or
 * import it; B's state holds none of them; nothing B sent changed a service, so A's refresh finds
 * every object as A made it; A's destroy removes them.
 */
import { isOperationSpec } from "../../provider/spec";
import { canMeetExisting } from "../campaigns/cases";
import { declaredProgramFiles, DeclaredProgram } from "../support/declared-program";
import { ProgramRun } from "../support/differential";
import { pageBlocks } from "../support/pages";
import { ENGINE_TIMEOUT, eventsOf, Project, stepsOf } from "../support/real-engine";
import { CASES, closeWorld, envOf, everyTypeProject, onClusters, programs, settingsOf, startWorld, World } from "./every-type-program";

const OWNED = CASES.filter((c) => canMeetExisting(c.entry));

let world: World | undefined;
afterAll(async () => {
  if (world) await closeWorld(world);
});

/** The errors the engine reported for each resource of a run, by resource name. */
function errorsByResource(ran: { stdout: string }): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  for (const event of eventsOf(ran as never) as { diagnosticEvent?: { severity: string; message: string; urn?: string } }[]) {
    const d = event.diagnosticEvent;
    if (d?.severity !== "error" || !d.urn) continue;
    const name = d.urn.split("::").pop()!;
    errors.set(name, [...(errors.get(name) ?? []), d.message]);
  }
  return errors;
}

test(
  "a second stack declaring every type's existing objects without adopt is refused for each by name, and changes nothing",
  async () => {
    expect(OWNED.length).toBeGreaterThan(20);
    expect(OWNED.some((c) => isOperationSpec(c.entry.spec))).toBe(false);
    world = await startWorld();
    const project: Project = await everyTypeProject("one-owner");
    const run: ProgramRun = { project, emu: world.emu, main: "index.js", ...settingsOf(world.emu) };
    const writeProgram = (program: DeclaredProgram) => project.write("program.json", declaredProgramFiles(program)["program.json"]);
    const up = ["up", "--yes", "--skip-preview", "--json"];
    const env = { PULUMI_SKIP_CHECKPOINTS: "true", ...run.env };

    // Stack A makes them.
    const at = programs(world, OWNED);
    await project.stack("a", run.config, run.secrets);
    writeProgram(await at("prerequisites", []));
    await project.pulumi(up, { env });
    const { stdout } = await project.pulumi(["stack", "output", "--json", "--show-secrets"]);
    const made = await at("create", [{ command: "up", steps: {}, requests: [], operations: [], stackOutputs: JSON.parse(stdout) }]);
    writeProgram(made);
    const created = stepsOf(await project.pulumi(up, { env }));
    for (const c of OWNED) expect([c.name, created.find((s) => s.name === c.name)?.op]).toEqual([c.name, "create"]);

    // Stack B declares A's objects, each changed where its type has an in-place change, without adopt.
    const mine = new Set(OWNED.map((c) => c.name));
    const theirs: DeclaredProgram = { resources: [] };
    for (const r of made.resources.filter((r) => mine.has(r.name))) {
      const c = OWNED.find((o) => o.name === r.name)!;
      const changed = c.entry.sample.change ? onClusters(c, c.entry.type, await c.entry.sample.change(r.inputs, envOf(world, c))) : r.inputs;
      theirs.resources.push({ ...r, inputs: changed, dependsOn: [] });
    }
    await project.stack("b", run.config, run.secrets);
    writeProgram(theirs);
    // Every write the services took while B ran (a write the service refused changes nothing).
    const taken: string[] = [];
    for (const service of [...Object.values(world.emu.clusters), world.emu.workspaces, world.emu.mesh]) {
      service.log.onRecord((r) => {
        if (r.method !== "GET" && r.status < 400) taken.push(`${r.method} ${r.path} ${r.status}`);
      });
    }
    const refused = await project.pulumi([...up, "--continue-on-error"], { env, expect: "failure" });
    const errors = errorsByResource(refused);
    for (const c of OWNED) {
      const said = (errors.get(c.name) ?? []).join("\n");
      const label = `${c.entry.type} through the ${c.door} door`;
      expect([label, /already holds/.test(said) && said.includes(`${c.entry.type} "`) && said.includes("adopt: true") && said.includes("import")]).toEqual([label, true]);
    }
    // docs/resources.md shows the refusal as the CLI prints it (of an ACL policy named "shared").
    const documented = pageBlocks("docs/resources.md", "text").find((b) => b.includes("already holds"))!;
    const acl = OWNED.find((c) => c.entry.type === "keep:AclPolicy" && c.door === "dynamic")!;
    const printed = `error: ${(errors.get(acl.name) ?? [""])[0].trim()}`;
    expect(printed).toBe(documented.trim().replaceAll('"shared"', `"${acl.name}"`).replaceAll("AclPolicy shared`", `AclPolicy ${acl.name}\``));

    // Nothing of A's entered B's state, and the services took no write from B.
    const bState = (await project.exportStack()).deployment.resources ?? [];
    expect(bState.filter((r) => mine.has(r.urn.split("::").pop()!)).map((r) => r.urn)).toEqual([]);
    expect(taken).toEqual([]);

    // A finds every object as it made it, then destroys them.
    await project.pulumi(["stack", "select", "a"]);
    const refreshed = stepsOf(await project.pulumi(["refresh", "--yes", "--skip-preview", "--json"], { env }));
    expect(refreshed.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`)).toEqual([]);
    await project.pulumi(["destroy", "--yes", "--skip-preview", "--json"], { env });
    expect((await project.exportStack()).deployment.resources ?? []).toEqual([]);
  },
  ENGINE_TIMEOUT,
);
