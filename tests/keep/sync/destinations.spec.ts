/**
 * The five sync destination types through the provider host: preview without requests, create,
 * no-op, in-place change, replacement, drift seen on refresh and put back, adoption, destroy, and
 * each type's rules refused in preview naming the property.
 */
import { keep } from "pulumi-keepstack";
import { syncOf, StoredDestination } from "../../../emulator/keep/sync";
import { EngineError, summarize } from "../../../harness";
import { KeepStack, startKeepStack } from "../../support/keep-stack";
import { definedOutputs } from "../../support/outputs";

type Args = Record<string, unknown>;

interface Case {
  type: string;
  make(name: string, args: Args, opts?: Args): unknown;
  args: Args;
  /** An in-place change, and what the service then stores in its connection details or options. */
  change: Args;
  stored(d: StoredDestination): unknown;
  expected: unknown;
  /** A non-sensitive detail changed behind the program's back, and the property that shows it. */
  drift(d: StoredDestination): StoredDestination;
  driftProperty: string;
  /** Bad inputs and the property named in preview. */
  bad: [Args, string, RegExp][];
}

const CREDENTIALS = JSON.stringify({ type: "service_account", project_id: "proj-1", private_key: "k" });

const cases: Case[] = [
  {
    type: "cloudA-sm",
    make: (name, args, opts) => new keep.sync.CloudASmDestination(name, args as never, opts),
    args: { accessKeyId: "AKIA1", secretAccessKey: "secret-1", region: "eu-west-1", customTags: { team: "a" } },
    change: { region: "us-east-2" },
    stored: (d) => d.connection.region,
    expected: "us-east-2",
    drift: (d) => ({ ...d, connection: { ...d.connection, region: "ap-south-1" } }),
    driftProperty: "region",
    bad: [
      [{ granularity: "per-secret" }, "granularity", /secret-path .* or secret-key/],
      [{ customTags: { "keep:owner": "x" } }, "customTags", /prefix keep:/],
      [{ granularity: "secret-key", secretNameTemplate: "{{ .SecretPath }}" }, "secretNameTemplate", /SecretKey/],
    ],
  },
  {
    type: "cloudB-kv",
    make: (name, args, opts) => new keep.sync.CloudBKvDestination(name, args as never, opts),
    args: { keyVaultUri: "https://vault-1.vault.example.net/", clientId: "client-1", clientSecret: "cs-1", tenantId: "tenant-1" },
    change: { tenantId: "tenant-2" },
    stored: (d) => d.connection.tenant_id,
    expected: "tenant-2",
    drift: (d) => ({ ...d, connection: { ...d.connection, client_id: "someone-else" } }),
    driftProperty: "clientId",
    bad: [
      [{ clientSecret: undefined }, "clientSecret", /required/],
      [{ keyVaultUri: "not a uri" }, "keyVaultUri", /key vault's URI/],
    ],
  },
  {
    type: "cloudC-sm",
    make: (name, args, opts) => new keep.sync.CloudCSmDestination(name, args as never, opts),
    args: { credentials: CREDENTIALS, projectId: "proj-2" },
    change: { secretNameTemplate: "app-{{ .SecretPath | replace \"/\" \"-\" }}" },
    stored: (d) => d.options.secret_name_template,
    expected: 'app-{{ .SecretPath | replace "/" "-" }}',
    drift: (d) => ({ ...d, connection: { ...d.connection, project_id: "proj-other" } }),
    driftProperty: "projectId",
    bad: [
      [{ credentials: "{not json" }, "credentials", /JSON credentials content or @<path>/],
      [{ secretNameTemplate: "{{ .Unknown }}" }, "secretNameTemplate", /names no field/],
    ],
  },
  {
    type: "repohost",
    make: (name, args, opts) => new keep.sync.RepoHostDestination(name, args as never, opts),
    args: { accessToken: "token-1", repositoryOwner: "acme", repositoryName: "web" },
    change: { repositoryName: "api" },
    stored: (d) => d.connection.repository_name,
    expected: "api",
    drift: (d) => ({ ...d, connection: { ...d.connection, repository_owner: "evil" } }),
    driftProperty: "repositoryOwner",
    bad: [
      [{ accessToken: undefined }, "accessToken", /or appName is required/],
      [{ accessToken: undefined, appName: "ci-app" }, "installationId", /required when appName/],
      [{ customTags: { a: "b" } }, "customTags", /not a property/],
    ],
  },
  {
    type: "webhost-project",
    make: (name, args, opts) => new keep.sync.WebHostProjectDestination(name, args as never, opts),
    args: { accessToken: "token-1", projectId: "prj_1", deploymentEnvironments: ["production"] },
    change: { deploymentEnvironments: ["preview", "production"], teamId: "team_1" },
    stored: (d) => [d.connection.deployment_environments, d.connection.team_id],
    expected: [["preview", "production"], "team_1"],
    drift: (d) => ({ ...d, connection: { ...d.connection, team_id: "team_other" } }),
    driftProperty: "teamId",
    bad: [
      [{ deploymentEnvironments: ["staging"] }, "deploymentEnvironments[0]", /one of development, preview, production/],
      [{ projectId: undefined }, "projectId", /required/],
    ],
  },
];

/** One emulator and one engine for every type: each type's tests end with its objects destroyed. */
let stack: KeepStack;
beforeAll(async () => {
  stack = await startKeepStack();
});
afterAll(() => stack.close());

describe.each(cases)("keep.sync destination $type", (c) => {
  afterAll(async () => {
    await stack.engine.destroy();
    stack.engine.state.clear();
  });
  const sync = () => syncOf(stack.keep);
  const stored = (name: string) => sync().destination({ type: c.type, name });
  const program = (name: string, extra: Args = {}) => () => {
    const d = c.make("dest", { name, ...c.args, ...extra }) as { id: unknown };
    return { id: d.id };
  };

  test("preview plans a create and sends no request; bad input fails in preview naming the property", async () => {
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("one"))).steps)).toEqual({ create: 1 });
    for (const [extra, property, reason] of c.bad) {
      const error = (await stack.engine.preview(program("one", extra)).catch((e) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.message).toContain(`${property}: `);
      expect(error.message).toMatch(reason);
    }
    expect(stack.keep.log.count).toBe(0);
  });

  test("up creates it with its details; preview again changes nothing", async () => {
    const up = await stack.engine.up(program("one"));
    expect(up.outputs).toEqual({ id: `${c.type}/one` });
    expect(stored("one")).toMatchObject({ type: c.type, name: "one" });
    stack.keep.log.clear();
    expect(summarize((await stack.engine.preview(program("one"))).steps)).toEqual({ same: 1 });
    expect(stack.keep.log.count).toBe(0);
    // Sensitive details are secrets in state, and never shown by the service.
    const state = [...stack.engine.state.values()][0];
    for (const key of Object.keys(c.args).filter((k) => /secret|token|credentials|accessKeyId/i.test(k))) expect(state.secretOutputs).toContain(key);
  });

  test("a change is made in place", async () => {
    const preview = await stack.engine.preview(program("one", c.change));
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: Object.keys(c.change) });
    await stack.engine.up(program("one", c.change));
    expect(c.stored(stored("one")!)).toEqual(c.expected);
  });

  test("a new name replaces it", async () => {
    const up = await stack.engine.up(program("two", c.change));
    expect(up.steps[0]).toMatchObject({ op: "replace", replaces: ["name"] });
    expect(stored("one")).toBeUndefined();
    expect(c.stored(stored("two")!)).toEqual(c.expected);
  });

  test("drift of a detail is seen on refresh and put back by the next up", async () => {
    sync().changeDestination({ type: c.type, name: "two" }, c.drift);
    const refreshed = await stack.engine.refresh();
    expect(refreshed.steps[0]).toMatchObject({ op: "update", diffs: [c.driftProperty] });
    const preview = await stack.engine.preview(program("two", c.change));
    expect(preview.steps[0]).toMatchObject({ op: "update", diffs: [c.driftProperty] });
    await stack.engine.up(program("two", c.change));
    expect(c.stored(stored("two")!)).toEqual(c.expected);
    expect(c.drift(stored("two")!)).not.toEqual(stored("two"));
    expect(summarize((await stack.engine.refresh()).steps)).toEqual({ same: 1 });
  });

  test("destroy deletes it", async () => {
    await stack.engine.destroy();
    expect(stored("two")).toBeUndefined();
  });

  test("an existing destination is adopted and converged to the declared details", async () => {
    // Made outside the program (another engine), then drifted.
    await stack.engine.up(program("three"));
    stack.engine.state.clear();
    sync().changeDestination({ type: c.type, name: "three" }, c.drift);
    stack.keep.log.clear();
    await stack.engine.up(program("three", { ...c.change, adopt: true }));
    expect(stack.keep.log.lines()).toEqual([`GET /v1/sys/sync/destinations/${c.type}/three`, `POST /v1/sys/sync/destinations/${c.type}/three`]);
    expect(c.stored(stored("three")!)).toEqual(c.expected);
    expect(c.drift(stored("three")!)).not.toEqual(stored("three"));
    expect(summarize((await stack.engine.preview(program("three", c.change))).steps)).toEqual({ same: 1 });
    await stack.engine.destroy();
    expect(stored("three")).toBeUndefined();
  });

  describe("the obfuscated answer never reaches state, a plan or generated code", () => {
    const declare = (name: string, extra: Args = {}) => () => {
      c.make("dest", { name, ...c.args, ...extra });
    };
    const stateText = () => JSON.stringify(stack.engine.exportState());
    const sensitive = Object.keys(c.args).filter((k) => /secret|token|credentials|accessKeyId/i.test(k));

    test("the service does obfuscate it (else this test proves nothing)", async () => {
      await stack.engine.up(declare("d"));
      const read = await fetch(`${stack.keep.url}/v1/sys/sync/destinations/${c.type}/d`, { headers: { "x-keep-token": stack.keep.rootToken } });
      expect(JSON.stringify(await read.json())).toContain(OBFUSCATED);
    });

    test("refresh after an out-of-band change, the credential changed too: drift of the detail only, no obfuscated value", async () => {
      sync().changeDestination({ type: c.type, name: "d" }, (d) => {
        const drifted = c.drift(d);
        const connection = { ...drifted.connection };
        for (const [key, value] of Object.entries(connection)) if (typeof value === "string" && /secret|token|credentials|access_key/.test(key)) connection[key] = `${value}-rotated`;
        return { ...drifted, connection };
      });
      const refreshed = await stack.engine.refresh();
      expect(refreshed.steps.map((s) => s.diffs)).toEqual([[c.driftProperty]]);
      expect(stateText()).not.toContain(OBFUSCATED);
      // The next up puts the detail back; the credential, which the service never shows, plans nothing.
      const preview = await stack.engine.preview(declare("d"));
      expect(preview.steps.map((s) => s.op)).toEqual(["update"]);
      for (const key of sensitive) expect(preview.steps[0].diffs ?? []).not.toContain(key);
      await stack.engine.up(declare("d"));
      expect(stateText()).not.toContain(OBFUSCATED);
      await stack.engine.destroy();
    });

    test("adoption of an existing destination and a read-only get keep it out of state and outputs", async () => {
      await stack.engine.up(declare("adopted"));
      stack.engine.state.clear();
      await stack.engine.up(declare("adopted", { adopt: true }));
      expect(stateText()).not.toContain(OBFUSCATED);
      expect(summarize((await stack.engine.preview(declare("adopted"))).steps)).toEqual({ same: 1 });

      const got = await stack.engine.up(() => {
        declare("adopted")();
        const r = CLASSES[c.type].get("read-only", `${c.type}/adopted`) as Record<string, unknown>;
        return definedOutputs(Object.fromEntries(sensitive.map((k) => [k, r[k]])));
      }).catch((e: unknown) => e);
      expect(JSON.stringify(got)).not.toContain(OBFUSCATED);
      expect(stateText()).not.toContain(OBFUSCATED);
    });

    test("import prints a reference in its place, never the obfuscated value", async () => {
      const { createContext } = await import("../../../provider/context");
      const { importObjects, specOf } = await import("../../../cli/import");
      const { renderProgram } = await import("../../../cli/program-text");
      const config: Record<string, string> = { "keep:address": stack.keep.url, "keep:token": stack.keep.rootToken };
      const spec = specOf(CLASSES[c.type].__pulumiType);
      const objects = await importObjects(createContext((k) => config[k]), spec, [`${c.type}/adopted`]);
      expect(JSON.stringify(objects)).not.toContain(OBFUSCATED);
      const { text } = renderProgram(objects);
      expect(text).not.toContain(OBFUSCATED);
      // A required credential is declared as a reference; an optional one is named in a comment with the reference to use.
      for (const key of sensitive) expect(text).toMatch(new RegExp(`${key}: (fromConfig\\(|.*as fromConfig\\()`));
    });
  });
});

describe("a credential given by reference", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack({ config: { "app:clientSecret": "first-client-secret" } });
  });
  afterAll(() => stack.close());

  const program = () => {
    new keep.sync.CloudBKvDestination("vault", {
      name: "vault",
      keyVaultUri: "https://v.vault.example.net/",
      clientId: "c",
      tenantId: "t",
      clientSecret: { fromConfig: "app:clientSecret" },
    });
  };

  test("is sent resolved, never stored; a changed value plans exactly one update", async () => {
    await stack.engine.up(program);
    const sync = syncOf(stack.keep);
    expect(sync.destination({ type: "cloudB-kv", name: "vault" })?.connection.client_secret).toBe("first-client-secret");
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });

    await stack.engine.setConfig({ ...(stack.engine as unknown as { options: { config: Record<string, string> } }).options.config, "app:clientSecret": "second-client-secret" });
    const preview = await stack.engine.preview(program);
    expect(preview.steps).toEqual([expect.objectContaining({ op: "update", diffs: ["clientSecret"] })]);
    await stack.engine.up(program);
    expect(sync.destination({ type: "cloudB-kv", name: "vault" })?.connection.client_secret).toBe("second-client-secret");
    expect(summarize((await stack.engine.preview(program)).steps)).toEqual({ same: 1 });

    const exported = JSON.stringify(stack.engine.exportState());
    expect(exported).toContain("app:clientSecret");
    expect(exported).not.toContain("first-client-secret");
    expect(exported).not.toContain("second-client-secret");
    await stack.engine.destroy();
  });
});

/** What the service answers in place of a sensitive detail. */
const OBFUSCATED = "*****";

/** The class of each destination type, for its static `get` and its type token. */
const CLASSES: Record<string, { get(name: string, id: string): unknown; __pulumiType: string }> = {
  "cloudA-sm": keep.sync.CloudASmDestination,
  "cloudB-kv": keep.sync.CloudBKvDestination,
  "cloudC-sm": keep.sync.CloudCSmDestination,
  repohost: keep.sync.RepoHostDestination,
  "webhost-project": keep.sync.WebHostProjectDestination,
};

describe.each(Object.keys(CLASSES))("the ID of keep.sync.%s", (type) => {
  test("names the destination with its type, or alone when written by hand", async () => {
    const { specOf } = await import("../../../cli/import");
    const spec = specOf(CLASSES[type].__pulumiType);
    const full = spec.naturalId({ name: "payments" } as never);
    expect(full).toMatch(/^[A-Za-z-]+\/payments$/);
    expect(spec.fromId(full)).toEqual({ name: "payments" });
    expect(spec.fromId("payments")).toEqual({ name: "payments" });
    expect(spec.fromId(`dr@team:${full}`)).toEqual({ cluster: "dr", namespace: "team", name: "payments" });
    expect(spec.fromId("dr@team:payments")).toEqual({ cluster: "dr", namespace: "team", name: "payments" });
  });
});
