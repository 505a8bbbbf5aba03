/**
 * Role of the cloud-credentials engine: `<mount>/roles/:name`, what credentials of one kind carry.
 * Every rule of the service's role table is checked in preview, naming the property. Written with
 * `credential_type`, read back as `credential_types`; lists compare as sets, `policyDocument` as
 * JSON, TTLs as durations. Every parameter is sent on each write (an empty value for one left out),
 * since the service keeps a parameter a write does not mention.
 */
import { z } from "zod";
import { CloudRoleAnswer, cloudObjects } from "../../../provider/contracts/keep";
import { keepObject, pathSegment } from "../../../provider/keep-object";
import { defineResource, ResourceArgs } from "../../../provider/resource";
import { canonical } from "../../../provider/object-machine";
import { isUnknown, containsUnknown } from "../../../provider/unknowns";
import { cloudDuration, cloudMount, listInput, listItems, normalizeDuration, normalizeSet, secondsOf } from "./common";
import { nth } from "../../../provider/spec";

export const CREDENTIAL_TYPES = ["iam_user", "assumed_role", "federation_token"] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** Parameters of the current form (legacy `policy` and `arn` cannot be mixed with them). */
const CURRENT = ["credentialType", "roleArns", "policyArns", "policyDocument", "iamGroups", "iamTags", "defaultStsTtl", "maxStsTtl", "userPath", "permissionsBoundaryArn"] as const;

/** JSON text, as the service reads it: any JSON value it can compact ("" leaves the field empty). */
const jsonText = (what: string) =>
  z.string().superRefine((text, ctx) => {
    if (isUnknown(text) || text === "") return;
    try {
      JSON.parse(text);
    } catch (e) {
      ctx.addIssue({ code: "custom", message: `must be ${what} as JSON: ${(e as Error).message}` });
    }
  });

const tagText = z.string().regex(/^[^=]+=.*$/, "must be of the form key=value");

/** Tags as the service takes them: a map, or `key=value` strings. */
export function tagMap(value: Record<string, string> | string[] | undefined): Record<string, string> {
  if (value === undefined) return {};
  if (!Array.isArray(value)) return { ...value };
  return Object.fromEntries(value.map((item) => [item.slice(0, item.indexOf("=")), item.slice(item.indexOf("=") + 1)]));
}

const normalizeJson = (text: string | undefined) => {
  if (text === undefined || text === "") return null;
  try {
    return canonical(JSON.parse(text));
  } catch {
    return text;
  }
};

const normalizeTags = (value: Record<string, string> | string[] | undefined) => {
  const tags = tagMap(value);
  return Object.keys(tags).length ? canonical(tags) : null;
};

const shape = {
  /** Where the engine is mounted (default `cloudA`). Part of the ID; changing it replaces the role. */
  mount: cloudMount,
  /** Role name; credentials come from `<mount>/creds/<name>` and `<mount>/sts/<name>`. Changing it replaces the role. */
  name: pathSegment("role name"),
  /**
   * What credentials the role gives: `iam_user` (a new IAM user with an access key),
   * `assumed_role` (temporary credentials of a provider role) or `federation_token` (temporary
   * credentials of a federated user). Required unless a legacy `policy` or `arn` is given.
   */
  credentialType: z.enum(CREDENTIAL_TYPES, { error: `must be ${CREDENTIAL_TYPES.join(", ")}` }).optional(),
  /** Provider roles credentials may assume: required for `assumed_role`, refused otherwise. An array or a comma-separated string; order does not matter. */
  roleArns: listInput("role ARN").optional(),
  /** Managed policies: attached to IAM users (`iam_user`), a filter for the other types. An array or a comma-separated string; order does not matter. */
  policyArns: listInput("policy ARN").optional(),
  /** An IAM policy document (JSON): attached to IAM users, a filter for the other types. Compared as JSON. */
  policyDocument: jsonText("an IAM policy document").optional(),
  /** Groups IAM users join; for the other types their policies combine with the role's. Order does not matter. */
  iamGroups: listInput("group name").optional(),
  /** Tags of created IAM users: a map, or `key=value` strings. */
  iamTags: z.union([z.record(z.string(), z.string()), z.array(tagText)]).optional(),
  /** `assumed_role` and `federation_token`: the TTL when a request gives none (at most `maxStsTtl`). */
  defaultStsTtl: cloudDuration.optional(),
  /** `assumed_role` and `federation_token`: the longest TTL a request gets. */
  maxStsTtl: cloudDuration.optional(),
  /** `iam_user`: the path of created users (default `/`); it begins and ends with `/`. */
  userPath: z.string().regex(/^\/([\x21-\x7e]{0,510}\/)?$/, "must begin and end with '/' (such as /keep/), at most 512 characters").optional(),
  /** `iam_user`: ARN of the permissions boundary of created users; none when left out. */
  permissionsBoundaryArn: z.string().regex(/^arn:/, "must be an ARN (arn:...)").optional(),
  /** Legacy: an IAM policy document (JSON) for `iam_user` and `federation_token` credentials. Not mixed with the parameters above. */
  policy: jsonText("an IAM policy document").optional(),
  /** Legacy: the ARN of a provider role (`…:role/…`) or of a managed policy (`…:policy/…`). Not mixed with the parameters above. */
  arn: z.string().regex(/^arn:[^:]+:iam::[^:]*:(role|policy)\/.+$/, "must be the ARN of a role (…:role/…) or of a managed policy (…:policy/…)").optional(),
};

type Values = { [K in keyof typeof shape]?: unknown };

/** The role table's rules between parameters, each naming the property it is about. */
function roleRules(values: Values): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const set = (key: keyof Values) => {
    const v = values[key];
    if (v === undefined || v === "") return false;
    if (Array.isArray(v)) return v.length > 0;
    if (typeof v === "object" && v !== null) return Object.keys(v).length > 0;
    return true;
  };
  const legacy = (["policy", "arn"] as const).filter(set);
  if (legacy.length === 2) issues.push({ path: ["arn"], message: "cannot be given with policy: a legacy role has one or the other" });
  if (legacy.length) {
    for (const key of CURRENT.filter(set)) issues.push({ path: [key], message: `cannot be mixed with the legacy ${legacy[0]}: declare the role in the current form only` });
    return issues;
  }
  const type = values.credentialType as CredentialType | undefined;
  if (type === undefined) return [{ path: ["credentialType"], message: `is required: ${CREDENTIAL_TYPES.join(", ")} (or the legacy policy or arn)` }];
  if (isUnknown(type)) return issues;
  const known = (key: keyof Values) => !containsUnknown(values[key]);
  const sts = type === "assumed_role" || type === "federation_token";
  if (type === "assumed_role" && known("roleArns") && listItems(values.roleArns as string[] | string | undefined).length === 0) {
    issues.push({ path: ["roleArns"], message: "is required with credentialType assumed_role: the provider roles the credentials may assume" });
  }
  if (type !== "assumed_role" && set("roleArns")) issues.push({ path: ["roleArns"], message: `is valid only with credentialType assumed_role, not ${type}` });
  if ((type === "iam_user" || type === "federation_token") && known("policyArns") && known("policyDocument") && !set("policyArns") && !set("policyDocument")) {
    issues.push({ path: ["policyArns"], message: `or policyDocument is required with credentialType ${type}: the permissions the credentials carry` });
  }
  for (const key of ["defaultStsTtl", "maxStsTtl"] as const) {
    if (!sts && set(key) && normalizeDuration(values[key] as string) !== null) {
      issues.push({ path: [key], message: `is valid only with credentialType assumed_role or federation_token, not ${type}` });
    }
  }
  const ttl = secondsOf(values.defaultStsTtl);
  const max = secondsOf(values.maxStsTtl);
  if (sts && ttl !== undefined && max !== undefined && max > 0 && ttl > max) {
    issues.push({ path: ["defaultStsTtl"], message: `must not exceed maxStsTtl (${values.defaultStsTtl} is longer than ${values.maxStsTtl})` });
  }
  for (const key of ["userPath", "permissionsBoundaryArn"] as const) {
    if (type !== "iam_user" && set(key)) issues.push({ path: [key], message: `is valid only with credentialType iam_user, not ${type}` });
  }
  return issues;
}

const inputs = z.object(shape).superRefine(
  (values, ctx) => {
    for (const issue of roleRules(values as Values)) ctx.addIssue({ code: "custom", ...issue });
  },
  { when: () => true },
);

/** Values the service reports in another form than the program wrote them, which are not a change. */
const normalize = {
  roleArns: normalizeSet,
  policyArns: normalizeSet,
  iamGroups: normalizeSet,
  policyDocument: normalizeJson,
  policy: normalizeJson,
  iamTags: normalizeTags,
  defaultStsTtl: normalizeDuration,
  maxStsTtl: normalizeDuration,
  userPath: (path: unknown) => (path === "/" ? null : path),
};

export const roleSpec = keepObject({
  type: "CloudRole",
  description: "A role of the cloud-credentials engine",
  rows: cloudObjects.role,
  id: "{mount*}/roles/{name}",
  inputs,
  normalize,
  bodyOf: (values) => roleBody(values),
  inputsOf: (answer, state) => inputsOfAnswer(answer, state) as never,
  keepDeclaredForm: true,
  onRead(ctx, id, answer) {
    if (answer.invalid_data === undefined || answer.invalid_data === null || answer.invalid_data === "") return;
    ctx.warn(
      `keep:CloudRole "${id}": the service holds data of this role that an earlier version could not upgrade (invalid_data: ${describeInvalidData(answer.invalid_data)}); ` +
        "the role gives no credentials until it is written again: change it, or replace it (`pulumi up --replace <urn>`)",
    );
  },
  example: {
    inputs: (n) => ({ name: nth("deploy", n), credentialType: "iam_user" as const, policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }),
    change: { iamGroups: ["deployers"] },
  },
});
type Inputs = z.output<typeof inputs>;

/** The body of a write: the legacy parameter alone, or every current parameter (empty when left out). */
export function roleBody(values: Partial<Inputs>): Record<string, unknown> {
  if (values.policy !== undefined) return { policy: values.policy };
  if (values.arn !== undefined) return { arn: values.arn };
  return {
    credential_type: values.credentialType,
    role_arns: listItems(values.roleArns),
    policy_arns: listItems(values.policyArns),
    policy_document: values.policyDocument ?? "",
    iam_groups: listItems(values.iamGroups),
    iam_tags: tagMap(values.iamTags),
    default_sts_ttl: values.defaultStsTtl ?? 0,
    max_sts_ttl: values.maxStsTtl ?? 0,
    user_path: values.userPath ?? "",
    permissions_boundary_arn: values.permissionsBoundaryArn ?? "",
  };
}

/** Empty reads as absent: the service answers a parameter left out as "", 0 or []. */
const text = (value: string | null | undefined): string | undefined => value || undefined;
const list = (value: string[] | null | undefined): string[] | undefined => (value?.length ? value : undefined);
const seconds = (value: number | null | undefined): number | undefined => (value && value > 0 ? value : undefined);

/** The inputs a read answer stands for; every parameter is present (undefined when empty), so a cleared one is drift. */
function inputsOfAnswer(answer: CloudRoleAnswer, state: Record<string, unknown> | undefined): Record<string, unknown> {
  const types = answer.credential_types ?? [];
  if (state?.policy !== undefined) {
    return { policy: types.join(",") === "iam_user,federation_token" ? text(answer.policy_document) : `(the role holds ${types.join(", ")} credentials)` };
  }
  if (state?.arn !== undefined) return { arn: list(answer.role_arns)?.[0] ?? list(answer.policy_arns)?.[0] };
  const tags = answer.iam_tags ?? {};
  return {
    credentialType: types.join(",") || undefined,
    roleArns: list(answer.role_arns),
    policyArns: list(answer.policy_arns),
    policyDocument: text(answer.policy_document),
    iamGroups: list(answer.iam_groups),
    iamTags: Object.keys(tags).length ? tags : undefined,
    defaultStsTtl: seconds(answer.default_sts_ttl),
    maxStsTtl: seconds(answer.max_sts_ttl),
    userPath: text(answer.user_path) === "/" && state?.userPath === undefined ? undefined : text(answer.user_path),
    permissionsBoundaryArn: text(answer.permissions_boundary_arn),
  };
}

/** What `invalid_data` holds, for the warning: the fields named. */
function describeInvalidData(value: unknown): string {
  if (value && typeof value === "object") return `fields ${Object.keys(value).join(", ")}`;
  const raw = String(value);
  return `a legacy ${raw.startsWith("arn:") ? "arn" : "policy"} (${raw.length > 80 ? `${raw.slice(0, 80)}…` : raw})`;
}

/**
 * A role of a cloud-credentials engine: the credential type and what its credentials carry.
 * ID: `<mount>/roles/<name>`.
 */
export const Role = defineResource(roleSpec);
export type Role = InstanceType<typeof Role>;
export type RoleArgs = ResourceArgs<typeof roleSpec.inputs>;
