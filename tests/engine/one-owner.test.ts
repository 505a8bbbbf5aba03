/**
 * One owner, under the real CLI (ARCHITECTURE.md): stack A makes an object of every type whose create can
 * meet an existing one, through each door; stack B of the same project declares the same objects,
 * changed, without `adopt`. B's `up` is refused for each of them by name, with the way to adopt or
 * import it; where the service records A as the owner, B's adoption is refused too, naming A; B's
 * state holds none of them; nothing B sent changed a service, so A's refresh finds every object as
 * A made it. The recorded objects then move to B as the refusal says (A forgets them, B adopts them
 * with `takeOver`); each stack's destroy removes what it holds.
 */
import { isOperationSpec } from "../../provider/spec";
import { canMeetExisting } from "../campaigns/cases";
import { declaredProgramFiles, DeclaredProgram } from "../support/declared-program";
import { ProgramRun } from "../support/differential";
import { pageBlocks } from "../support/pages";
import { ENGINE_TIMEOUT, eventsOf, Project, stepsOf } from "../support/real-engine";
import { CASES, closeWorld, envOf, everyTypeProject, onClusters, programs, settingsOf, startWorld, World } from "./every-type-program";

const OWNED = CASES.filter((c) => canMeetExisting(c.entry));
/** The resources whose service records the stack that made them (a partition's description, a workspace's source). */
const RECORDED = new Set(OWNED.filter((c) => c.entry.spec.kind !== "operation" && (c.entry.spec as { ownerRecord?: unknown }).ownerRecord).map((c) => c.name));

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
    // A partition and a workspace, through each door.
    expect(RECORDED.size).toBe(4);
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

    // Adopting them does not help where the service records A as the owner: refused in B's up, naming A and the way to take over.
    const adoptions: DeclaredProgram = { resources: theirs.resources.filter((r) => RECORDED.has(r.name)).map((r) => ({ ...r, inputs: { ...r.inputs, adopt: true } })) };
    expect(adoptions.resources.length).toBe(RECORDED.size);
    writeProgram(adoptions);
    const adoptErrors = errorsByResource(await project.pulumi([...up, "--continue-on-error"], { env, expect: "failure" }));
    for (const name of RECORDED) {
      const said = (adoptErrors.get(name) ?? []).join("\n");
      expect([name, said.includes(`is managed by Pulumi stack one-owner/a, resource ${name} (the service records it), so it was not adopted`) && said.includes("`adopt: true, takeOver: true`")]).toEqual([name, true]);
    }

    // Nothing of A's entered B's state, and the services took no write from B.
    const bState = (await project.exportStack()).deployment.resources ?? [];
    expect(bState.filter((r) => mine.has(r.urn.split("::").pop()!)).map((r) => r.urn)).toEqual([]);
    expect(taken).toEqual([]);

    // A finds every object as it made it.
    await project.pulumi(["stack", "select", "a"]);
    const refreshed = stepsOf(await project.pulumi(["refresh", "--yes", "--skip-preview", "--json"], { env }));
    expect(refreshed.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`)).toEqual([]);

    // The recorded objects move to B as the refusal says: A forgets them, B adopts them with takeOver, and the services record B.
    const aState = (await project.exportStack()).deployment.resources ?? [];
    for (const r of aState.filter((r) => RECORDED.has(r.urn.split("::").pop()!))) await project.pulumi(["state", "delete", r.urn, "--yes"]);
    await project.pulumi(["stack", "select", "b"]);
    writeProgram({ resources: adoptions.resources.map((r) => ({ ...r, inputs: { ...r.inputs, takeOver: true } })) });
    const moved = stepsOf(await project.pulumi(up, { env }));
    expect(moved.filter((s) => RECORDED.has(s.name)).map((s) => `${s.op} ${s.name}`).sort()).toEqual([...RECORDED].map((n) => `create ${n}`).sort());
    const partitions = OWNED.filter((c) => c.entry.type === "mesh:Partition").map((c) => adoptions.resources.find((r) => r.name === c.name)!.inputs.name as string);
    for (const p of partitions) expect(world.emu.mesh.getPartition(p)?.Description).toMatch(/\(managed by Pulumi stack one-owner\/b, resource [dp]t\d+\)$/);

    // Each stack destroys what it holds: nothing is left.
    await project.pulumi(["destroy", "--yes", "--skip-preview", "--json"], { env });
    await project.pulumi(["stack", "select", "a"]);
    await project.pulumi(["destroy", "--yes", "--skip-preview", "--json"], { env });
    expect((await project.exportStack()).deployment.resources ?? []).toEqual([]);
    for (const p of partitions) expect(world.emu.mesh.getPartition(p)).toBeUndefined();
  },
  ENGINE_TIMEOUT,
);
