/**
 * Credentials kept across runs: generated once, when the resource is created, and kept as secret
 * outputs, for programs that hand credentials to something that must not see new ones at every
 * run. An operation (ARCHITECTURE.md, "Operations are resources"): a change of an input or of `triggers` generates new ones (a date
 * string gives scheduled renewal); refresh never does; destroy leaves the lease to expire.
 */
import { z } from "zod";
import { keepCommonShape, pathSegment } from "../../../provider/keep-object";
import { defineResource, OperationArgs } from "../../../provider/resource";
import { operationSpec } from "../../../provider/spec";
import { cloudDuration, cloudMount } from "./common";
import { requestCredentials } from "./functions";

const inputs = z.object({
  /** Where the engine is mounted (default `cloudA`). */
  mount: cloudMount,
  /** The role whose credentials are generated. */
  role: pathSegment("role name"),
  /** `creds` (default; any credential type) or `sts` (temporary credentials only). */
  endpoint: z.enum(["creds", "sts"], { error: "must be creds or sts" }).default("creds"),
  /** `assumed_role`: the provider role to assume; may be left out when the role allows exactly one. */
  roleArn: z.string().min(1).optional(),
  /** `assumed_role` and `federation_token`: how long the credentials live (seconds or a duration such as "1h"). */
  ttl: cloudDuration.optional(),
  /** `assumed_role`: the session name; generated when left out. */
  roleSessionName: z.string().min(1).optional(),
  ...keepCommonShape,
});

export const credentialsSpec = operationSpec({
  module: "keep",
  type: "CloudCredentials",
  description: "Credentials of a cloud-credentials role, generated once and kept (an operation)",
  inputs,
  computed: z.object({
    /** Access key ID, a Pulumi secret. */
    accessKey: z.string(),
    /** Secret access key, a Pulumi secret. */
    secretKey: z.string(),
    /** Session token of temporary credentials (absent for IAM users), a Pulumi secret. */
    securityToken: z.string().optional(),
    /** ARN of the user or session the credentials belong to. */
    arn: z.string().optional(),
    /** Lease of the credentials. */
    leaseId: z.string(),
    /** Seconds the lease lasts from creation. */
    leaseDuration: z.number(),
    /** Whether the lease can be renewed. */
    renewable: z.boolean(),
  }),
  secretOutputs: ["accessKey", "secretKey", "securityToken"],
  label: (values) => `${values.mount}/${values.endpoint}/${values.role}`,
  async run(ctx, values) {
    // `triggers` only decides when to run again; it is no argument of the request.
    const { endpoint, triggers: _triggers, ...args } = values as typeof values & { triggers?: unknown };
    return requestCredentials[endpoint](args, ctx);
  },
  example: { inputs: () => ({ role: "deploy" }) },
});

/**
 * Credentials of a role generated once and kept (secret outputs); `triggers` renews them.
 */
export const Credentials = defineResource(credentialsSpec);
export type Credentials = InstanceType<typeof Credentials>;
export type CredentialsArgs = OperationArgs<typeof credentialsSpec.inputs>;
