/**
 * A valid declaration of every registered resource type, for the tests that cover the whole
 * registry (the contract test, the fault matrix, the check fuzz): its inputs and an in-place change.
 * A registered type without a sample fails those tests, naming this file.
 *
 * Secrets here are references (`app:secret`, `APP_SECRET`) or test values; test contexts resolve them.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export interface Sample {
  /** Inputs a program would declare. */
  inputs: Record<string, unknown>;
  /** Inputs changed in place (no replacement), where the type has any. */
  change?: Record<string, unknown>;
}

const POLICY = 'path "secret/*" {\n  capabilities = ["read"]\n}\n';
const SENTINEL = "main = rule { true }";

/** A directory with one file to upload, made once per process. */
let uploadDir: string | undefined;
function configurationDirectory(): string {
  if (!uploadDir) {
    uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "sample-config-"));
    fs.writeFileSync(path.join(uploadDir, "main.tf"), 'resource "null_resource" "x" {}\n');
  }
  return uploadDir;
}

const SAMPLES: Record<string, () => Sample> = {
  "keep:AclPolicy": () => ({ inputs: { name: "readers", policy: POLICY }, change: { policy: `${POLICY}# more\n` } }),
  "keep:RgpPolicy": () => ({ inputs: { name: "business-hours", policy: SENTINEL, enforcementLevel: "advisory" }, change: { enforcementLevel: "hard-mandatory" } }),
  "keep:EgpPolicy": () => ({
    inputs: { name: "cidr-check", policy: SENTINEL, enforcementLevel: "soft-mandatory", paths: ["secret/*"] },
    change: { paths: ["secret/*", "sys/*"] },
  }),
  "keep:SyncConfig": () => ({ inputs: { disabled: false, queueCapacity: 5000 }, change: { queueCapacity: 6000 } }),
  "keep:SyncCloudASmDestination": () => ({
    inputs: { name: "cloud-a", region: "us-east-1", accessKeyId: "AKIAEXAMPLE", secretAccessKey: { fromConfig: "app:secret" } },
    change: { region: "eu-west-1" },
  }),
  "keep:SyncCloudBKvDestination": () => ({
    inputs: { name: "cloud-b", keyVaultUri: "https://vault.example.net", clientId: "client", clientSecret: { fromEnv: "APP_SECRET" }, tenantId: "tenant" },
    change: { clientId: "client-2" },
  }),
  "keep:SyncCloudCSmDestination": () => ({
    inputs: { name: "cloud-c", credentials: { fromConfig: "app:secret" }, projectId: "project-1" },
    change: { projectId: "project-2" },
  }),
  "keep:SyncRepoHostDestination": () => ({
    inputs: { name: "repo", accessToken: { fromConfig: "app:secret" }, repositoryOwner: "acme", repositoryName: "app" },
    change: { repositoryName: "app-2" },
  }),
  "keep:SyncWebHostProjectDestination": () => ({
    inputs: { name: "web", accessToken: { fromConfig: "app:secret" }, projectId: "prj_1", deploymentEnvironments: ["production"] },
    change: { deploymentEnvironments: ["production", "preview"] },
  }),
  "keep:SyncAssociation": () => ({ inputs: { destinationType: "cloudA-sm", destinationName: "cloud-a", mount: "secret", secretName: "app/db" } }),
  "keep:SyncRepoHostApp": () => ({ inputs: { name: "app", appId: "12345", privateKey: { fromConfig: "app:secret" } }, change: { appId: "54321" } }),
  "keep:KvSecret": () => ({ inputs: { path: "app/db", data: { user: "app", password: "pw" } }, change: { data: { user: "app", password: "pw2" } } }),
  "keep:TransformAlphabet": () => ({ inputs: { name: "hex", alphabet: "0123456789abcdef" }, change: { alphabet: "0123456789ABCDEF" } }),
  "keep:TransformTemplate": () => ({
    inputs: { name: "card", pattern: "(\\d{4})-(\\d{4})-(\\d{4})-(\\d{4})", alphabet: "builtin/numeric" },
    change: { pattern: "(\\d{4})[- ](\\d{4})[- ](\\d{4})[- ](\\d{4})" },
  }),
  "keep:TransformTransformation": () => ({ inputs: { name: "card-fpe", type: "fpe", template: "builtin/creditcardnumber" }, change: { allowedRoles: ["payments"] } }),
  "keep:TransformRole": () => ({ inputs: { name: "payments", transformations: ["card-fpe"] }, change: { transformations: ["card-fpe", "ssn"] } }),
  "keep:TransformStore": () => ({
    inputs: {
      name: "tokens",
      driver: "postgres",
      connectionString: "postgresql://{{username}}:{{password}}@127.0.0.1:5432/tokens",
      username: "store",
      password: { fromConfig: "app:secret" },
    },
    change: { maxOpenConnections: 8 },
  }),
  "keep:TransformStoreSchema": () => ({ inputs: { store: "tokens", username: "admin", password: { fromEnv: "APP_SECRET" } } }),
  "keep:TransformEncodedValue": () => ({ inputs: { role: "payments", value: "4111-1111-1111-1111", transformation: "card-fpe" } }),
  "keep:CloudRootConfig": () => ({ inputs: { accessKey: "AKIAEXAMPLE", secretKey: { fromConfig: "app:secret" }, region: "us-east-1" }, change: { region: "eu-west-1" } }),
  "keep:CloudLeaseConfig": () => ({ inputs: { lease: "1h", leaseMax: "24h" }, change: { leaseMax: "48h" } }),
  "keep:CloudRole": () => ({
    inputs: { name: "deploy", credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] },
    change: { iamGroups: ["deployers"] },
  }),
  "keep:CloudRotateRoot": () => ({ inputs: {} }),
  "keep:CloudCredentials": () => ({ inputs: { role: "deploy" } }),
  "keep:Rekey": () => ({ inputs: { secretShares: 5, secretThreshold: 3, unsealKeys: { fromConfig: "app:secret" }, acceptSharesInState: true } }),
  "keep:RekeyVerify": () => ({ inputs: { nonce: "nonce-1", keys: { fromConfig: "app:secret" } } }),
  "keep:RekeyBackupDeletion": () => ({ inputs: { confirmSharesReceived: true } }),
  "workspaces:Workspace": () => ({ inputs: { name: "app", organization: "acme", autoApply: false }, change: { description: "the app" } }),
  "workspaces:ConfigurationVersion": () => ({ inputs: { workspaceId: "ws-1234567890abcdef", directory: configurationDirectory() } }),
  "mesh:Partition": () => ({ inputs: { name: "team-a", description: "Team A" }, change: { description: "Team A, again" } }),
};

/** The sample of a type, by its short type (`keep:AclPolicy`) or token. */
export function sampleFor(type: string): Sample {
  const short = type.replace(/^pulumi-nodejs:dynamic\//, "");
  const make = SAMPLES[short];
  if (!make) throw new Error(`no sample for ${short}: add one to tests/support/samples.ts`);
  return make();
}
