/**
 * Policies routes of the secrets service emulator (`sys/policies/acl|rgp|egp`), with the
 * per-namespace policy store they read and write.
 */
import { readEnum, readString, readStringList } from "./fields";
import { badRequest, notFound, ok, requireListResults } from "./replies";
import type { KeepRouter } from "./router";
import type { KeepNamespace } from "./state";

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

/** Shapes of GET answers, exactly as the service returns them (bare objects). */
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

export function viewPolicy(kind: PolicyKind, stored: StoredPolicy): PolicyView {
  switch (kind) {
    case "acl":
      return { name: stored.name, policy: stored.policy };
    case "rgp":
      return { name: stored.name, policy: stored.policy, enforcement_level: stored.enforcement_level ?? "" };
    case "egp":
      return {
        enforcement_level: stored.enforcement_level ?? "",
        name: stored.name,
        paths: [...(stored.paths ?? [])],
        policy: stored.policy,
      };
  }
}

export class PolicyStore {
  private readonly byKind: Record<PolicyKind, Map<string, StoredPolicy>> = {
    // Every namespace starts with these two ACL policies; root grants everything and has no text.
    acl: new Map([
      ["default", { name: "default", policy: DEFAULT_ACL_POLICY }],
      ["root", { name: "root", policy: "" }],
    ]),
    rgp: new Map(),
    egp: new Map(),
  };

  get(kind: PolicyKind, name: string): StoredPolicy | undefined {
    const stored = this.byKind[kind].get(normalizePolicyName(name));
    return stored && { ...stored, paths: stored.paths && [...stored.paths] };
  }

  put(kind: PolicyKind, name: string, fields: PolicyFields): void {
    const normalized = normalizePolicyName(name);
    const stored: StoredPolicy = { name: normalized, policy: fields.policy };
    if (kind !== "acl") stored.enforcement_level = fields.enforcement_level;
    if (kind === "egp") stored.paths = [...(fields.paths ?? [])];
    this.byKind[kind].set(normalized, stored);
  }

  delete(kind: PolicyKind, name: string): boolean {
    return this.byKind[kind].delete(normalizePolicyName(name));
  }

  names(kind: PolicyKind): string[] {
    return [...this.byKind[kind].keys()].sort();
  }
}

export function policyStoreOf(namespace: KeepNamespace): PolicyStore {
  return namespace.moduleState("policies", () => new PolicyStore());
}

const KIND_LABELS: Record<PolicyKind, string> = {
  acl: "ACL policy",
  rgp: "role governing policy (RGP)",
  egp: "endpoint governing policy (EGP)",
};

export function registerPolicyRoutes(router: KeepRouter): void {
  for (const kind of POLICY_KINDS) {
    const label = KIND_LABELS[kind];

    router.add({
      path: `sys/policies/${kind}`,
      summary: `The ${label} collection.`,
      operations: {
        list: {
          summary: `List ${label} names.`,
          handler: ({ namespace }) => {
            const store = policyStoreOf(namespace);
            const keys = store.names(kind);
            requireListResults(keys);
            if (kind !== "egp") return ok({ keys });
            const namePathMap = Object.fromEntries(keys.map((name) => [name, namePathEntries(store.get(kind, name)!.paths ?? [])]));
            return ok({ keys, name_path_map: namePathMap });
          },
        },
      },
    });

    router.add({
      path: `sys/policies/${kind}/:name`,
      summary: `One ${label}, by case-insensitive name.`,
      params: { name: "Name of the policy; the service lower-cases it." },
      operations: {
        read: {
          summary: `Read the ${label}.`,
          handler: ({ namespace, params }) => {
            const stored = policyStoreOf(namespace).get(kind, params.name);
            if (!stored) throw notFound();
            return ok(viewPolicy(kind, stored));
          },
        },
        write: {
          summary: `Create or update the ${label}.`,
          handler: ({ namespace, params, body }) => {
            const name = normalizePolicyName(params.name);
            if (name === "") throw badRequest("policy name must be provided");
            if (name === "root") throw badRequest(`cannot update "root" policy`);
            const fields: PolicyFields = { policy: decodePolicyText(readString(body, "policy", { required: true })) };
            if (kind !== "acl") {
              fields.enforcement_level = readEnum(body, "enforcement_level", ENFORCEMENT_LEVELS, { required: true });
            }
            if (kind === "egp") {
              const paths = readStringList(body, "paths");
              if (!paths || paths.length === 0) throw badRequest("'paths' parameter not supplied or empty");
              fields.paths = paths;
            }
            policyStoreOf(namespace).put(kind, name, fields);
          },
        },
        delete: {
          summary:
            kind === "egp" ? `Delete the ${label}, removing it from all its paths.` : `Delete the ${label}.`,
          handler: ({ namespace, params }) => {
            const name = normalizePolicyName(params.name);
            if (kind === "acl" && (name === "root" || name === "default")) {
              throw badRequest(`cannot delete "${name}" policy`);
            }
            // Deleting an absent policy succeeds, as in the service.
            policyStoreOf(namespace).delete(kind, name);
          },
        },
      },
    });
  }
}
