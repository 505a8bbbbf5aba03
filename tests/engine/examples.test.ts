/**
 * Every example of examples/, as a user runs it with the real CLI: the project copied
 * as it is, the package installed from `npm pack`, its stack configured with `pulumi config`, then
 * preview (no request), up, preview (no change), refresh (no change) and destroy.
 */
import * as path from "node:path";
import * as openpgp from "openpgp";
import { Emulator, EmulatorOptions, startEmulator } from "../../emulator";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { ENGINE_TIMEOUT, Project, repoRoot } from "../support/real-engine";
import { lifecycle } from "./lifecycle";

interface Example {
  emulator?: EmulatorOptions;
  /** The stack's settings, and which of them are secrets. */
  config(emu: Emulator): Promise<{ config: Record<string, string>; secrets: string[] }>;
  /** What `up` must have done on the services, read from the emulator. */
  check(emu: Emulator, outputs: Record<string, unknown>): void;
  /** The services before the first run, beyond what a new emulator holds. */
  setup?(emu: Emulator): void;
  /** The requests the program's resources sent (the program's own functions read in preview too, as they should). */
  requests?(emu: Emulator): number;
}

const keep = (emu: Emulator, extra: Record<string, string> = {}) => ({
  config: { "keep:address": emu.keep.url, "keep:token": emu.keep.rootToken, ...extra },
  secrets: ["keep:token"],
});

let postgres: EmbeddedPostgres | undefined;

/** Every example but the quickstart, which quickstart.test.ts runs as `npm run quickstart` does. */
const EXAMPLES: Record<string, Example> = {
  ci: {
    config: async (emu) => keep(emu),
    check: (emu) => expect(emu.keep.getPolicy("egp", "business-hours")).toMatchObject({ paths: ["*"] }),
  },
  "secret-sync": {
    config: async (emu) => {
      const credentials = {
        stripeKey: "sk_test_example",
        cloudAAccessKeyId: "AKIAEXAMPLE",
        cloudASecretAccessKey: "cloud-a-secret-value",
        cloudBClientSecret: "cloud-b-client-secret",
        cloudCCredentials: JSON.stringify({ type: "service_account", project_id: "from-credentials", private_key: "cloud-c-key" }),
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        repoHostAppKey: (require("node:crypto") as typeof import("node:crypto")).generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        webHostToken: "web-host-token-value",
      };
      const named = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [`keepstack-secret-sync:${k}`, v]));
      return { config: { ...keep(emu).config, ...named }, secrets: ["keep:token", ...Object.keys(named)] };
    },
    check: (emu) => expect(emu.keep.kv.read({ mount: "secret", path: "payments/api-keys" })?.data).toEqual({ "stripe-key": "sk_test_example", "webhook-url": "https://pay.example.com/hooks" }),
  },
  transform: {
    config: async (emu) => {
      postgres ??= await startEmbeddedPostgres();
      return {
        config: { ...keep(emu).config, "transform:databaseUrl": postgres.connectionString, "transform:storePassword": "store-password", "transform:ddlPassword": "ddl-password" },
        secrets: ["keep:token", "transform:storePassword", "transform:ddlPassword"],
      };
    },
    check: (emu) => expect(emu.keep.objects.list({ mount: "transform", kind: "role" }).length).toBeGreaterThan(0),
  },
  rekey: {
    config: async (emu) => {
      const holders = await Promise.all(
        ["ann", "bob", "cy"].map(async (name) => {
          const pair = await openpgp.generateKey({ type: "ecc", curve: "curve25519Legacy", userIDs: [{ name }], format: "object" });
          return Buffer.from(pair.publicKey.write()).toString("base64");
        }),
      );
      return keep(emu, { "rekey:pgpKeys": JSON.stringify(holders), "rekey:unsealKeys": JSON.stringify(emu.keep.seal.shares().keys.slice(0, 3)) });
    },
    check: (_emu, outputs) => expect(outputs.encryptedShares).toHaveLength(3),
  },
  "cloud-credentials": {
    config: async (emu) => {
      const { config } = keep(emu, { "cloud:accessKey": "AKIAEXAMPLE000000001", "cloud:secretKey": "cloud-root-secret-key-example", "cloud:rotation": "2025-01" });
      return { config, secrets: ["keep:token", "cloud:secretKey"] };
    },
    check: (_emu, outputs) => expect(outputs.ciArn).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deploy-staging\//),
  },
  replication: {
    emulator: { clusters: ["main", "dr"] },
    config: async (emu) => keep(emu, { "keep-dr:address": emu.clusters.dr.url, "keep-dr:token": emu.clusters.dr.rootToken }),
    check: (emu, outputs) => expect(outputs).toMatchObject({ drMode: "secondary", drClusterId: emu.clusters.dr.replication.clusterId }),
  },
  workspaces: {
    config: async (emu) => ({
      config: { "workspaces:address": emu.workspaces.url, "workspaces:token": emu.workspaces.tokens.user, "workspaces:organization": emu.workspaces.organization },
      secrets: ["workspaces:token"],
    }),
    check: (_emu, outputs) => expect(outputs.configurationStatus).toBe("uploaded"),
  },
  mesh: {
    setup: (emu) => emu.mesh.addIntention({ source: "web", destination: "db", action: "allow" }),
    config: async (emu) => ({ config: { "mesh:address": emu.mesh.url, "mesh:token": emu.mesh.rootToken }, secrets: ["mesh:token"] }),
    // The example's functions read the agent's connect endpoints in every run, preview included.
    requests: (emu) => emu.requestCount() - emu.mesh.log.entries.filter((e) => e.path.startsWith("/v1/agent/connect/")).length,
    check: (emu, outputs) => {
      expect(emu.mesh.getPartition("team-west")?.Description).toBe("Services of the west team");
      expect(outputs).toMatchObject({ partition: "team-west", mayConnect: true });
    },
  },
};

afterAll(() => postgres?.close());

describe.each(Object.keys(EXAMPLES))("examples/%s through the real CLI", (name) => {
  const example = EXAMPLES[name];
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator(example.emulator);
  });
  afterAll(() => emu?.close());

  test(
    "preview sends no request; up; preview and refresh find no change; destroy",
    async () => {
      const project = await Project.create({ name, runtime: "nodejs", from: path.join(repoRoot, "examples", name), node: "typescript" });
      example.setup?.(emu);
      const { config, secrets } = await example.config(emu);
      await project.stack("dev", config, secrets);
      await lifecycle(project, () => (example.requests ?? ((e: Emulator) => e.requestCount()))(emu), (outputs) => example.check(emu, outputs));
    },
    ENGINE_TIMEOUT,
  );
});
