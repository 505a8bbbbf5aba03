/**
 * Every example of examples/, as a user runs it with the real CLI: the project copied as it is, the
 * package installed from `npm pack`, its stack configured with `pulumi config`, then preview (no
 * request), up, preview (no change), refresh (no change) and destroy. The same session then runs
 * through the harness against an emulator that starts as the CLI's did, and the two are compared
 * step by step (tests/support/differential.ts): the quickstart, the README's program, among them.
 */
import * as path from "node:path";
import * as openpgp from "openpgp";
import { Emulator, EmulatorOptions, startEmulator } from "keepstack-emulator";
import { EmbeddedPostgres, startEmbeddedPostgres } from "../keep/transform/pglite";
import { cliSession, CommandRecord, compareSessions, harnessSession, recordComparison, SessionCommand, withoutDelays } from "../support/differential";
import { ENGINE_TIMEOUT, Project, repoRoot, stackOutputsOf } from "../support/real-engine";
import { expectLifecycle, LIFECYCLE } from "./lifecycle";

interface Example {
  emulator?: EmulatorOptions;
  /** The stack's settings, and which of them are secrets. */
  config(emu: Emulator): Promise<{ config: Record<string, string>; secrets: string[] }>;
  /** What `up` must have done on the services, read from the emulator. */
  check(emu: Emulator, outputs: Record<string, unknown>): void;
  /** The services before the first run, beyond what a new emulator holds. */
  setup?(emu: Emulator): void;
  /** Requests of the program's own functions, not of a resource (they read in preview too, as they should). */
  programRequest?(line: string): boolean;
  /** Properties whose values the services make afresh in each run (see differential.ts). */
  generated?: string[];
}

const keep = (emu: Emulator, extra: Record<string, string> = {}) => ({
  config: { "keep:address": emu.keep.url, "keep:token": emu.keep.rootToken, ...extra },
  secrets: ["keep:token"],
});

/** The databases of the transform example's stores: one for each engine's session. */
const databases: EmbeddedPostgres[] = [];

let pgpHolders: Promise<string[]> | undefined;
let secretSyncCredentials: Record<string, string> | undefined;

/** Every example (quickstart.test.ts runs the quickstart once more, as `npm run quickstart` does). */
const EXAMPLES: Record<string, Example> = {
  quickstart: {
    config: async (emu) => keep(emu),
    check: (emu) => expect(emu.keep.getPolicy("rgp", "business-hours")).toBeDefined(),
  },
  ci: {
    config: async (emu) => keep(emu),
    check: (emu) => expect(emu.keep.getPolicy("egp", "business-hours")).toMatchObject({ paths: ["*"] }),
  },
  "secret-sync": {
    config: async (emu) => {
      // The same credentials for both engines' sessions.
      secretSyncCredentials ??= {
        stripeKey: "sk_test_example",
        cloudAAccessKeyId: "AKIAEXAMPLE",
        cloudASecretAccessKey: "cloud-a-secret-value",
        cloudBClientSecret: "cloud-b-client-secret",
        cloudCCredentials: JSON.stringify({ type: "service_account", project_id: "from-credentials", private_key: "cloud-c-key" }),
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        repoHostAppKey: (require("node:crypto") as typeof import("node:crypto")).generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        webHostToken: "web-host-token-value",
      };
      const named = Object.fromEntries(Object.entries(secretSyncCredentials).map(([k, v]) => [`keepstack-secret-sync:${k}`, v]));
      return { config: { ...keep(emu).config, ...named }, secrets: ["keep:token", ...Object.keys(named)] };
    },
    check: (emu) => expect(emu.keep.kv.read({ mount: "secret", path: "payments/api-keys" })?.data).toEqual({ "stripe-key": "sk_test_example", "webhook-url": "https://pay.example.com/hooks" }),
  },
  transform: {
    config: async (emu) => {
      const postgres = await startEmbeddedPostgres();
      databases.push(postgres);
      return {
        config: { ...keep(emu).config, "transform:databaseUrl": postgres.connectionString, "transform:storePassword": "store-password", "transform:ddlPassword": "ddl-password" },
        secrets: ["keep:token", "transform:storePassword", "transform:ddlPassword"],
      };
    },
    check: (emu) => expect(emu.keep.objects.list({ mount: "transform", kind: "role" }).length).toBeGreaterThan(0),
    // The program encodes samples with the package's function; what FPE and tokenization make is the service's.
    programRequest: (line) => line.startsWith("keep/main POST /v1/transform/encode/"),
    generated: ["sampleCard", "maskedId", "billingContactToken", "encodedValue"],
  },
  rekey: {
    config: async (emu) => {
      // The same holders for both engines' sessions.
      pgpHolders ??= Promise.all(
        ["ann", "bob", "cy"].map(async (name) => {
          const pair = await openpgp.generateKey({ type: "ecc", curve: "curve25519Legacy", userIDs: [{ name }], format: "object" });
          return Buffer.from(pair.publicKey.write()).toString("base64");
        }),
      );
      return keep(emu, { "rekey:pgpKeys": JSON.stringify(await pgpHolders), "rekey:unsealKeys": JSON.stringify(emu.keep.seal.shares().keys.slice(0, 3)) });
    },
    check: (_emu, outputs) => expect(outputs.encryptedShares).toHaveLength(3),
    generated: ["encryptedShares", "encryptedKeysBase64"],
  },
  "cloud-credentials": {
    config: async (emu) => {
      const { config } = keep(emu, { "cloud:accessKey": "AKIAEXAMPLE000000001", "cloud:secretKey": "cloud-root-secret-key-example", "cloud:rotation": "2025-01" });
      return { config, secrets: ["keep:token", "cloud:secretKey"] };
    },
    check: (_emu, outputs) => expect(outputs.ciArn).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deploy-staging\//),
    // The program reads the developers' credentials with the package's function; the keys are the cloud's.
    programRequest: (line) => /^keep\/main GET \/v1\/cloudA\/(roles|creds)\/developers$/.test(line),
    generated: ["accessKey", "secretKey", "securityToken", "arn", "ciArn", "ciAccessKey", "readerArn", "readerSecretKey", "leaseId"],
  },
  replication: {
    emulator: { clusters: ["main", "dr"] },
    config: async (emu) => keep(emu, { "keep-dr:address": emu.clusters.dr.url, "keep-dr:token": emu.clusters.dr.rootToken }),
    check: (emu, outputs) => expect(outputs).toMatchObject({ drMode: "secondary", drClusterId: emu.clusters.dr.replication.clusterId }),
    // The program reads the second cluster's status with the package's function (the operations read it too: those are left out).
    programRequest: (line) => line === "keep/dr GET /v1/sys/replication/performance/status",
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
    programRequest: (line) => /^mesh \S+ \/v1\/agent\/connect\//.test(line),
    // The mesh's CA makes its keys and certificates afresh.
    generated: ["activeRootId", "certificate", "privateKey", "trustedRoots"],
    check: (emu, outputs) => {
      expect(emu.mesh.getPartition("team-west")?.Description).toMatch(/^Services of the west team\n\n\(managed by Pulumi stack [^/\s]+\/dev, resource team-west\)$/);
      expect(outputs).toMatchObject({ partition: "team-west", mayConnect: true });
    },
  },
};

afterAll(() => Promise.all(databases.map((d) => d.close())));

const SESSION: SessionCommand[] = LIFECYCLE.map((command) => ({ command }));

describe.each(Object.keys(EXAMPLES))("examples/%s through the real CLI and the harness", (name) => {
  const example = EXAMPLES[name];
  const emulators: Emulator[] = [];
  const started = async () => {
    // Both engines meet the same answers however loaded the machine is (see withoutDelays).
    const emu = withoutDelays(await startEmulator(example.emulator));
    emulators.push(emu);
    example.setup?.(emu);
    return emu;
  };
  afterAll(() => Promise.all(emulators.map((e) => e.close())));

  test(
    "preview sends no request; up; preview and refresh find no change; destroy; the harness does the same",
    async () => {
      const project = await Project.create({ name, runtime: "nodejs", from: path.join(repoRoot, "examples", name), node: "typescript", checkoutSdk: true });
      const options = { programRequest: example.programRequest, generated: example.generated };
      const cliEmu = await started();
      // What up did is checked on the services right after it.
      const afterUp = (r: CommandRecord) => (r.command === "up" ? example.check(cliEmu, stackOutputsOf(r.ran!)) : undefined);
      const cli = await cliSession({ project, emu: cliEmu, main: "index.ts", ...(await example.config(cliEmu)) }, SESSION, options, afterUp);
      expectLifecycle(cli, options.programRequest);

      const harnessEmu = await started();
      const harness = await harnessSession({ project, emu: harnessEmu, main: "index.ts", ...(await example.config(harnessEmu)) }, SESSION, options);
      const comparison = compareSessions(`examples/${name}`, cli, harness, options);
      recordComparison(`examples/${name}`, comparison);
      expect(comparison.differences).toEqual([]);
    },
    ENGINE_TIMEOUT,
  );
});
