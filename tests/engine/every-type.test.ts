/**
 * Every resource type through both doors, under the real CLI and through the harness (ARCHITECTURE.md, "The real engine is the judge"):
 * the fault matrix's programs without faults (tests/support/samples.ts), all of them in one
 * program, each type once through each door (its prerequisites through the dynamic one, as the
 * matrix declares them). The session: up of the prerequisites, up of everything (each type's
 * create), a preview and an up of each type's in-place change, an up of each type's replacement,
 * refresh, destroy. Then the same session through the harness against an emulator that starts
 * alike, and the two compared step by step (tests/support/differential.ts). The program and its
 * worlds are every-type-program.ts's.
 */
import type { Emulator } from "keepstack-emulator";
import type { FaultSpec, ServiceServer } from "../../emulator/common";
import { isOperationSpec } from "../../provider/spec";
import { entries, messageProblems, tokenThrough } from "../campaigns/cases";
import { declaredProgramFiles } from "../support/declared-program";
import { cliSession, cliState, Command, CommandRecord, compareSessions, harnessSession, maskString, ProgramRun, recordComparison, SessionCommand } from "../support/differential";
import { ENGINE_TIMEOUT, eventsOf, Project, Ran } from "../support/real-engine";
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

/**
 * What the services hold, each object's key with what two runs make differently masked, sorted:
 * equal lists mean no object duplicated, lost or left; but for the objects the provider said it
 * leaves (`left`: a configuration version a lost answer made, which the service cannot remove).
 */
async function censusOf(world: World, left: ReadonlySet<string> = new Set()): Promise<string[]> {
  return [...(await world.census())]
    .filter((key) => !left.has(key.split("|").pop()!))
    .map((key) => key.split("|").map(maskString).join("|"))
    .sort();
}

/**
 * The objects a run's warnings say are left on the service, by ID: the plugin's warnings, and the
 * dynamic provider's, which reach the CLI as lines of its standard error.
 */
function leftBehind(ran: Ran): string[] {
  const ids: string[] = [];
  for (const event of eventsOf(ran) as { diagnosticEvent?: { severity: string; message: string } }[]) {
    const d = event.diagnosticEvent;
    const warned = d?.severity === "warning" || (d?.severity === "info#err" && d.message.startsWith("warning: "));
    const left = warned ? /configuration version (\S+) (?:of \S+ )?is left/.exec(d!.message) : null;
    if (left) ids.push(left[1]);
  }
  return ids;
}

/** What the first test leaves the second: a copy of its project, and its clean CLI session with what it left on the services after each command. */
let faultProject: Project;
let clean: CommandRecord[] = [];
const cleanCensus: string[][] = [];

test(
  "every type through each door: create, change, replacement, refresh and destroy take the same steps, leave the same state and send the same requests",
  async () => {
    const project = await everyTypeProject("every-type");
    // A copy for the next test, made before this one's stack exists.
    faultProject = await Project.create({ name: "every-type-faults", runtime: "nodejs", copyOf: project.dir });
    const run = async (world: World): Promise<ProgramRun> => ({ project, emu: world.emu, main: "index.js", ...settingsOf(world.emu) });

    const cliWorld = await startWorld();
    worlds.push(cliWorld);
    const cli = await cliSession(await run(cliWorld), sessionOf(cliWorld), OPTIONS, async () => {
      cleanCensus.push(await censusOf(cliWorld));
    });
    clean = cli;
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

/**
 * The fault matrix's lost answers and timeouts under the real CLI (the matrix itself runs through
 * the harness). For each command of the clean session that writes, every write request the services
 * receive, of every type through each door, meets both faults: its answer lost after the service
 * acted, and held until the client gives up on it (its timeout), the service acting afterwards. The
 * first time a request is sent it meets one, the second time (the client's retry) the other; the
 * order alternates from command to command, so a request the client does not send again meets each
 * fault first somewhere (a create in the create and replacement steps, a delete in the replacement
 * and destroy steps). As in the matrix, each command converges after at most one re-run without the
 * faults (`up` again, as its errors say), and then leaves on the services exactly what the clean
 * session left, and the same state.
 */
const FAULTED: { index: number; command: Command; stage?: Stage; first: Fault }[] = [
  { index: 0, command: "up", stage: "prerequisites", first: "lost answer" },
  { index: 1, command: "up", stage: "create", first: "lost answer" },
  { index: 3, command: "up", stage: "change", first: "timeout" },
  { index: 4, command: "up", stage: "replacement", first: "timeout" },
  { index: 6, command: "destroy", first: "lost answer" },
];
type Fault = "lost answer" | "timeout";
const WRITES = /^(POST|PUT|PATCH|DELETE) /;
/** Seconds a request attempt may take: a held request costs this much, once. */
const TIMEOUT_SECONDS = 3;

const FAULT_SPECS: Record<Fault, FaultSpec> = {
  "lost answer": { times: Infinity, match: WRITES, firstOfEach: true, dropAfterHandling: true },
  timeout: { times: Infinity, match: WRITES, firstOfEach: true, holdUntilAborted: true },
};

/** The servers of every service of a world. */
const serversOf = (emu: Emulator): ServiceServer[] => [...Object.values(emu.clusters), emu.workspaces, emu.mesh];

/** Arms both faults on every service of the world, `first` first; or clears them. */
function armFaults(emu: Emulator, first?: Fault): void {
  for (const server of serversOf(emu)) {
    server.faults.clear();
    if (!first) continue;
    server.faults.inject(FAULT_SPECS[first]);
    server.faults.inject(FAULT_SPECS[first === "timeout" ? "lost answer" : "timeout"]);
  }
}

/** Each resource type through either door, by its token. */
const ENTRY_OF_TOKEN = new Map(entries().flatMap((entry) => (["dynamic", "plugin"] as const).map((door) => [tokenThrough(entry, door), entry] as const)));

/** The errors a run reported on its resources: the resource's URN and what was said. */
function resourceErrors(ran: Ran): { urn: string; message: string }[] {
  return (eventsOf(ran) as { diagnosticEvent?: { severity: string; message: string; urn?: string } }[])
    .map((event) => event.diagnosticEvent)
    .filter((d): d is { severity: string; message: string; urn: string } => d?.severity === "error" && Boolean(d.urn))
    .map((d) => ({ urn: d.urn, message: d.message.trim() }));
}

/** The errors of a run, one line each, for the test's record. */
const errorsOf = (ran: Ran): string[] => resourceErrors(ran).map((e) => `  ${e.urn.split("::")[3]}: ${e.message}`);

/** What is wrong with the errors a failed run reported: each names its resource, the request and what to do, and holds no credential. */
function errorProblems(ran: Ran, secrets: string[]): string[] {
  return resourceErrors(ran).flatMap(({ urn, message }) => {
    const entry = ENTRY_OF_TOKEN.get(urn.split("::")[2]);
    return entry ? messageProblems(message, entry, secrets) : [];
  });
}

test(
  "every type through each door meets a lost answer and a timeout on each write: each command converges to the clean run's objects and state",
  async () => {
    expect(cleanCensus).toHaveLength(7);
    const world = await startWorld();
    worlds.push(world);
    const settings = settingsOf(world.emu, { timeoutSeconds: String(TIMEOUT_SECONDS), retryBaseDelayMs: "2" });
    await faultProject.stack("dev", settings.config, settings.secrets);
    const at = programs(world);
    const secrets = [...Object.values(world.emu.clusters).map((c) => c.rootToken), world.emu.mesh.rootToken, ...Object.values(world.emu.workspaces.tokens)];
    const previous: CommandRecord[] = [];
    const runs: string[] = [];
    const left = new Set<string>();
    for (const { index, command, stage, first } of FAULTED) {
      const label = `${command} ${stage ?? ""} (${first} first)`;
      if (stage) faultProject.write("program.json", declaredProgramFiles(await at(stage, previous))["program.json"]);
      const args = [command, "--yes", "--skip-preview", "--json"];
      const env = { PULUMI_SKIP_CHECKPOINTS: "true", ...settings.env };
      armFaults(world.emu, first);
      const faulted = await faultProject.pulumi(args, { expect: "either", env });
      armFaults(world.emu);
      runs.push(`${label}: exit ${faulted.code}`, ...errorsOf(faulted));
      leftBehind(faulted).forEach((id) => left.add(id));
      expect([runs, errorProblems(faulted, secrets)]).toEqual([runs, []]);
      if (faulted.code !== 0) {
        const again = await faultProject.pulumi(args, { expect: "either", env });
        runs.push(`${label}, again: exit ${again.code}`, ...errorsOf(again));
        leftBehind(again).forEach((id) => left.add(id));
        expect([runs, again.code]).toEqual([runs, 0]);
      }
      expect([label, await censusOf(world, left)]).toEqual([label, cleanCensus[index]]);
      if (command === "up") {
        const { state, stackOutputs } = await cliState(faultProject, OPTIONS.generated);
        expect([label, state]).toEqual([label, clean[index].state]);
        previous.push({ command, steps: {}, requests: [], operations: [], stackOutputs });
      }
    }
    // Both faults met requests (counted by the services' logs: an answer lost is a "drop", a timeout "held").
    const met = (fault: string) => serversOf(world.emu).reduce((n, server) => n + server.log.entries.filter((e) => e.fault === fault).length, 0);
    runs.push(`requests whose answer was lost: ${met("drop")}, held until the client gave up: ${met("held")}`);
    expect(met("drop")).toBeGreaterThan(0);
    expect(met("held")).toBeGreaterThan(0);
    // eslint-disable-next-line no-console
    console.log(runs.join("\n"));
  },
  ENGINE_TIMEOUT,
);
