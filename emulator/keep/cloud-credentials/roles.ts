/**
 * Roles of the cloud-credentials engine as the service checks them: the parameters of the role
 * table, each rule answered with a 400 naming it, legacy `policy` and `arn` upgraded to the current
 * form, and the read with `credential_types`.
 */
import { RequestBody, readDuration, readString, readStringList } from "../fields";
import { badRequest } from "../replies";

export const CREDENTIAL_TYPES = ["iam_user", "assumed_role", "federation_token"] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

export interface StoredRole {
  credential_types: CredentialType[];
  role_arns: string[];
  policy_arns: string[];
  policy_document: string;
  iam_groups: string[];
  iam_tags: Record<string, string>;
  /** Seconds; 0 when unset. */
  default_sts_ttl: number;
  max_sts_ttl: number;
  user_path: string;
  permissions_boundary_arn: string;
  /** A legacy value an earlier version could not upgrade; such a role gives no credentials. */
  invalid_data?: string;
}

const CURRENT_PARAMETERS = [
  "credential_type",
  "role_arns",
  "policy_arns",
  "policy_document",
  "iam_groups",
  "iam_tags",
  "default_sts_ttl",
  "max_sts_ttl",
  "user_path",
  "permissions_boundary_arn",
] as const;

const given = (value: unknown) =>
  !(value === undefined || value === null || value === "" || value === 0 || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0));

/** A policy document as the service keeps it: valid JSON, compacted. */
function compactPolicy(field: string, text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch (e) {
    throw badRequest(`invalid ${field}: not valid JSON: ${(e as Error).message}`);
  }
}

/** `key=value` strings (a list or comma-separated) or an object. */
function readTags(body: RequestBody): Record<string, string> | undefined {
  const value = body.iam_tags;
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object" && !Array.isArray(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
  const tags: Record<string, string> = {};
  for (const item of readStringList(body, "iam_tags") ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw badRequest(`invalid iam_tags: "${item}" is not of the form key=value`);
    tags[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return tags;
}

/** The current form of a legacy `policy` (a policy document) or `arn` (a role or a managed policy). */
export function upgradeLegacy(policy: string | undefined, arn: string | undefined): Partial<StoredRole> {
  if (policy !== undefined) return { credential_types: ["iam_user", "federation_token"], policy_document: compactPolicy("policy", policy) };
  const resource = /^arn:[^:]+:iam::[^:]*:(.+)$/.exec(arn ?? "")?.[1] ?? "";
  if (resource.startsWith("role/")) return { credential_types: ["assumed_role"], role_arns: [arn!] };
  if (resource.startsWith("policy/")) return { credential_types: ["iam_user"], policy_arns: [arn!] };
  throw badRequest(`invalid arn "${arn}": a legacy arn must name an IAM role (…:role/…) or a managed policy (…:policy/…)`);
}

const EMPTY_ROLE: StoredRole = {
  credential_types: [],
  role_arns: [],
  policy_arns: [],
  policy_document: "",
  iam_groups: [],
  iam_tags: {},
  default_sts_ttl: 0,
  max_sts_ttl: 0,
  user_path: "",
  permissions_boundary_arn: "",
};

/**
 * A role write: parameters present in the body replace the stored ones (an empty value clears
 * one), absent ones keep theirs; then every rule of the role table is checked.
 */
export function parseRole(body: RequestBody, existing: StoredRole | undefined): StoredRole {
  const policy = readString(body, "policy");
  const arn = readString(body, "arn");
  if (policy !== undefined && arn !== undefined) throw badRequest("only one of the legacy parameters policy and arn may be given");
  if (policy !== undefined || arn !== undefined) {
    const mixed = CURRENT_PARAMETERS.filter((p) => given(body[p]));
    if (mixed.length) throw badRequest(`legacy parameter ${policy !== undefined ? "policy" : "arn"} cannot be mixed with ${mixed.join(", ")}`);
    return { ...structuredClone(EMPTY_ROLE), ...upgradeLegacy(policy, arn) };
  }

  const role: StoredRole = structuredClone(existing ?? EMPTY_ROLE);
  delete role.invalid_data;
  const typesText = readString(body, "credential_type");
  if (typesText !== undefined) {
    const types = typesText.split(",").map((t) => t.trim()).filter((t) => t !== "");
    const wrong = types.filter((t) => !(CREDENTIAL_TYPES as readonly string[]).includes(t));
    if (wrong.length) throw badRequest(`unrecognized credential_type "${wrong.join(",")}": must be ${CREDENTIAL_TYPES.join(", ")}`);
    role.credential_types = [...new Set(types)] as CredentialType[];
  }
  if (role.credential_types.length === 0) throw badRequest("did not supply credential_type");
  for (const field of ["role_arns", "policy_arns", "iam_groups"] as const) {
    const list = readStringList(body, field);
    if (list !== undefined) role[field] = list;
  }
  const document = readString(body, "policy_document");
  if (body.policy_document !== undefined) role.policy_document = document === undefined ? "" : compactPolicy("policy_document", document);
  const tags = readTags(body);
  if (tags !== undefined) role.iam_tags = tags;
  for (const field of ["default_sts_ttl", "max_sts_ttl"] as const) {
    if (body[field] !== undefined) role[field] = readDuration(body, field) ?? 0;
  }
  for (const field of ["user_path", "permissions_boundary_arn"] as const) {
    if (body[field] !== undefined) role[field] = readString(body, field) ?? "";
  }

  const has = (type: CredentialType) => role.credential_types.includes(type);
  const sts = has("assumed_role") || has("federation_token");
  if (role.role_arns.length > 0 && !has("assumed_role")) throw badRequest("cannot supply role_arns when not using assumed_role credential type");
  if (has("assumed_role") && role.role_arns.length === 0) throw badRequest("role_arns is required with credential type assumed_role");
  for (const type of ["iam_user", "federation_token"] as const) {
    if (has(type) && role.policy_arns.length === 0 && role.policy_document === "") {
      throw badRequest(`at least one of policy_arns or policy_document is required with credential type ${type}`);
    }
  }
  if (!sts && role.default_sts_ttl > 0) throw badRequest("default_sts_ttl is valid only with credential types assumed_role and federation_token");
  if (!sts && role.max_sts_ttl > 0) throw badRequest("max_sts_ttl is valid only with credential types assumed_role and federation_token");
  if (role.default_sts_ttl > 0 && role.max_sts_ttl > 0 && role.default_sts_ttl > role.max_sts_ttl) throw badRequest("default_sts_ttl cannot exceed max_sts_ttl");
  if (!has("iam_user")) {
    if (role.user_path !== "" && role.user_path !== "/") throw badRequest("user_path is valid only with credential type iam_user");
    if (role.permissions_boundary_arn !== "") throw badRequest("permissions_boundary_arn is valid only with credential type iam_user");
    role.user_path = "";
  } else {
    if (role.user_path === "") role.user_path = "/";
    if (!/^\/([\x21-\x7e]{0,510}\/)?$/.test(role.user_path)) throw badRequest(`invalid user_path "${role.user_path}": it must begin and end with '/'`);
    if (role.permissions_boundary_arn !== "" && !role.permissions_boundary_arn.startsWith("arn:")) {
      throw badRequest(`invalid permissions_boundary_arn "${role.permissions_boundary_arn}": not an ARN`);
    }
  }
  return role;
}

/** The fields a read answers. */
export function viewRole(role: StoredRole): Record<string, unknown> {
  const { invalid_data, ...rest } = structuredClone(role);
  return { ...rest, ...(invalid_data ? { invalid_data } : {}) };
}
