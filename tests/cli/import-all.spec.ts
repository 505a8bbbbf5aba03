/**
 * `pulumi-keepstack import --all`: a cluster holding an object of every listable type, in several
 * namespaces, becomes one program; that program adopts everything without changing it.
 */
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import * as ts from "typescript";
import * as pkg from "pulumi-keepstack";
import { keep, mesh, workspaces } from "pulumi-keepstack";
import { importAll, listableSpecs } from "../../cli/import-all";
import { ImportedObject, renderProgram } from "../../cli/program-text";
import { KeepEmulator, startKeepEmulator } from "../../emulator/keep";
import { registerCloudCredentialsEngine } from "../../emulator/keep/cloud-credentials";
import { MeshEmulator, startMeshEmulator } from "../../emulator/mesh";
import { startWorkspacesEmulator, WorkspacesEmulator } from "../../emulator/workspaces";
import { Engine, Program, summarize } from "../../harness";
import { shortTypeOf, tokenOf } from "../../provider/spec";

const repoRoot = path.join(__dirname, "..", "..");
const run = promisify(execFile);

/** Values of the write-only inputs the seed declares, by class path and input. */
const WRITE_ONLY: Record<string, string> = {
  "keep.sync.CloudBKvDestination clientSecret": "cloud-b-client-secret",
  "keep.sync.CloudCSmDestination credentials": '{"type":"service_account"}',
  "keep.sync.WebHostProjectDestination accessToken": "web-host-token",
  "keep.transform.Store driver": "postgres",
  "keep.transform.Store username": "tokens",
  "keep.transform.Store password": "store-password",
};
const value = (classPath: string, input: string) => WRITE_ONLY[`${classPath} ${input}`];

/** One object of every listable type, tied together as users tie them, some in namespaces. */
const seedProgram: Program = () => {
  new keep.AclPolicy("readers", { name: "app-readers", policy: 'path "secret/data/app/*" {\n  capabilities = ["read"]\n}\n' });
  new keep.AclPolicy("team-a-readers", { name: "app-readers", namespace: "team-a", policy: 'path "secret/*" { capabilities = ["read"] }' });
  new keep.RgpPolicy("hours", { name: "business-hours", policy: "main = rule { true }", enforcementLevel: "soft-mandatory" });
  new keep.EgpPolicy("guard", { name: "guard", policy: "main = rule { true }", enforcementLevel: "hard-mandatory", paths: ["secret/*"] });

  const secret = new keep.kv.Secret("api-keys", { path: "payments/api-keys", data: { token: "kv-token-value-1" } });
  new keep.kv.Secret("dev-db", { path: "db", namespace: "team-a/dev", data: { password: "kv-db-password-1" } });
  const cloudA = new keep.sync.CloudASmDestination("cloud-a", { name: "payments", region: "eu-west-1", roleArn: "arn:aws:iam::123456789012:role/sync" });
  new keep.sync.CloudBKvDestination("cloud-b", {
    name: "payments",
    keyVaultUri: "https://payments.vault.example.net/",
    clientId: "client",
    tenantId: "tenant",
    clientSecret: value("keep.sync.CloudBKvDestination", "clientSecret"),
  });
  new keep.sync.CloudCSmDestination("cloud-c", { name: "payments", projectId: "payments-prod", credentials: value("keep.sync.CloudCSmDestination", "credentials") });
  // The application cannot be listed, so it stays out of the import; the destination names it.
  const appKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const app = new keep.sync.RepoHostApp("ci-app", { name: "payments-ci", appId: 318042, privateKey: appKey });
  new keep.sync.RepoHostDestination("repo-host", { name: "payments-web", appName: app.name, installationId: 52310967, repositoryOwner: "example", repositoryName: "web" });
  new keep.sync.WebHostProjectDestination("web-host", { name: "payments-site", projectId: "prj_1", deploymentEnvironments: ["production"], accessToken: value("keep.sync.WebHostProjectDestination", "accessToken") });
  new keep.sync.Association("api-keys-cloud-a", { destinationType: cloudA.destinationType, destinationName: cloudA.name, mount: secret.mount, secretName: secret.path });

  const hex = new keep.transform.Alphabet("hex", { name: "hex", alphabet: "0123456789abcdef" });
  const card = new keep.transform.Template("card", { name: "card", pattern: "(\\d{4})-(\\d{4})", alphabet: hex.name });
  const fpe = new keep.transform.Transformation("card-fpe", { name: "card-fpe", type: "fpe", template: card.name, tweakSource: "internal", allowedRoles: ["payments"] });
  const store = new keep.transform.Store("tokens", {
    name: "tokens",
    driver: "postgres",
    connectionString: "postgresql://{{username}}:{{password}}@127.0.0.1:5432/tokens",
    username: value("keep.transform.Store", "username"),
    password: value("keep.transform.Store", "password"),
  });
  const emails = new keep.transform.Transformation("emails", { name: "emails", type: "tokenization", stores: [store.name], allowedRoles: ["payments"] });
  new keep.transform.Role("payments", { name: "payments", transformations: [fpe.name, emails.name] });
  // The same names in a namespace: references must stay inside it.
  const devHex = new keep.transform.Alphabet("dev-hex", { name: "hex", namespace: "team-a/dev", alphabet: "0123456789ABCDEF" });
  new keep.transform.Template("dev-card", { name: "card", namespace: "team-a/dev", pattern: "(\\d{4})", alphabet: devHex.name });

  new keep.cloud.Role("developers", { name: "developers", credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
  new workspaces.Workspace("network", { name: "network-production", executionMode: "remote", triggerPatterns: ["modules/**"] });
  new mesh.Partition("team-west", { name: "team-west", description: "Services of the west team" });
};

/** Runs a printed program (as `tsc` would compile it) with the package this test imports. */
function programOf(text: string): Program {
  const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
  const modules: Record<string, unknown> = { "pulumi-keepstack": pkg, "@pulumi/pulumi": pulumi };
  return () => {
    const module = { exports: {} };
    new Function("require", "module", "exports", js)((name: string) => modules[name], module, module.exports);
  };
}

describe("pulumi-keepstack import --all", () => {
  let emu: { keep: KeepEmulator; workspaces: WorkspacesEmulator; mesh: MeshEmulator };
  const services = () => [emu.keep, emu.workspaces, emu.mesh];
  let config: Record<string, string>;
  let env: NodeJS.ProcessEnv;
  let project: string;
  beforeAll(async () => {
    emu = {
      keep: await startKeepEmulator({ register: registerCloudCredentialsEngine }),
      workspaces: await startWorkspacesEmulator({ rateLimitPerSecond: 0 }),
      mesh: await startMeshEmulator(),
    };
    emu.keep.addNamespace("team-a/dev");
    emu.keep.mount("transform", "transform", { namespace: "team-a/dev" });
    emu.keep.mount("secret", "kv-v2", { namespace: "team-a/dev" });
    config = {
      "keep:address": emu.keep.url,
      "keep:token": emu.keep.rootToken,
      "keep:retryBaseDelayMs": "5",
      "workspaces:address": emu.workspaces.url,
      "workspaces:token": emu.workspaces.tokens.user,
      "workspaces:organization": emu.workspaces.organization,
      "mesh:address": emu.mesh.url,
      "mesh:token": emu.mesh.rootToken,
    };
    // Only the settings below reach the command: none from this process's environment.
    env = { PATH: process.env.PATH };
    const seed = new Engine({ project: "seed", config, secretConfig: ["keep:token"] });
    try {
      await seed.up(seedProgram);
    } finally {
      // The seed's state is thrown away: the objects are now simply on the services.
      await seed.close();
    }
    project = fs.mkdtempSync(path.join(os.tmpdir(), "keepstack-import-"));
  }, 300_000);
  afterAll(async () => {
    if (emu) await Promise.all(services().map((s) => s.close()));
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  const importNow = () => importAll({ lookup: (k) => config[k], env, progress: () => {} });

  test("every listable registered type is in the cluster and in the import; operations and built-ins are not", async () => {
    const objects = await importNow();
    const types = new Set(objects.map((o) => shortTypeOf(tokenOf(o.spec))));
    expect([...types].sort()).toEqual(listableSpecs().map((s) => shortTypeOf(tokenOf(s.spec))).sort());
    const ids = objects.map((o) => o.id);
    // Built-ins: the root namespace's `default` and `root` ACL policies, `builtin/...` transform objects, the default partition.
    expect(ids.filter((id) => /(^|:)(default|root)$|builtin\//.test(id))).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(["team-a:app-readers", "team-a/dev:secret/db", "team-a/dev:transform/template/card"]));
  });

  test("the program refers to objects instead of repeating names, inside each namespace", async () => {
    const { text } = renderProgram(await importNow());
    expect(text).toContain("transformations: [transformTransformationCardFpe.name, transformTransformationEmails.name],");
    expect(text).toContain("template: transformTemplateCard.name,");
    expect(text).toContain("stores: [transformStoresTokens.name],");
    expect(text).toContain("alphabet: transformAlphabetHex.name,");
    expect(text).toContain("alphabet: teamADevTransformAlphabetHex.name,");
    expect(text).toContain("destinationName: cloudASmPayments.name,");
    expect(text).toContain('driver: config.require<"postgres" | "mysql">("transformStoresTokensDriver", { allowedValues: ["postgres", "mysql"] }),');
    expect(text).toContain('password: fromConfig("transformStoresTokensPassword"),');
    expect(text).toMatch(/new keep\.AclPolicy\("team-a-app-readers", \{\n {2}name: "app-readers",\n {2}namespace: "team-a",/);
    // Referenced objects come before the objects that refer to them.
    expect(text.indexOf("const transformAlphabetHex =")).toBeLessThan(text.indexOf("alphabet: transformAlphabetHex.name"));
  });

  test("the installed command prints the same program every run, with progress and the config commands apart", async () => {
    const cli = path.join(repoRoot, "dist", "cli", "main.js");
    const commandsFile = path.join(project, "config-commands.sh");
    const args = [cli, "import", "--all", ...Object.entries(config).map(([k, v]) => `--config=${k}=${v}`)];
    const first = await run(process.execPath, [...args, "--config-commands", commandsFile], { env });
    const second = await run(process.execPath, args, { env });
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).toBe(renderProgram(await importNow()).text);
    expect(first.stderr).toContain("keep: 3 namespaces");
    expect(first.stderr).toMatch(/read \d+ objects/);
    expect(first.stdout).not.toContain(emu.keep.rootToken);
    // Without a file the commands follow the progress on standard error.
    expect(second.stderr).toContain("pulumi config set --secret cloudBKvPaymentsClientSecret '<value>'");
    expect(fs.readFileSync(commandsFile, "utf8")).toContain("pulumi config set transformStoresTokensDriver '<value>'");
  });

  test("the printed program type-checks as a project of its own", async () => {
    const { text } = renderProgram(await importNow());
    fs.writeFileSync(path.join(project, "index.ts"), text);
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: imported\nruntime: nodejs\n");
    fs.writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "commonjs",
          moduleResolution: "node",
          target: "ES2022",
          skipLibCheck: true,
          types: [],
          baseUrl: ".",
          paths: { "pulumi-keepstack": [path.join(repoRoot, "dist", "index.d.ts")], "@pulumi/pulumi": [path.join(repoRoot, "node_modules", "@pulumi", "pulumi")] },
        },
        files: ["index.ts"],
      }),
    );
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const errors = await run(process.execPath, [tsc, "-p", project], { cwd: project }).then(
      (r) => r.stdout,
      (e: { stdout: string }) => e.stdout,
    );
    expect(errors).toBe("");
  }, 120_000);

  test("up adopts every object without changing it, then preview plans no change", async () => {
    const objects: ImportedObject[] = await importNow();
    const { text, settings } = renderProgram(objects);
    // The stack config the printed commands set: the write-only values the seed declared, and the
    // secrets the service returned (as `--secrets-file` writes them).
    const stackConfig = { ...config };
    for (const s of settings) {
      if (s.value !== undefined) {
        stackConfig[`imported:${s.key}`] = typeof s.value === "string" ? s.value : JSON.stringify(s.value);
        continue;
      }
      const [classPath, input] = s.about.replace(/ "[^"]*":/, "").split(" ");
      expect(value(classPath, input)).toEqual(expect.any(String));
      stackConfig[`imported:${s.key}`] = value(classPath, input);
    }
    const program = programOf(text);
    const engine = new Engine({ project: "imported", config: stackConfig, secretConfig: ["keep:token"] });
    try {
      services().forEach((s) => s.log.clear());
      expect(summarize((await engine.up(program)).steps)).toEqual({ create: objects.length });
      const writes = services().flatMap((s) => s.log.entries.filter((e) => e.method !== "GET"));
      // Adoption only reads (write-only values are taken as the ones in use), but for the owner's
      // record where the service keeps one that can be written again: the seed stack's partition
      // and workspace are taken over, said so in the printed program.
      expect(writes.map((e) => `${e.method} ${e.path}`)).toEqual(["PUT /v1/partition/team-west"]);
      expect((writes[0].body as { Description: string }).Description).toMatch(/\(managed by Pulumi stack imported\/dev, resource team-west\)$/);
      expect(text).toMatch(/\/\/ Recorded as managed by Pulumi stack seed\/dev, resource team-west: remove it from that stack's state[^\n]*\nnew mesh\.Partition\("team-west", \{[^}]*adopt: true,\s*takeOver: true/);
      services().forEach((s) => s.log.clear());
      expect(summarize((await engine.preview(program)).steps)).toEqual({ same: objects.length });
      expect(services().map((s) => s.log.count)).toEqual([0, 0, 0]);
    } finally {
      await engine.close();
    }
  }, 300_000);

  /** Every secret value the services hold for the seed: none may appear in what the command prints. */
  const SECRETS = ["kv-token-value-1", "kv-db-password-1", ...Object.values(WRITE_ONLY).filter((v) => v !== "postgres" && v !== "tokens"), "*****"];

  test("no secret value, nor an obfuscated one, is printed; --secrets-file writes them to a file only its owner can read", async () => {
    const cli = path.join(repoRoot, "dist", "cli", "main.js");
    const args = [cli, "import", "--all", ...Object.entries(config).map(([k, v]) => `--config=${k}=${v}`)];
    const plain = await run(process.execPath, args, { env });
    for (const secret of SECRETS) {
      expect(plain.stdout).not.toContain(secret);
      expect(plain.stderr).not.toContain(secret);
    }
    expect(plain.stdout).toContain("data: config.requireSecretObject<Record<string, string>>(\"secretPaymentsApiKeysData\"),");
    expect(plain.stderr).toMatch(/Secret values the service returned are not written anywhere: set [^\n]*secretPaymentsApiKeysData[^\n]*--secrets-file/);

    const secretsFile = path.join(project, "secrets.sh");
    const written = await run(process.execPath, [...args, "--secrets-file", secretsFile], { env });
    expect(written.stdout).toBe(plain.stdout);
    for (const secret of SECRETS) expect(written.stderr).not.toContain(secret);
    expect(fs.statSync(secretsFile).mode & 0o777).toBe(0o600);
    const file = fs.readFileSync(secretsFile, "utf8");
    expect(file).toContain(`pulumi config set --secret --path 'secretPaymentsApiKeysData["token"]' 'kv-token-value-1'`);
    expect(file).toContain(`pulumi config set --secret --path 'teamADevSecretDbData["password"]' 'kv-db-password-1'`);
    expect(file).not.toContain("*****");
  });

  test("an association imported beside its secret refers to the secret's output", async () => {
    const { text } = renderProgram(await importNow());
    expect(text).toContain("secretName: secretPaymentsApiKeys.path,");
    expect(text.indexOf("const secretPaymentsApiKeys =")).toBeLessThan(text.indexOf("secretName: secretPaymentsApiKeys.path"));
  });

  test("--all ends with what it left out and why; an object this token may not read is left out naming the token setting", async () => {
    const leftOut: { what: string; why: string }[] = [];
    emu.keep.faults.inject({ times: 1, status: 403, match: /^GET \/v1\/sys\/policies\/rgp\/business-hours$/ });
    const objects = await importAll({ lookup: (k) => config[k], env, progress: () => {}, leftOut: (l) => leftOut.push(l) });
    emu.keep.faults.clear();
    expect(objects.some((o) => o.id === "business-hours")).toBe(false);
    const why = (what: string) => leftOut.find((l) => l.what === what)?.why;
    expect(why("keep:RgpPolicy business-hours")).toMatch(/not readable with this token \(GET \/v1\/sys\/policies\/rgp\/business-hours returned 403\): .*check keep:token \(or KEEP_TOKEN\)/);
    expect(why("built-in keep:AclPolicy objects")).toMatch(/built in: the service makes them/);
    expect(why("built-in keep:TransformAlphabet objects")).toMatch(/built in: the service makes them/);
    expect(why("keep:Rekey")).toMatch(/operations run/);
    expect(why("keep:SyncRepoHostApp")).toMatch(/cannot list them: import them by ID/);
    expect(why("workspaces:ConfigurationVersion")).toMatch(/a version's content cannot be read back/);

    const cli = path.join(repoRoot, "dist", "cli", "main.js");
    const printed = await run(process.execPath, [cli, "import", "--all", ...Object.entries(config).map(([k, v]) => `--config=${k}=${v}`)], { env });
    expect(printed.stderr).toMatch(/Left out of the program:\n(- [^\n]*\n)*- [^\n]*keep:Rekey[^\n]*: operations run/);
  });

  test("a configuration version is refused with the reason, not printed as a program that cannot compile", async () => {
    const cli = path.join(repoRoot, "dist", "cli", "main.js");
    const failed = await run(process.execPath, [cli, "import", "workspaces:ConfigurationVersion", "cv-abc123", ...Object.entries(config).map(([k, v]) => `--config=${k}=${v}`)], { env }).then(
      () => undefined,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr).toMatch(/workspaces:ConfigurationVersion cannot be imported: a version's content cannot be read back/);
  });
});
