/**
 * Fault matrix: every registered resource × each of its steps (create, update, replacement,
 * refresh, delete, adoption) × the k-th request the step makes (counted in a clean run) × each fault the services
 * can answer with. After at most one re-run without the fault, state and services agree, nothing
 * is duplicated, destroy leaves nothing behind, and every error names the resource, the request
 * and what to do, without a token.
 *
 * Both doors of the machines are covered: each step's clean run goes through the plugin, each
 * create's through the dynamic host too (the two must send the same requests and leave the same
 * objects), the plugin door's own steps (import by ID, refresh after drift) run clean, and the fault
 * cases take the doors in turn, so every step meets faults through both doors at the cost of one.
 */
import { RequestRecord } from "../../emulator/common";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { registeredResources } from "../../resources/all-specs";
import { shortTypeOf, tokenOf } from "../../provider/spec";
import { Door, entries, Entry, expectSample, registeredTypes, FaultKind, onLanes, Outcome, pluginStepsOf, Reference, runCase, StepName, stepsOf, canMeetExisting, targetsOf } from "./cases";
import { Lane, startLane } from "./services";

/**
 * Request timeouts: generous everywhere (no case races the machine's speed), but for the faulted
 * service in the cases whose fault is the client giving up; the emulator holds that request until
 * the client aborts it, then acts, so the outcome does not depend on the load either.
 */
const TIMEOUT_SECONDS = 60;
const GIVE_UP_SECONDS = 1;
/** Cases of one service's give-up group per lane it takes (each lane restarts its provider host for it). */
const CASES_PER_GIVE_UP_LANE = 10;
const LANES = 4;

/**
 * The server errors, taken in turn: the client reads 500, 502 and 503 alike (retried with backoff; a
 * write so answered may have acted), so each request gets one of them, and every one of them meets
 * many requests across the matrix.
 */
const SERVER_ERRORS: FaultKind[] = [500, 502, 503].map((status) => ({ name: String(status), fault: { status } }));

/**
 * The refusals, taken in turn likewise: the client never retries a 400 or a 403 (each is final, and
 * each error names the request and what to fix), so each request gets one of them.
 */
const REFUSALS: FaultKind[] = [400, 403].map((status) => ({ name: String(status), fault: { status }, final: true }));

/** The faults each request gets; `SERVER_ERROR` and `REFUSAL` stand for the server error and the refusal of its turn. */
const SERVER_ERROR: FaultKind = { name: "5xx", fault: {} };
const REFUSAL: FaultKind = { name: "4xx", fault: {}, final: true };
/**
 * Faults that differ from a reset only when the request acted: an answer lost after the service
 * handled it, or given after the client gave up. A read acts on nothing, so for a GET they are the
 * reset's case (retried alike), and only writes get them.
 */
const actedOnly = (kind: FaultKind) => kind.fault.dropAfterHandling === true || kind.clientGivesUp === true;

const FAULTS: FaultKind[] = [
  { name: "412", fault: { status: 412 } },
  { name: "429 with Retry-After", fault: { status: 429, headers: { "Retry-After": "0" } } },
  SERVER_ERROR,
  { name: "reset connection", fault: { drop: true } },
  { name: "lost answer", fault: { dropAfterHandling: true } },
  { name: "answer after the client gave up", fault: { holdUntilAborted: true }, clientGivesUp: true },
  REFUSAL,
];

interface CaseResult {
  entry: Entry;
  step: StepName;
  kind: FaultKind;
  door: Door;
  label: string;
  outcome: Outcome;
}

/** The doors the fault cases take in turn. */
const DOORS: Door[] = ["dynamic", "plugin"];

describe("fault matrix", () => {
  let postgres: EmbeddedPostgres;
  let lanes: Lane[] = [];
  const clean = new Map<string, Outcome>();
  const results: CaseResult[] = [];
  let all: Entry[] = [];

  test.each(registeredTypes())("%s has a service sample", (type) => {
    expectSample(type);
  });

  beforeAll(async () => {
    all = entries();
    postgres = await startEmbeddedPostgres();
    lanes = await Promise.all(Array.from({ length: LANES }, () => startLane({ postgresConnectionString: postgres.connectionString, timeoutSeconds: TIMEOUT_SECONDS })));

    // Clean runs: what each step requests, and how many objects it leaves, through the plugin; each
    // create through the dynamic host too, to compare, under a name of its own (a lane may take both,
    // and what one run leaves, such as a revoked key, must not be what the other declares); then the
    // plugin door's own steps.
    const steps = all.flatMap((entry) => stepsOf(entry).map((step) => ({ entry, step })));
    const cleanJobs = [
      ...steps.map(({ entry, step }, i) => ({ entry, step, door: "plugin" as Door, name: `cln${i}x` })),
      ...steps.flatMap(({ entry, step }, i) => (step === "create" ? [{ entry, step, door: "dynamic" as Door, name: `cld${i}x` }] : [])),
      ...all.flatMap((entry) => pluginStepsOf(entry).map((step) => ({ entry, step, door: "plugin" as Door }))).map((job, i) => ({ ...job, name: `plg${i}x` })),
      // A create over an object someone else made, refused, through both doors.
      ...all.filter(canMeetExisting).flatMap((entry) => DOORS.map((door) => ({ entry, step: "takeover" as StepName, door }))).map((job, i) => ({ ...job, name: `own${i}x` })),
    ];
    const cleanOutcomes = await onLanes(lanes, cleanJobs, (lane, { entry, step, door, name }) => runCase(lane, entry, step, name, { door }), { ms: 60_000, late: (_, lane) => lateOutcome(60, lane) }, "fault matrix, clean runs");
    cleanJobs.forEach(({ entry, step, door }, i) => clean.set(`${entry.type} ${step} ${door}`, cleanOutcomes[i]));
    const cleanRuns = steps.map(({ entry, step }) => clean.get(`${entry.type} ${step} plugin`)!);

    let turn = 0;
    let refusalTurn = 0;
    const ofTurn = (kind: FaultKind) =>
      kind === SERVER_ERROR ? SERVER_ERRORS[turn++ % SERVER_ERRORS.length] : kind === REFUSAL ? REFUSALS[refusalTurn++ % REFUSALS.length] : kind;
    const cases = steps.flatMap(({ entry, step }, i) => {
      const reference: Reference = { afterStep: cleanRuns[i].afterStep, afterDestroy: cleanRuns[i].afterDestroy };
      if (cleanRuns[i].problems.length) return [];
      return targetsOf(cleanRuns[i].requests, `cln${i}x`)
        .map((target, k) => ({ target, k }))
        // A replacement's reads are those of the create and delete steps, faulted there; its writes
        // are faulted here, where a failure leaves the new object made and the old one still owed.
        .filter(({ target }) => step !== "replace" || target.record.method !== "GET")
        .flatMap(({ target, k }) =>
          FAULTS.filter((kind) => target.record.method !== "GET" || !actedOnly(kind))
            .map(ofTurn)
            .map((kind) => ({ entry, step, target, kind, reference, label: `${step} #${k + 1} ${describeRequest(target.record)} × ${kind.name}` })),
        );
    });
    // The doors in turn: one case through the dynamic host, the next through the plugin. The cases
    // where the client gives up restart their lanes' hosts for a short timeout, one service at a
    // time: each service's go through one door, the services taking the doors in turn, so a
    // restarted lane starts one host, not two.
    const doorOf = (i: number): Door => (cases[i].kind.clientGivesUp ? DOORS[cases[i].target.service % DOORS.length] : DOORS[i % DOORS.length]);
    type Case = (typeof cases)[number];
    const run = (group: { c: Case; i: number }[], on: Lane[] = lanes) =>
      onLanes(
        on,
        group,
        (lane, { c, i }) =>
          runCase(lane, c.entry, c.step, `flt${i}x`, {
            door: doorOf(i),
            reference: c.reference,
            fault: { service: c.target.service, match: c.target.match, skip: c.target.skip, kind: c.kind },
          }),
        { ms: 120_000, late: (_, lane) => lateOutcome(120, lane) },
        `fault matrix, ${group.length} fault cases${on === lanes ? "" : " of one service giving up"}`,
      );
    const numbered = cases.map((c, i) => ({ c, i }));
    const outcomes: Outcome[] = new Array(cases.length);
    const record = (group: { i: number }[], done: Outcome[]) => group.forEach(({ i }, k) => (outcomes[i] = done[k]));
    record(numbered.filter(({ c }) => !c.kind.clientGivesUp), await run(numbered.filter(({ c }) => !c.kind.clientGivesUp)));
    // The client gives up on one service at a time: only that service's timeout is short. A lane
    // changes its timeouts by restarting its provider host, so a small group takes fewer lanes.
    for (const [service, prefix] of lanes[0].servicePrefixes.entries()) {
      const group = numbered.filter(({ c }) => c.kind.clientGivesUp && c.target.service === service);
      if (group.length === 0) continue;
      const used = lanes.slice(0, Math.min(lanes.length, Math.ceil(group.length / CASES_PER_GIVE_UP_LANE)));
      await Promise.all(used.map((lane) => lane.setTimeouts({ [prefix]: GIVE_UP_SECONDS })));
      record(group, await run(group, used));
    }
    cases.forEach((c, i) => results.push({ entry: c.entry, step: c.step, kind: c.kind, door: doorOf(i), label: `${c.label} (${doorOf(i)} door)`, outcome: outcomes[i] }));
  }, 20 * 60_000);

  afterAll(async () => {
    const converged = results.filter((r) => r.outcome.problems.length === 0).length;
    const duplicates = results.reduce((n, r) => n + r.outcome.duplicates, 0);
    const orphans = results.reduce((n, r) => n + r.outcome.orphans, 0);
    const fired = results.filter((r) => r.outcome.fired).length;
    const accounted = results.reduce((n, r) => n + (r.outcome.accounted ?? 0), 0);
    const byStep = new Map<string, number>();
    for (const r of results) byStep.set(r.step, (byStep.get(r.step) ?? 0) + 1);
    const failedFirst = results.filter((r) => r.outcome.rerun).length;
    const throughPlugin = results.filter((r) => r.door === "plugin").length;
    console.log(
      `fault matrix: ${clean.size} clean runs (every step through the plugin, creates through both doors, the plugin's import and drift); ` +
        `${results.length} cases (${[...byStep].map(([step, n]) => `${n} ${step}`).join(", ")}; ${throughPlugin} through the plugin; ${fired} faults met their request), ` +
        `${converged} converged, ${duplicates} duplicates, ${orphans} orphans, ${accounted} objects the provider said it could not remove, ` +
        `${failedFirst} runs failed and were run again`,
    );
    await Promise.all(lanes.map((l) => l.close()));
    await postgres?.close();
  });

  const failures = (type: string) =>
    results.filter((r) => r.entry.type === type && r.outcome.problems.length).map((r) => `${r.label}: ${r.outcome.problems.join(" | ")}`);

  test.each(registeredResources.map(({ spec }) => shortTypeOf(tokenOf(spec))))("%s: clean runs of every step converge through the plugin, the create through both doors, the plugin's import and drift included", (type) => {
    const problems = [...clean.entries()].filter(([key, o]) => key.startsWith(`${type} `) && o.problems.length).map(([key, o]) => `${key}: ${o.problems.join(" | ")}`);
    expect(problems).toEqual([]);
    // A type the run covers at all is covered through the plugin too.
    const ran = [...clean.keys()].filter((k) => k.startsWith(`${type} `));
    if (ran.length) expect(ran.filter((k) => k.endsWith(" plugin")).length).toBeGreaterThan(0);
  });

  test.each(registeredResources.map(({ spec }) => shortTypeOf(tokenOf(spec))))("%s: a create over an object someone else made is refused by name through both doors, and writes nothing", (type) => {
    const runs = [...clean.entries()].filter(([key]) => key.startsWith(`${type} takeover `));
    const entry = all.find((e) => e.type === type);
    // Every type whose create can meet an existing object is tried, through both doors.
    expect(runs.map(([key]) => key).sort()).toEqual(entry && canMeetExisting(entry) ? DOORS.map((door) => `${type} takeover ${door}`).sort() : []);
    expect(runs.filter(([, o]) => o.problems.length).map(([key, o]) => `${key}: ${o.problems.join(" | ")}`)).toEqual([]);
  });

  test.each(registeredResources.map(({ spec }) => shortTypeOf(tokenOf(spec))))("%s: a create sends the same requests and leaves as many objects through both doors", (type) => {
    const differences: string[] = [];
    for (const [key, dynamic] of clean) {
      if (!key.startsWith(`${type} `) || !key.endsWith(" dynamic")) continue;
      const plugin = clean.get(key.replace(/ dynamic$/, " plugin"))!;
      const patterns = (o: Outcome, name: string) => targetsOf(o.requests, name).map((t) => `${t.service} ${t.match.source}`).sort();
      const name = (o: Outcome) => o.caseName ?? "";
      if (JSON.stringify(patterns(dynamic, name(dynamic))) !== JSON.stringify(patterns(plugin, name(plugin)))) differences.push(`${key}: requests differ`);
      if (dynamic.afterStep !== plugin.afterStep || dynamic.afterDestroy !== plugin.afterDestroy) differences.push(`${key}: objects differ`);
    }
    expect(differences).toEqual([]);
  });

  test.each(registeredResources.map(({ spec }) => shortTypeOf(tokenOf(spec))))("%s: every fault case converges, without duplicates or orphans", (type) => {
    expect(results.some((r) => r.entry.type === type) || ![...clean.keys()].some((k) => k.startsWith(`${type} `))).toBe(true);
    expect(failures(type)).toEqual([]);
  });

  test("every armed fault met its request", () => {
    // A fault that met no request proves nothing: its request did not recur as the clean run made it.
    expect(results.filter((r) => !r.outcome.fired).map((r) => `${r.entry.type} ${r.label}`)).toEqual([]);
  });

  test("totals: duplicates = orphans = 0, converged = cases", () => {
    expect(results.length).toBeGreaterThan(0);
    expect(results.reduce((n, r) => n + r.outcome.duplicates, 0)).toBe(0);
    expect(results.reduce((n, r) => n + r.outcome.orphans, 0)).toBe(0);
    expect(results.filter((r) => r.outcome.problems.length === 0).length).toBe(results.length);
  });
});

function describeRequest(record: RequestRecord): string {
  return `${record.method} ${record.path}`;
}

/** The outcome of a case that did not finish in time (its lane stops). */
/** A case past its deadline, with what its lane said last; without a lane, no lane was left to take it. */
function lateOutcome(seconds: number, lane?: Lane): Outcome {
  const problem = lane
    ? `the case did not finish within ${seconds} s; its lane's last lines: ${lane.recent().join(" / ") || "(none)"}`
    : "no lane was left to take the case (each had a case past its deadline)";
  return { requests: [], fired: false, errors: [], rerun: false, problems: [problem], duplicates: 0, orphans: 0, afterStep: 0, afterDestroy: 0 };
}
