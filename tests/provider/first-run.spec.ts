/**
 * What a first run meets when a setting is wrong: an address without its scheme is refused in
 * preview, an https:// address on a plain-HTTP port is told as a TLS/scheme mismatch, an empty
 * config value does not hide the environment variable, and a refusal naming a missing referenced
 * object names the input that refers to it.
 */
import { keep } from "pulumi-keepstack";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { Engine, EngineError } from "../../harness";
import { resolveServiceConfig } from "../../provider/config";
import { keepConfig } from "../support/keep-stack";

let emu: KeepEmulator;
beforeAll(async () => {
  emu = await startKeepEmulator();
});
afterAll(() => emu.close());

const policy = () => {
  new keep.AclPolicy("readers", { name: "readers", policy: 'path "secret/*" { capabilities = ["read"] }' });
};

async function failureOf(config: Record<string, string>, run: (engine: Engine) => Promise<unknown>): Promise<string> {
  const engine = new Engine({ project: "first-run", config, secretConfig: ["keep:token"] });
  try {
    const error = (await run(engine).catch((e: unknown) => e)) as EngineError;
    expect(error).toBeInstanceOf(EngineError);
    return error.message;
  } finally {
    await engine.close();
  }
}

test("an address without its scheme is refused in preview, naming the setting, before any request", async () => {
  emu.log.clear();
  const address = emu.url.replace(/^http:\/\//, "");
  const message = await failureOf(keepConfig(emu, { "keep:address": address }), (engine) => engine.preview(policy));
  expect(message).toContain(`invalid inputs:\n  keep:address (or KEEP_ADDR) must be an http:// or https:// URL: did you mean https://${address}? (got "${address}")`);
  expect(emu.log.count).toBe(0);
});

test("an https:// address on a plain-HTTP port is a TLS/scheme mismatch, and the message says which setting to change", async () => {
  const message = await failureOf(keepConfig(emu, { "keep:address": emu.url.replace(/^http:/, "https:") }), (engine) => engine.up(policy));
  expect(message).toContain("the service answered in plain HTTP, not TLS: a TLS/scheme mismatch (the address says https://)");
  expect(message).toContain("use http:// in keep:address (or KEEP_ADDR), or the port where the service serves TLS");
  expect(message).not.toContain("check that the service is reachable");
});

test("an empty config value is unset: the environment variable still counts", () => {
  const config = resolveServiceConfig("workspaces", (key) => (key === "workspaces:address" ? "" : undefined), { WORKSPACES_ADDR: "http://ws.example" });
  expect(config.address).toBe("http://ws.example");
  expect(resolveServiceConfig("keep", (key) => (key === "keep:token" ? "" : undefined), { KEEP_TOKEN: "from-env" }).token).toBe("from-env");
});

test("a transformation naming a template the service does not hold names the input and what to check", async () => {
  const message = await failureOf(keepConfig(emu), (engine) =>
    engine.up(() => {
      new keep.transform.Transformation("cards", { name: "cards", type: "fpe", template: "no-such-template" });
    }),
  );
  expect(message).toContain('check template: "no-such-template" names no keep:TransformTemplate the service holds; declare it in this program and pass its output');
  expect(message).not.toContain("the service rejected the inputs: fix the property it names");
});
