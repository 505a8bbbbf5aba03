/**
 * Policies routes of the secrets service emulator (`sys/policies/acl|rgp|egp`): three collections
 * of the system backend, stored per namespace under `policies/<kind>`.
 */
import { aclPolicyRefusal } from "./acl-documents";
import { addCollection } from "./collection";
import { readEnum, readString, readStringList } from "./fields";
import { badRequest } from "./replies";
import type { KeepRouter } from "./router";

export type PolicyKind = "acl" | "rgp" | "egp";
export const POLICY_KINDS: readonly PolicyKind[] = ["acl", "rgp", "egp"];

export const ENFORCEMENT_LEVELS = ["advisory", "soft-mandatory", "hard-mandatory"] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

export interface PolicyFields {
  policy: string;
  enforcement_level?: string;
  paths?: string[];
}

export interface StoredPolicy extends PolicyFields {
  name: string;
}

/** The policy fields of a read, as the service answers them (at the top level and in `data`). */
export type PolicyView =
  | { name: string; policy: string }
  | { name: string; policy: string; enforcement_level: string }
  | { enforcement_level: string; name: string; paths: string[]; policy: string };

/** Short stand-in for the service's built-in default policy: tokens may look after themselves. */
const DEFAULT_ACL_POLICY = `# Lets a token look up, renew and revoke itself.
path "auth/token/lookup-self" {
  capabilities = ["read"]
}

path "auth/token/renew-self" {
  capabilities = ["update"]
}

path "auth/token/revoke-self" {
  capabilities = ["update"]
}

# Lets a token check its own capabilities on a path.
path "sys/capabilities-self" {
  capabilities = ["update"]
}
`;

/** The service lower-cases and trims policy names, so `Ops` and `ops` are one policy. */
export function normalizePolicyName(name: string): string {
  return name.trim().toLowerCase();
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * The service decodes `policy` whenever it is valid base64. A short plain word can also be
 * valid base64, so the decoding is kept only when it is UTF-8 text without control characters.
 */
export function decodePolicyText(value: string): string {
  const compact = value.replace(/[\r\n]/g, "");
  if (compact === "" || !STRICT_BASE64.test(compact)) return value;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(compact, "base64"));
  } catch {
    return value;
  }
  return CONTROL_CHARACTERS.test(text) ? value : text;
}

/** Splits EGP paths into the list answer's form: a trailing `*` is a glob, stored without it. */
function namePathEntries(paths: readonly string[]) {
  return paths.map((path) => (path.endsWith("*") ? { path: path.slice(0, -1), glob: true } : { path, glob: false }));
}

/** The fields a read answers, in the service's order; `name` is the stored (normalised) name. */
export function viewPolicy(kind: PolicyKind, stored: PolicyFields, name: string): PolicyView {
  switch (kind) {
    case "acl":
      return { name, policy: stored.policy };
    case "rgp":
      return { name, policy: stored.policy, enforcement_level: stored.enforcement_level ?? "" };
    case "egp":
      return { enforcement_level: stored.enforcement_level ?? "", name, paths: [...(stored.paths ?? [])], policy: stored.policy };
  }
}

/** Storage kind of a policy kind in the system backend's store (the path under `sys/`). */
export const policyStorageKind = (kind: PolicyKind) => `policies/${kind}`;

const KIND_LABELS: Record<PolicyKind, string> = {
  acl: "ACL policy",
  rgp: "role governing policy (RGP)",
  egp: "endpoint governing policy (EGP)",
};

/** Every namespace starts with these two ACL policies; root grants everything and has no text. */
const ACL_SEED: Record<string, StoredPolicy> = {
  default: { name: "default", policy: DEFAULT_ACL_POLICY },
  root: { name: "root", policy: "" },
};

export function registerPolicyRoutes(router: KeepRouter): void {
  for (const kind of POLICY_KINDS) {
    const label = KIND_LABELS[kind];
    addCollection<StoredPolicy>(router.system, {
      path: `sys/policies/${kind}`,
      label,
      nameHelp: "Name of the policy; the service lower-cases it.",
      normalizeName: normalizePolicyName,
      seed: kind === "acl" ? ACL_SEED : undefined,
      view: (stored, name) => viewPolicy(kind, stored, name),
      listExtras:
        kind === "egp"
          ? (store, names) => ({
              name_path_map: Object.fromEntries(
                names.map((name) => [name, namePathEntries(store.get<StoredPolicy>(policyStorageKind(kind), name)?.paths ?? [])]),
              ),
            })
          : undefined,
      beforeWrite: (name) => {
        if (name === "") throw badRequest("policy name must be provided");
        if (name === "root") throw badRequest(`cannot update "root" policy`);
      },
      parse: (body, { name }) => {
        const stored: StoredPolicy = { name, policy: decodePolicyText(readString(body, "policy", { required: true })) };
        if (kind === "acl") {
          const refusal = aclPolicyRefusal(stored.policy);
          if (refusal) throw badRequest(refusal);
        }
        if (kind !== "acl") stored.enforcement_level = readEnum(body, "enforcement_level", ENFORCEMENT_LEVELS, { required: true });
        if (kind === "egp") {
          const paths = readStringList(body, "paths");
          if (!paths || paths.length === 0) throw badRequest("'paths' parameter not supplied or empty");
          stored.paths = paths;
        }
        return stored;
      },
      beforeDelete: (name) => {
        if (kind === "acl" && (name === "root" || name === "default")) throw badRequest(`cannot delete "${name}" policy`);
      },
      deleteSummary: kind === "egp" ? `Delete the ${label}, removing it from all its paths.` : undefined,
    });
  }
}
