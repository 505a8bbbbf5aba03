/**
 * The cloud-credentials engine: root credentials given by reference and rotated on a schedule,
 * lease settings, one role of each credential type, credentials kept for a CI system, and
 * short-lived credentials read at every run.
 *
 * Configure `keep:address` and `keep:token` (a secret), and:
 * - `cloud:accessKey`: the access key ID of the provider user the engine acts as;
 * - `cloud:secretKey` (secret): its secret key; it is resolved by the provider host and never
 *   stored in the stack's state;
 * - `cloud:rotation`: any text; change it (a month, "2025-02") to rotate the root key again.
 * The engine must be mounted at `cloudA`.
 */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";

export = () => {
  const config = new pulumi.Config("cloud");

  // The declared key works until the first rotation; after it only the service knows the secret,
  // and that is not drift: `currentAccessKey` shows the key in use.
  const root = new keep.cloud.RootConfig("root", {
    accessKey: config.require("accessKey"),
    secretKey: { fromConfig: "cloud:secretKey" },
    region: "eu-west-1",
  });
  const rotation = new keep.cloud.RotateRoot("rotation", { triggers: [config.require("rotation")] }, { dependsOn: [root] });

  const lease = new keep.cloud.LeaseConfig("lease", { lease: "1h", leaseMax: "24h" });

  // Developers get IAM users that see the read-only policy, tagged with their team.
  const developers = new keep.cloud.Role(
    "developers",
    {
      name: "developers",
      credentialType: "iam_user",
      policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"],
      iamTags: { team: "platform" },
      userPath: "/keep/",
    },
    { dependsOn: [rotation, lease] },
  );

  // Deployments assume one of two provider roles, for at most two hours.
  const deploy = new keep.cloud.Role(
    "deploy",
    {
      name: "deploy",
      credentialType: "assumed_role",
      roleArns: ["arn:aws:iam::123456789012:role/deploy-staging", "arn:aws:iam::123456789012:role/deploy-production"],
      defaultStsTtl: "30m",
      maxStsTtl: "2h",
    },
    { dependsOn: [rotation] },
  );

  // CI keeps one set of credentials until `triggers` renews it.
  const ci = new keep.cloud.Credentials("ci", { role: deploy.name, roleArn: "arn:aws:iam::123456789012:role/deploy-staging", ttl: "2h" });

  // Short-lived credentials read at every run, once the role exists (nothing is read in preview).
  const reader = pulumi.all([developers.id, developers.name]).apply(([, role]) => keep.cloud.getCredentials({ role }));

  return {
    rootAccessKey: rotation.accessKey,
    developersRole: developers.id,
    ciArn: ci.arn,
    ciAccessKey: ci.accessKey,
    readerArn: reader.apply((credentials) => credentials.arn),
    readerSecretKey: reader.apply((credentials) => credentials.secretKey),
  };
};
