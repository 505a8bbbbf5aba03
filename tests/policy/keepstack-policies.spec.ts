/**
 * The policy rules of `pulumi-keepstack/policy`, run over real programs: each program goes through
 * the engine harness against the emulators, and the rules see what the engine kept (checked inputs).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { keep, workspaces } from "pulumi-keepstack";
import { Engine, Program } from "../../harness";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { startWorkspacesEmulator, WorkspacesEmulator } from "../../emulator/workspaces";
import * as pulumi from "@pulumi/pulumi";
import { evaluatePolicies, keepstackPolicies, KeepstackPolicyOptions, PolicyTarget, policyTargetsOf, policyTargetsOfState, POLICY_NAMES } from "../../policy";
import { referenceableSecretInputs } from "../../policy/secret-inputs";
import { allSpecs } from "../../resources/all-specs";
import { keepConfig } from "../support/keep-stack";
import { pageBlocks, runBlock } from "../support/pages";
import { workspacesConfig } from "../workspaces/workspaces-stack";

describe("pulumi-keepstack/policy", () => {
  let keepEmu: KeepEmulator;
  let wsEmu: WorkspacesEmulator;
  /** One engine (one provider host) per stack and configuration: each run ends in a destroy. */
  const engines = new Map<string, Engine>();
  beforeAll(async () => {
    keepEmu = await startKeepEmulator();
    wsEmu = await startWorkspacesEmulator({ rateLimitPerSecond: 0 });
  });
  afterAll(async () => {
    for (const e of engines.values()) await e.close();
    await keepEmu.close();
    await wsEmu.close();
  });

  /** Runs `up` of the program on a fresh stack and returns what the policies see. */
  async function resourcesOf(program: Program, options: { stack?: string; config?: Record<string, string> } = {}) {
    const config = { ...keepConfig(keepEmu), ...workspacesConfig(wsEmu), ...options.config };
    const stack = options.stack ?? "dev";
    const key = JSON.stringify([stack, config]);
    const engine = engines.get(key) ?? new Engine({ project: "policy-test", stack, config, secretConfig: ["keep:token"] });
    engines.set(key, engine);
    await engine.up(program);
    const targets: PolicyTarget[] = [...engine.state.values()].map((r) => ({ urn: r.urn, type: r.type, name: r.name, props: r.inputs }));
    // The objects go again, so the next program may use the same names.
    await engine.destroy();
    return { targets, config };
  }

  /** Messages per rule, for the given program and options. */
  async function violations(program: Program, options: { stack?: string; config?: Record<string, string>; policy?: KeepstackPolicyOptions; packConfig?: Record<string, Record<string, unknown>> } = {}) {
    const { targets, config } = await resourcesOf(program, options);
    const policies = keepstackPolicies({ stackConfig: () => config, ...options.policy });
    return (await evaluatePolicies(policies, targets, options.packConfig)).map((v) => `${v.policy}: ${v.message}`);
  }

  test("an EGP on every path must be hard-mandatory", async () => {
    const found = await violations(() => {
      new keep.EgpPolicy("all", { name: "all-paths", policy: "main = rule { true }", enforcementLevel: "soft-mandatory", paths: ["*"] });
      new keep.EgpPolicy("all-hard", { name: "all-paths-hard", policy: "main = rule { true }", enforcementLevel: "hard-mandatory", paths: ["*"] });
      new keep.EgpPolicy("some", { name: "some-paths", policy: "main = rule { true }", enforcementLevel: "advisory", paths: ["secret/*"] });
    });
    expect(found).toEqual([`${POLICY_NAMES.egpWildcard}: EGP "all-paths" governs every path ("*") at enforcement level soft-mandatory: it must be hard-mandatory`]);
  });

  test("no exportable tokenization", async () => {
    const found = await violations(() => {
      new keep.transform.Transformation("exportable", { name: "exportable", type: "tokenization", mappingMode: "exportable", allowedRoles: [] });
      new keep.transform.Transformation("default", { name: "default-mode", type: "tokenization", allowedRoles: [] });
    });
    expect(found).toEqual([`${POLICY_NAMES.exportableTokenization}: transformation "exportable" uses mappingMode "exportable": use "default"`]);
  });

  test("credentials given as values where a reference can be, found through the registry", async () => {
    // Every registered secret input that takes a reference is covered, resources added later too.
    const covered = allSpecs.flatMap((s) => referenceableSecretInputs(s).map((k) => `${s.type}.${k}`));
    expect(covered).toEqual(expect.arrayContaining(["SyncCloudBKvDestination.clientSecret", "TransformStore.password", "SyncWebHostProjectDestination.accessToken"]));
    expect(covered).not.toContain("KvSecret.data");
    const found = await violations(
      () => {
        new keep.sync.WebHostProjectDestination("plain", { name: "plain", projectId: "prj_1", deploymentEnvironments: ["production"], accessToken: "web-host-token" });
        new keep.sync.WebHostProjectDestination("by-ref", { name: "by-ref", projectId: "prj_2", deploymentEnvironments: ["production"], accessToken: { fromConfig: "policy-test:webHostToken" } });
        // A key-value secret's data is a secret, but no reference can stand for it: not this rule's concern.
        new keep.kv.Secret("kv", { path: "app/db", data: { password: "p" } });
      },
      { config: { "policy-test:webHostToken": "web-host-token" } },
    );
    expect(found).toEqual([
      `${POLICY_NAMES.secretsByReference}: accessToken is given as a value: give it by reference, e.g. { fromConfig: "<project>:<key>" } with \`pulumi config set --secret\`, so it stays out of the state`,
    ]);
  });

  test("no skipTlsVerify in stack config, of any cluster, nor in the environment", async () => {
    const program = () => {
      new keep.AclPolicy("p", { name: "tls-check", policy: 'path "x" { capabilities = ["read"] }' });
    };
    expect(await violations(program)).toEqual([]);
    expect(await violations(program, { config: { "keep:skipTlsVerify": "true", "keep-dr:skipTlsVerify": "false" } })).toEqual([
      `${POLICY_NAMES.skipTlsVerify}: TLS verification is turned off by keep:skipTlsVerify: give the service's CA instead (caCert)`,
    ]);

    // By default: the stack's file where pulumi runs, and the environment.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-policy-"));
    fs.writeFileSync(path.join(dir, "Pulumi.prod.yaml"), 'config:\n  keep:address: https://keep.example:8200\n  mesh-west:skipTlsVerify: "true"\n');
    const saved = { PWD: process.env.PWD, WORKSPACES_SKIP_VERIFY: process.env.WORKSPACES_SKIP_VERIFY };
    try {
      process.env.PWD = dir;
      process.env.WORKSPACES_SKIP_VERIFY = "1";
      const { targets } = await resourcesOf(program, { stack: "prod" });
      const found = await evaluatePolicies(keepstackPolicies(), targets);
      expect(found.map((v) => v.message)).toEqual(["TLS verification is turned off by WORKSPACES_SKIP_VERIFY, mesh-west:skipTlsVerify: give the service's CA instead (caCert)"]);
    } finally {
      process.env.PWD = saved.PWD;
      if (saved.WORKSPACES_SKIP_VERIFY === undefined) delete process.env.WORKSPACES_SKIP_VERIFY;
      else process.env.WORKSPACES_SKIP_VERIFY = saved.WORKSPACES_SKIP_VERIFY;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("autoApply only on the workspaces allowed, by name or pattern, from the options or the pack's config", async () => {
    const program = () => {
      new workspaces.Workspace("sandbox", { name: "sandbox-alice", autoApply: true });
      new workspaces.Workspace("prod", { name: "network-production", autoApply: true });
      new workspaces.Workspace("manual", { name: "billing-production" });
    };
    const fromOptions = await violations(program, { policy: { workspaceAutoApply: { allowedNames: ["sandbox-*"] } } });
    expect(fromOptions).toEqual([`${POLICY_NAMES.workspaceAutoApply}: workspace "network-production" has autoApply: true, allowed only for sandbox-*`]);
    const fromPack = await violations(program, { packConfig: { [POLICY_NAMES.workspaceAutoApply]: { allowedNames: ["network-production", "sandbox-*"] } } });
    expect(fromPack).toEqual([]);
    const disabled = await violations(program, { packConfig: { [POLICY_NAMES.workspaceAutoApply]: { enforcementLevel: "disabled" } } });
    expect(disabled).toEqual([]);
  });

  test("an acknowledged irreversible operation only in the stacks allowed", async () => {
    // A backup deletion acknowledged where no backup exists does nothing: it stands in for a
    // secondary enable, the default type of the rule, here through the rule's `types`.
    const program = () => {
      new keep.RekeyBackupDeletion("drop-backup", { nonce: "00000000-0000-0000-0000-000000000000", confirmSharesReceived: true });
    };
    const policy: KeepstackPolicyOptions = { acknowledgedOperations: { allowedStacks: ["dr-*"], types: ["keep:RekeyBackupDeletion"] } };
    expect(await violations(program, { stack: "prod", policy })).toEqual([
      `${POLICY_NAMES.acknowledgedOperations}: keep:RekeyBackupDeletion "drop-backup" is acknowledged (confirmSharesReceived) in stack "prod", allowed only in dr-*`,
    ]);
    expect(await violations(program, { stack: "dr-west", policy })).toEqual([]);
  });

  test("by default the rule guards a secondary enable acknowledged to wipe the cluster", async () => {
    const type = "pulumi-nodejs:dynamic/keep:ReplicationSecondaryEnable";
    const target = (stack: string): PolicyTarget => ({ urn: `urn:pulumi:${stack}::p::${type}::dr`, type, name: "dr", props: { token: { fromEnv: "T" }, acceptDataWipe: true } });
    const policies = keepstackPolicies({ acknowledgedOperations: { allowedStacks: ["dr-*"] } });
    expect((await evaluatePolicies(policies, [target("prod"), target("dr-west")])).map((v) => v.message)).toEqual([
      'keep:ReplicationSecondaryEnable "dr" is acknowledged (acceptDataWipe) in stack "prod", allowed only in dr-*',
    ]);
  });

  test("enforcement levels are configurable per rule", () => {
    const levels = Object.fromEntries(
      keepstackPolicies({ enforcementLevels: { [POLICY_NAMES.secretsByReference]: "advisory" } }).map((p) => [p.name, p.enforcementLevel]),
    );
    expect(levels).toEqual({
      [POLICY_NAMES.egpWildcard]: "mandatory",
      [POLICY_NAMES.exportableTokenization]: "mandatory",
      [POLICY_NAMES.secretsByReference]: "advisory",
      [POLICY_NAMES.skipTlsVerify]: "mandatory",
      [POLICY_NAMES.workspaceAutoApply]: "mandatory",
      [POLICY_NAMES.acknowledgedOperations]: "mandatory",
      [POLICY_NAMES.aclSudoOnSys]: "mandatory",
      [POLICY_NAMES.aclGrantOnEverything]: "mandatory",
    });
  });

  test("an exported stack's resources are checked, the stack and its providers aside (a program's test after `up`)", async () => {
    const type = keep.EgpPolicy.__pulumiType;
    const exported = {
      deployment: {
        resources: [
          { urn: "urn:pulumi:test::app::pulumi:pulumi:Stack::app-test", type: "pulumi:pulumi:Stack", custom: false },
          { urn: "urn:pulumi:test::app::pulumi:providers:pulumi-nodejs::default::0", type: "pulumi:providers:pulumi-nodejs", custom: true, inputs: {} },
          { urn: `urn:pulumi:test::app::${type}::all`, type, custom: true, inputs: { name: "all-paths", policy: "main = rule { true }", enforcementLevel: "soft-mandatory", paths: ["*"] } },
        ],
      },
    };
    const targets = policyTargetsOfState(exported);
    expect(targets.map((t) => [t.name, t.type])).toEqual([["all", type]]);
    expect((await evaluatePolicies(keepstackPolicies(), targets)).map((v) => v.policy)).toEqual([POLICY_NAMES.egpWildcard]);
  });

  test("a preview's planned resources are checked, so a policy stops a change before it is made", async () => {
    const engine = new Engine({ project: "policy-test", config: { ...keepConfig(keepEmu), ...workspacesConfig(wsEmu) }, secretConfig: ["keep:token"] });
    try {
      keepEmu.log.clear();
      const plan = await engine.preview(() => {
        new keep.transform.Transformation("t", { name: "exportable-plan", type: "tokenization", mappingMode: "exportable" });
        new keep.sync.WebHostProjectDestination("plain", { name: "plain", projectId: "prj_1", deploymentEnvironments: ["production"], accessToken: "web-host-token" });
      });
      // Nothing was sent: the plan is what the policies judge.
      expect(keepEmu.log.count).toBe(0);
      const found = (await evaluatePolicies(keepstackPolicies(), policyTargetsOf(plan))).map((v) => v.policy).sort();
      expect(found).toEqual([POLICY_NAMES.exportableTokenization, POLICY_NAMES.secretsByReference].sort());
    } finally {
      await engine.close();
    }
  });

  test("secret data (the value an EncodedValue encodes) may be a Pulumi secret, as the transform docs show; a credential may not", async () => {
    const engine = new Engine({ project: "policy-test", config: { ...keepConfig(keepEmu), ...workspacesConfig(wsEmu) }, secretConfig: ["keep:token"] });
    try {
      const plan = await engine.preview(() => {
        new keep.transform.EncodedValue("contact", { role: "payments", transformation: "emails", value: pulumi.secret("billing@example.com") });
        new keep.transform.Store("tokens", { name: "tokens", driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@db/tokens", username: "u", password: pulumi.secret("store-password") });
      });
      const found = (await evaluatePolicies(keepstackPolicies(), policyTargetsOf(plan))).map((v) => `${v.policy}: ${v.message}`);
      expect(found).toEqual([
        `${POLICY_NAMES.secretsByReference}: password is given as a value: give it by reference, e.g. { fromConfig: "<project>:<key>" } with \`pulumi config set --secret\`, so it stays out of the state`,
      ]);
    } finally {
      await engine.close();
    }
  });

  test("no ACL policy grants sudo under sys/ unless allowed; none grants on every path", async () => {
    const program = () => {
      new keep.AclPolicy("ops", { name: "ops", policy: 'path "sys/mounts/*" {\n  capabilities = ["read", "sudo"]\n}' });
      new keep.AclPolicy("admins", { name: "admins", policy: 'path "sys/*" { capabilities = ["sudo", "read"] }' });
      new keep.AclPolicy("wild", { name: "wild", policy: 'path "+/config" { capabilities = ["sudo"] }\npath "*" { capabilities = ["read"] }' });
      new keep.AclPolicy("fenced", { name: "fenced", policy: 'path "*" { capabilities = ["deny"] }\npath "secret/*" { capabilities = ["sudo"] }' });
    };
    expect(await violations(program, { policy: { aclSudoOnSys: { allowedPolicies: ["adm*"] } } })).toEqual([
      `${POLICY_NAMES.aclSudoOnSys}: ACL policy "ops" grants sudo on path "sys/mounts/*" (line 1), which reaches sys/: allowed only for adm*`,
      `${POLICY_NAMES.aclSudoOnSys}: ACL policy "wild" grants sudo on path "+/config" (line 1), which reaches sys/: allowed only for adm*`,
      `${POLICY_NAMES.aclGrantOnEverything}: ACL policy "wild" grants read on path "*" (line 2), which matches every path`,
    ]);
  });

  test("the docs' own rule runs as written: the parsed document and what it grants", async () => {
    const block = pageBlocks("docs/policy.md", "ts").find((b) => b.includes("noDeleteOnSecrets"))!;
    const rule = (await runBlock(block)).noDeleteOnSecrets as Parameters<typeof evaluatePolicies>[0][number];
    const { targets } = await resourcesOf(() => {
      new keep.AclPolicy("writers", { name: "writers", policy: 'path "secret/data/*" { capabilities = ["create", "update", "delete"] }' });
      new keep.AclPolicy("admins", { name: "admins", policy: 'path "secret/*" { capabilities = ["delete"] }' });
    });
    expect((await evaluatePolicies([rule], targets)).map((v) => v.message)).toEqual(['policy "writers" may delete secret/data/app']);
  });
});
