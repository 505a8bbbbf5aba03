/**
 * Credentials of a cloud-credentials role: `getCredentials` (`GET <mount>/creds/<role>`) and
 * `getStsCredentials` (`POST <mount>/sts/<role>`). Dynamic providers have no invoke, so these run in
 * the program's process with the program's stack configuration (`keep:address`, `keep:token`, ...),
 * through `programContext()`. Keys and tokens come back as Pulumi secrets; nothing is logged.
 *
 * Arguments are checked before any request (the TTL's format); what depends on the role (whether it
 * takes a TTL, which role ARN to assume) is checked against one read of the role first. Right after
 * a root rotation the provider refuses the engine's new key for a few seconds: the request is tried
 * again with the retry policy's backoff meanwhile.
 */
import type * as pulumi from "@pulumi/pulumi";
import { secret } from "@pulumi/pulumi/output";
import { z } from "zod";
import { cloud } from "../../../provider/contracts/keep";
import { OperationContext } from "../../../provider/context";
import { keepClientOf, pathSegment, scopeOptions } from "../../../provider/keep-object";
import { cloudDuration, cloudMount, rideOutConsistency } from "./common";
import { FunctionError, functionFamily } from "../../../provider/functions";

const targetShape = {
  /** Where the engine is mounted (default `cloudA`). */
  mount: cloudMount,
  /** Namespace, overriding `keep:namespace`. */
  namespace: z.string().min(1).optional(),
  /** Named cluster (`keep-<cluster>:address`, ...) instead of the `keep:` connection. */
  cluster: z.string().min(1).optional(),
  /** The role whose credentials are generated. */
  role: pathSegment("role name"),
};

const credentialsArgs = z.strictObject({
  ...targetShape,
  /** `assumed_role`: the provider role to assume; may be left out when the role allows exactly one. */
  roleArn: z.string().min(1).optional(),
  /** `assumed_role` and `federation_token`: how long the credentials live (default: the role's `defaultStsTtl`, else 1h). */
  ttl: cloudDuration.optional(),
  /** `assumed_role`: the session name (at most 64 characters are kept); generated when left out. */
  roleSessionName: z.string().min(1).optional(),
});

export interface GetCredentialsArgs extends z.input<typeof credentialsArgs> {}
/** Arguments of `getStsCredentials`: as `getCredentials`, for temporary credentials only. */
export type GetStsCredentialsArgs = GetCredentialsArgs;

/** Generated credentials as plain values (the Credentials resource keeps them as secret outputs). */
export interface PlainCredentials {
  /** Access key ID. */
  accessKey: string;
  /** Secret access key. */
  secretKey: string;
  /** Session token of temporary credentials; absent for IAM users. */
  securityToken?: string;
  /** ARN of the user or session the credentials belong to. */
  arn?: string;
  /** Lease of the credentials: revoke or renew it by this ID. */
  leaseId: string;
  /** Seconds the lease lasts. */
  leaseDuration: number;
  /** Whether the lease can be renewed. */
  renewable: boolean;
}

/** Generated credentials: the keys and the token as Pulumi secrets. */
export interface CloudCredentials {
  /** Access key ID, as a Pulumi secret. */
  accessKey: pulumi.Output<string>;
  /** Secret access key, as a Pulumi secret. */
  secretKey: pulumi.Output<string>;
  /** Session token of temporary credentials (undefined for IAM users), as a Pulumi secret. */
  securityToken: pulumi.Output<string | undefined>;
  /** ARN of the user or session the credentials belong to. */
  arn?: string;
  /** Lease of the credentials: revoke or renew it by this ID. */
  leaseId: string;
  /** Seconds the lease lasts. */
  leaseDuration: number;
  /** Whether the lease can be renewed. */
  renewable: boolean;
}

/** An error of a cloud-credentials function: which call, what is wrong, what to do. */
export class CloudFunctionError extends FunctionError {}

const family = functionFamily({ prefix: "keep.cloud", error: CloudFunctionError, onlyApiErrors: true });

type Args = z.output<typeof credentialsArgs>;

/** The role's facts a request depends on, when it needs them; one read. */
async function checkAgainstRole(ctx: OperationContext, args: Args, via: "creds" | "sts", fail: (message: string) => never): Promise<void> {
  if (args.roleArn !== undefined && args.ttl === undefined && via === "creds") return;
  const role = (await keepClientOf(ctx, args).send(cloud.role, { params: { mount: args.mount, name: args.role }, options: scopeOptions(args) }))?.body;
  if (!role) return fail(`no such role at ${args.mount}/roles/${args.role}`);
  const types = role.credential_types ?? [];
  const arns = role.role_arns ?? [];
  const temporary = types.filter((t) => t !== "iam_user");
  if (via === "sts" && temporary.length === 0) fail("the role gives IAM users only, which sts/ does not: use getCredentials");
  const type = via === "sts" ? temporary[0] : types.includes("iam_user") ? "iam_user" : types[0];
  if (args.ttl !== undefined && type === "iam_user") fail("ttl: applies to assumed_role and federation_token credentials only; an IAM user's lease comes from the lease configuration");
  if (type === "assumed_role") {
    if (args.roleArn === undefined && arns.length > 1) fail(`roleArn: is required: the role allows ${arns.length} role ARNs (${arns.join(", ")})`);
    if (args.roleArn !== undefined && !arns.includes(args.roleArn)) fail(`roleArn: ${args.roleArn} is not one the role allows (${arns.join(", ")})`);
  } else if (args.roleArn !== undefined) {
    fail(`roleArn: applies to assumed_role credentials only; the role gives ${type}`);
  }
}

/** A credentials function named `name`, through `creds/` or `sts/`, its answer given to `result`. */
function credentialsFunction<R>(name: string, via: "creds" | "sts", result: (plain: PlainCredentials) => R) {
  return family.define<GetCredentialsArgs, R, Args>({
    name,
    args: credentialsArgs,
    about: (args) => `role "${args.role}"`,
    async run(args, ctx, fail) {
      await checkAgainstRole(ctx, args, via, fail);
      const client = keepClientOf(ctx, args);
      const params: Record<string, string> = {};
      if (args.roleArn !== undefined) params.role_arn = args.roleArn;
      if (args.roleSessionName !== undefined) params.role_session_name = args.roleSessionName;
      if (args.ttl !== undefined) params.ttl = String(args.ttl);
      const answer = await rideOutConsistency(client, `${via}/${args.role}`, () =>
        via === "creds"
          ? client.send(cloud.credentials, { params: args, options: { ...scopeOptions(args), ...(Object.keys(params).length ? { query: params } : {}) } })
          : client.send(cloud.stsCredentials, { params: args, body: params, options: scopeOptions(args) }),
      );
      const data = answer.body;
      return result({
        accessKey: data.access_key,
        secretKey: data.secret_key,
        ...(data.security_token ? { securityToken: data.security_token } : {}),
        ...(data.arn ? { arn: data.arn } : {}),
        leaseId: answer.lease.id,
        leaseDuration: answer.lease.duration,
        renewable: answer.lease.renewable,
      });
    },
  });
}

/** The Credentials resource's request: plain values, its errors named `keep.cloud.Credentials(...)`. */
export const requestCredentials = {
  creds: credentialsFunction("Credentials", "creds", (plain) => plain),
  sts: credentialsFunction("Credentials", "sts", (plain) => plain),
};

function asSecrets(plain: PlainCredentials): CloudCredentials {
  const { accessKey, secretKey, securityToken, ...rest } = plain;
  return { accessKey: secret(accessKey), secretKey: secret(secretKey), securityToken: secret(securityToken), ...rest };
}

/**
 * Credentials of a role (`GET <mount>/creds/<role>`): an IAM user's keys, or temporary credentials
 * of an `assumed_role` or `federation_token` role. New credentials at every call; for credentials
 * that stay the same across runs, declare a `keep.cloud.Credentials`.
 */
export const getCredentials = credentialsFunction("getCredentials", "creds", asSecrets);

/** Temporary credentials of an `assumed_role` or `federation_token` role (`POST <mount>/sts/<role>`). */
export const getStsCredentials = credentialsFunction("getStsCredentials", "sts", asSecrets);
