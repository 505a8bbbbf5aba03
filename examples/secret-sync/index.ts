/**
 * Secret sync: one key-value secret of the secrets service, synced to five external systems.
 *
 * Configure `keep:address` and `keep:token` (a secret), then the destinations' credentials as
 * secrets; the program names them by reference, so they are read where Pulumi runs and never
 * stored in the state:
 *
 *   pulumi config set --secret stripeKey sk_live_...
 *   pulumi config set --secret cloudAAccessKeyId AKIA...
 *   pulumi config set --secret cloudASecretAccessKey ...
 *   pulumi config set --secret cloudBClientSecret ...
 *   pulumi config set --secret cloudCCredentials "$(cat service-account.json)"
 *   pulumi config set --secret repoHostAppKey "$(cat app.private-key.pem)"
 *   pulumi config set --secret webHostToken ...
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";

export = async () => {
  const config = new pulumi.Config();
  const fromConfig = (key: string) => ({ fromConfig: `${pulumi.getProject()}:${key}` });

  // What is synced: a version 2 secret at secret/payments/api-keys.
  const apiKeys = new keep.kv.Secret("api-keys", {
    path: "payments/api-keys",
    data: { "stripe-key": config.requireSecret("stripeKey"), "webhook-url": "https://pay.example.com/hooks" },
  });

  const tags = { team: "payments", "cost-center": "cc-42" };
  const cloudA = new keep.sync.CloudASmDestination("cloud-a", {
    name: "payments",
    region: "eu-west-1",
    accessKeyId: fromConfig("cloudAAccessKeyId"),
    secretAccessKey: fromConfig("cloudASecretAccessKey"),
    customTags: tags,
  });
  const cloudB = new keep.sync.CloudBKvDestination("cloud-b", {
    name: "payments",
    keyVaultUri: "https://payments.vault.example.net/",
    clientId: "5f3c0c1e-client",
    tenantId: "0b6d3b1a-tenant",
    clientSecret: fromConfig("cloudBClientSecret"),
    customTags: tags,
  });
  const cloudC = new keep.sync.CloudCSmDestination("cloud-c", {
    name: "payments",
    credentials: fromConfig("cloudCCredentials"),
    projectId: "payments-prod",
    customTags: tags,
  });
  // The repository host is reached through a custom application rather than a personal token.
  const app = new keep.sync.RepoHostApp("ci-app", { name: "payments-ci", appId: 318042, privateKey: fromConfig("repoHostAppKey") });
  const repoHost = new keep.sync.RepoHostDestination("repo-host", {
    name: "payments-web",
    appName: app.name,
    installationId: 52310967,
    repositoryOwner: "example-payments",
    repositoryName: "web",
  });
  const webHost = new keep.sync.WebHostProjectDestination("web-host", {
    name: "payments-site",
    accessToken: fromConfig("webHostToken"),
    projectId: "prj_payments",
    deploymentEnvironments: ["preview", "production"],
  });

  // One association per destination; its inputs are the outputs of the secret and the destination,
  // so it is created after both and removed before either.
  const destinations = { cloudA, cloudB, cloudC, repoHost, webHost };
  const status: Record<string, pulumi.Output<string>> = {};
  for (const [key, destination] of Object.entries(destinations)) {
    const association = new keep.sync.Association(`api-keys-${key}`, {
      destinationType: destination.destinationType,
      destinationName: destination.name,
      mount: apiKeys.mount,
      secretName: apiKeys.path,
    });
    status[key] = association.syncStatus;
  }
  return { status, appFingerprint: app.fingerprint };
};
