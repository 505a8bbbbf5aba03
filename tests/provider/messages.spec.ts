/**
 * What a failed run says, through both doors: a connection error names the address it tried, a
 * timeout the timeout of each attempt and how many there were, the operation is said once; a
 * service without an address (and no default) is refused in preview, naming its setting; the old
 * half of a replacement whose delete is refused is named by its type and name.
 */
import * as net from "node:net";
import { keep, workspaces } from "pulumi-keepstack";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { Engine, EngineError, Program } from "../../harness";
import { pluginResource, settingsOfDoor } from "../support/plugin-sdk";

type Door = "dynamic" | "plugin";
const DOORS: Door[] = ["dynamic", "plugin"];
const POLICY = 'path "secret/*" { capabilities = ["read"] }';

const policy = (door: Door, name: string): Program => () => {
  if (door === "plugin") pluginResource("keep:AclPolicy", name, { name, policy: POLICY });
  else new keep.AclPolicy(name, { name, policy: POLICY });
};

async function failure(engine: Engine, run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (e) {
    return (e as EngineError).errors?.join("\n") ?? String(e);
  } finally {
    await engine.close();
  }
  throw new Error("the run did not fail");
}

let keepEmulator: KeepEmulator;
/** An address where nothing listens: a port taken, then given back. */
let closedAddress: string;
beforeAll(async () => {
  keepEmulator = await startKeepEmulator();
  const server = net.createServer();
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
  await new Promise((resolve) => server.close(resolve));
  closedAddress = `http://127.0.0.1:${port}`;
});
afterAll(() => keepEmulator?.close());

describe.each(DOORS)("through the %s door", (door) => {
  test("a refused connection names the address tried; the operation is said once", async () => {
    const engine = new Engine({ project: "messages", config: settingsOfDoor(door, { "keep:address": closedAddress, "keep:maxRetries": "1", "keep:retryBaseDelayMs": "1" }) });
    const said = await failure(engine, engine.up(policy(door, "readers")));
    // A create's first request is its read (it never writes over an object it did not make).
    expect(said).toContain(`keep:AclPolicy "readers": create failed: keep: GET /v1/sys/policies/acl/readers failed without an answer from ${closedAddress} (ECONNREFUSED) after 1 retry`);
    expect(said).toContain(`check that the service is reachable at ${closedAddress} (${door === "plugin" ? "keepstack:keepAddress" : "keep:address"} (or KEEP_ADDR))`);
    expect(said.match(/create failed/g)).toHaveLength(1);
  });

  test("a timeout names the timeout of each attempt and how many attempts there were", async () => {
    // The service holds every write until the client gives up on it; the second attempt too.
    keepEmulator.faults.inject({ times: 2, match: new RegExp(`^(PUT|POST) .*acl/slow-${door}$`), holdUntilAborted: true });
    const engine = new Engine({ project: "messages", config: settingsOfDoor(door, { "keep:address": keepEmulator.url, "keep:token": keepEmulator.rootToken, "keep:timeoutSeconds": "0.5", "keep:maxRetries": "1", "keep:retryBaseDelayMs": "1" }) });
    try {
      const said = await failure(engine, engine.up(policy(door, `slow-${door}`)));
      expect(said).toMatch(/keep:AclPolicy "slow-\w+": create failed: keep: (PUT|POST) \/v1\/sys\/policies\/acl\/slow-\w+ failed without an answer from http:\/\/127\.0\.0\.1:\d+ \(ETIMEDOUT: no answer within 0\.5 s, the timeout of each of 2 attempts\)/);
    } finally {
      keepEmulator.faults.clear();
    }
  });

  test("with progress asked for, each step is reported as it starts and ends, and a request still waiting says so, naming itself, its attempt and the timeout", async () => {
    // The service holds the write until the client gives up; a notice comes every quarter of the 1 s timeout.
    keepEmulator.faults.inject({ times: 1, match: new RegExp(`^(PUT|POST) .*acl/waiting-${door}$`), holdUntilAborted: true });
    const lines: string[] = [];
    const engine = new Engine({
      project: "messages",
      progress: (line) => lines.push(line),
      config: settingsOfDoor(door, { "keep:address": keepEmulator.url, "keep:token": keepEmulator.rootToken, "keep:timeoutSeconds": "1", "keep:maxRetries": "0" }),
    });
    try {
      await failure(engine, engine.up(policy(door, `waiting-${door}`)));
      const text = lines.join("\n");
      expect(text).toMatch(new RegExp(`still waiting for (PUT|POST) /v1/sys/policies/acl/waiting-${door} at ${keepEmulator.url.replace(/\./g, "\\.")}: attempt 1 of 1, 1 s each`));
      expect(text).toMatch(/create (keepstack:)?keep:AclPolicy "waiting-\w+"\.\.\./);
      expect(text).toMatch(/create (keepstack:)?keep:AclPolicy "waiting-\w+": failed after \d+\.\d\d s/);
      // The order the CLI shows: the start, what happened meanwhile, the end.
      const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
      expect(at(/\.\.\.$/)).toBeLessThan(at(/still waiting/));
      expect(at(/still waiting/)).toBeLessThan(at(/failed after/));
    } finally {
      keepEmulator.faults.clear();
    }
  });

  test("a service whose address has no default and is not set is refused in preview, naming the setting, with no request", async () => {
    const engine = new Engine({ project: "messages", config: settingsOfDoor(door, { "keep:address": keepEmulator.url }), env: { WORKSPACES_ADDR: "" } });
    const program: Program = () => {
      if (door === "plugin") pluginResource("workspaces:Workspace", "app", { name: "app" });
      else new workspaces.Workspace("app", { name: "app" });
    };
    const setting = door === "plugin" ? "keepstack:workspacesAddress" : "workspaces:address";
    const said = await failure(engine, engine.preview(program));
    expect(said).toContain(`invalid inputs:\n  workspaces: no address configured: set ${setting} (or WORKSPACES_ADDR)`);
  });

  test("the old half of a replacement whose delete is refused is named by its type and name, with the request and what to do", async () => {
    const engine = new Engine({ project: "messages", config: settingsOfDoor(door, { "keep:address": keepEmulator.url, "keep:token": keepEmulator.rootToken }) });
    try {
      await engine.up(policy(door, "old-half"));
      keepEmulator.faults.inject({ times: 1, match: /DELETE .*acl\/old-half$/, status: 403 });
      const renamed: Program = () => {
        if (door === "plugin") pluginResource("keep:AclPolicy", "old-half", { name: "new-half", policy: POLICY });
        else new keep.AclPolicy("old-half", { name: "new-half", policy: POLICY });
      };
      const said = await engine.up(renamed).then(
        () => "",
        (e: EngineError) => e.errors.join("\n"),
      );
      expect(said).toMatch(/the replaced object old-half could not be deleted .*: keep:AclPolicy "old-half": delete failed: keep: DELETE \/v1\/sys\/policies\/acl\/old-half returned 403/);
      expect(said).toMatch(/the token was refused or lacks permission/);
      await engine.destroy();
    } finally {
      keepEmulator.faults.clear();
      await engine.close();
    }
  });
});
