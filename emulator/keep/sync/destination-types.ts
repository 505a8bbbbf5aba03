/**
 * The five sync destination types as the spec's table gives them: parameters, which are required,
 * which are sensitive (obfuscated on read), the default granularity, whether custom tags apply, and
 * the default secret name template of each.
 */
import * as fs from "node:fs";
import { RequestBody } from "../fields";
import { badRequest } from "../replies";

export type DestinationType = "cloudA-sm" | "cloudB-kv" | "cloudC-sm" | "repohost" | "webhost-project";
export const DESTINATION_TYPES: readonly DestinationType[] = ["cloudA-sm", "cloudB-kv", "cloudC-sm", "repohost", "webhost-project"];

export type Granularity = "secret-path" | "secret-key";
export const GRANULARITIES: readonly Granularity[] = ["secret-path", "secret-key"];

export const WEBHOST_ENVIRONMENTS = ["development", "preview", "production"] as const;

export interface ParameterRule {
  wire: string;
  kind: "string" | "list";
  required?: boolean;
  /** Obfuscated as asterisks on read. */
  sensitive?: boolean;
  /** Allowed values of a list's items. */
  allowed?: readonly string[];
}

export interface DestinationTypeRules {
  parameters: readonly ParameterRule[];
  granularity: Granularity;
  /** Whether `custom_tags` applies to the type. */
  tags: boolean;
  /** Default secret name templates, by granularity. */
  templates: Record<Granularity, string>;
  /** Rules between parameters; `stored` is the merged connection details. */
  check?(stored: Record<string, unknown>, apps: (name: string) => boolean): void;
}

const SLASHED = (sep: string) => ({
  "secret-path": `keep${sep}{{ .MountAccessor }}${sep}{{ .SecretPath${sep === "/" ? "" : ` | replace "/" "${sep}"`} }}`,
  "secret-key": `keep${sep}{{ .MountAccessor }}${sep}{{ .SecretPath${sep === "/" ? "" : ` | replace "/" "${sep}"`} }}${sep}{{ .SecretKey }}`,
});

/** Environment-variable style: `KEEP_<ACCESSOR>_<PATH>_<KEY>`. */
const UPPER = {
  "secret-path": 'KEEP_{{ .MountAccessor | uppercase }}_{{ .SecretPath | replace "/" "_" | replace "-" "_" | uppercase }}',
  "secret-key": 'KEEP_{{ .MountAccessor | uppercase }}_{{ .SecretPath | replace "/" "_" | replace "-" "_" | uppercase }}_{{ .SecretKey | replace "-" "_" | uppercase }}',
};

const requireGiven = (stored: Record<string, unknown>, field: string, why: string) => {
  if (stored[field] === undefined || stored[field] === "") throw badRequest(`'${field}' parameter not supplied or empty: ${why}`);
};

export const DESTINATION_RULES: Record<DestinationType, DestinationTypeRules> = {
  "cloudA-sm": {
    parameters: [
      { wire: "access_key_id", kind: "string", sensitive: true },
      { wire: "secret_access_key", kind: "string", sensitive: true },
      { wire: "role_arn", kind: "string" },
      { wire: "external_id", kind: "string" },
      { wire: "region", kind: "string" },
    ],
    granularity: "secret-path",
    tags: true,
    templates: SLASHED("/"),
  },
  "cloudB-kv": {
    parameters: [
      { wire: "key_vault_uri", kind: "string", required: true },
      { wire: "client_id", kind: "string", required: true },
      { wire: "client_secret", kind: "string", required: true, sensitive: true },
      { wire: "tenant_id", kind: "string", required: true },
      { wire: "cloud", kind: "string" },
    ],
    granularity: "secret-path",
    tags: true,
    templates: SLASHED("-"),
  },
  "cloudC-sm": {
    parameters: [
      { wire: "credentials", kind: "string", required: true, sensitive: true },
      { wire: "project_id", kind: "string" },
    ],
    granularity: "secret-path",
    tags: true,
    templates: SLASHED("/"),
    check(stored) {
      credentialsProject(String(stored.credentials));
    },
  },
  repohost: {
    parameters: [
      { wire: "access_token", kind: "string", sensitive: true },
      { wire: "app_name", kind: "string" },
      { wire: "installation_id", kind: "string" },
      { wire: "repository_owner", kind: "string", required: true },
      { wire: "repository_name", kind: "string", required: true },
    ],
    granularity: "secret-key",
    tags: false,
    templates: UPPER,
    check(stored, apps) {
      const app = stored.app_name;
      if (!stored.access_token && !app) throw badRequest("'access_token' or 'app_name' is required: the destination needs a token or a custom application");
      if (app) {
        requireGiven(stored, "installation_id", "it is required when 'app_name' is used");
        if (!apps(String(app))) throw badRequest(`'app_name': no custom application "${app}" is configured (sys/sync/github-apps/${app})`);
      }
    },
  },
  "webhost-project": {
    parameters: [
      { wire: "access_token", kind: "string", required: true, sensitive: true },
      { wire: "project_id", kind: "string", required: true },
      { wire: "team_id", kind: "string" },
      { wire: "deployment_environments", kind: "list", required: true, allowed: WEBHOST_ENVIRONMENTS },
    ],
    granularity: "secret-key",
    tags: false,
    templates: UPPER,
  },
};

export function isDestinationType(type: string): type is DestinationType {
  return (DESTINATION_TYPES as readonly string[]).includes(type);
}

/**
 * The project of `cloudC-sm` credentials: JSON text, or `@<path>` of a file holding it (read where
 * the service runs). Throws a 400 naming `credentials` when neither reads as a JSON object.
 */
export function credentialsProject(credentials: string): string | undefined {
  let text = credentials;
  if (credentials.startsWith("@")) {
    try {
      text = fs.readFileSync(credentials.slice(1), "utf8");
    } catch (e) {
      throw badRequest(`'credentials': cannot read the file ${credentials.slice(1)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest("'credentials' must be JSON credentials content or @<path> of a file holding it");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("'credentials' must be a JSON object");
  const project = (parsed as Record<string, unknown>).project_id;
  return typeof project === "string" ? project : undefined;
}

/** A parameter's value from a request body, by its rule; undefined when absent. */
export function readParameter(body: RequestBody, rule: ParameterRule): unknown {
  const value = body[rule.wire];
  if (value === undefined || value === null) return undefined;
  if (rule.kind === "string") {
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    if (typeof value !== "string") throw badRequest(`'${rule.wire}' must be a string`);
    return value;
  }
  const items = typeof value === "string" ? value.split(",").map((s) => s.trim()).filter((s) => s !== "") : value;
  if (!Array.isArray(items) || items.some((i) => typeof i !== "string")) throw badRequest(`'${rule.wire}' must be a list of strings`);
  for (const item of items as string[]) {
    if (rule.allowed && !rule.allowed.includes(item)) throw badRequest(`invalid '${rule.wire}' value "${item}": must be one of ${rule.allowed.join(", ")}`);
  }
  return [...(items as string[])];
}
