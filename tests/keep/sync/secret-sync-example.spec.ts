/**
 * examples/secret-sync run as a program through the provider host against the emulator: one
 * key-value secret synced to all five destination types, checked in the external stores (names
 * and tags), a new version followed everywhere, and destroy leaving nothing behind.
 */
import { generateKeyPairSync } from "node:crypto";
import * as path from "node:path";
import { Engine, summarize } from "../../../harness";
import { KeepEmulator, startKeepEmulator } from "../../../emulator/keep";
import { syncOf } from "../../../emulator/keep/sync";
import { keepConfig } from "../../support/keep-stack";

const exampleDir = path.join(__dirname, "..", "..", "..", "examples", "secret-sync");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const program = require(path.join(exampleDir, "index.ts")) as () => Promise<Record<string, unknown>>;
const project = "keepstack-secret-sync";

describe("examples/secret-sync", () => {
  let keep: KeepEmulator;
  let engine: Engine;
  const credentials = {
    stripeKey: "sk_test_example",
    cloudAAccessKeyId: "AKIAEXAMPLE",
    cloudASecretAccessKey: "cloud-a-secret-value",
    cloudBClientSecret: "cloud-b-client-secret",
    cloudCCredentials: JSON.stringify({ type: "service_account", project_id: "from-credentials", private_key: "cloud-c-key" }),
    repoHostAppKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    webHostToken: "web-host-token-value",
  };
  beforeAll(async () => {
    keep = await startKeepEmulator();
    const config = keepConfig(keep, Object.fromEntries(Object.entries(credentials).map(([k, v]) => [`${project}:${k}`, v])));
    engine = new Engine({ project, cwd: exampleDir, config, secretConfig: ["keep:token", ...Object.keys(credentials).map((k) => `${project}:${k}`)] });
  });
  afterAll(async () => {
    await engine.close();
    await keep.close();
  });

  const store = (type: string, name: string) => syncOf(keep).external({ type, name });
  const accessor = () => keep.mounts().find((m) => m.path === "secret/")!.accessor;

  test("preview sends nothing; up syncs the secret to all five destinations under their names and tags", async () => {
    expect(summarize((await engine.preview(program)).steps)).toEqual({ create: 12 });
    expect(keep.log.count).toBe(0);

    const up = await engine.up(program);
    expect(up.outputs.status).toEqual({ cloudA: "SYNCED", cloudB: "SYNCED", cloudC: "SYNCED", repoHost: "SYNCED", webHost: "SYNCED" });

    const acc = accessor();
    const whole = JSON.stringify({ "stripe-key": "sk_test_example", "webhook-url": "https://pay.example.com/hooks" });
    const tags = { team: "payments", "cost-center": "cc-42", "keep:managed-by": "keep-sync", "keep:mount-accessor": acc, "keep:secret-path": "payments/api-keys" };
    expect(store("cloudA-sm", "payments")).toEqual({ [`keep/${acc}/payments/api-keys`]: { value: whole, tags } });
    expect(store("cloudB-kv", "payments")).toEqual({ [`keep-${acc}-payments-api-keys`]: { value: whole, tags } });
    expect(store("cloudC-sm", "payments")).toEqual({ [`keep/${acc}/payments/api-keys`]: { value: whole, tags } });
    const prefix = `KEEP_${acc.toUpperCase()}_PAYMENTS_API_KEYS`;
    const perKey = { [`${prefix}_STRIPE_KEY`]: { value: "sk_test_example" }, [`${prefix}_WEBHOOK_URL`]: { value: "https://pay.example.com/hooks" } };
    expect(store("repohost", "payments-web")).toEqual(perKey);
    expect(store("webhost-project", "payments-site")).toEqual(perKey);

    // Credentials reached the service, never the state.
    expect(syncOf(keep).destination({ type: "cloudA-sm", name: "payments" })?.connection.secret_access_key).toBe("cloud-a-secret-value");
    const state = JSON.stringify(engine.exportState());
    for (const key of ["cloudASecretAccessKey", "cloudBClientSecret", "webHostToken"] as const) expect(state).not.toContain(credentials[key]);
    expect(state).not.toContain(credentials.repoHostAppKey.split("\n")[1]);

    expect(summarize((await engine.preview(program)).steps)).toEqual({ same: 12 });
  });

  test("a new version of the secret reaches every destination", async () => {
    keep.kv.write({ path: "payments/api-keys" }, { "stripe-key": "sk_rotated", "webhook-url": "https://pay.example.com/hooks" });
    expect(JSON.parse(store("cloudB-kv", "payments")[`keep-${accessor()}-payments-api-keys`].value)["stripe-key"]).toBe("sk_rotated");
    expect(store("webhost-project", "payments-site")[`KEEP_${accessor().toUpperCase()}_PAYMENTS_API_KEYS_STRIPE_KEY`].value).toBe("sk_rotated");
  });

  test("destroy unsyncs everything and removes every object", async () => {
    expect(summarize((await engine.destroy()).steps)).toEqual({ delete: 12 });
    for (const [type, name] of [["cloudA-sm", "payments"], ["cloudB-kv", "payments"], ["cloudC-sm", "payments"], ["repohost", "payments-web"], ["webhost-project", "payments-site"]]) {
      expect(store(type, name)).toEqual({});
      expect(syncOf(keep).destination({ type, name })).toBeUndefined();
    }
    expect(syncOf(keep).app("payments-ci")).toBeUndefined();
  });
});
