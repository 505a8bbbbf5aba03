/**
 * `pulumi-keepstack/policy`: CrossGuard rules for programs of this package, for a policy pack:
 *
 * ```ts
 * // index.ts of a policy pack (PulumiPolicy.yaml beside it)
 * import { PolicyPack } from "@pulumi/policy";
 * import { keepstackPolicies } from "pulumi-keepstack/policy";
 * new PolicyPack("keepstack", { policies: keepstackPolicies({ workspaceAutoApply: { allowedNames: ["sandbox-*"] } }) });
 * ```
 *
 * The rules are plain objects of `@pulumi/policy`'s shapes: this module needs `@pulumi/policy` only
 * for its types, so a program's own dependencies stay as they are; a policy pack installs
 * `@pulumi/policy` itself, as every policy pack does. Rules that concern resource types find them in
 * the package's registry at run time, so resources added later are covered.
 */
import type {
  EnforcementLevel,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import * as fs from "node:fs";
import * as path from "node:path";
import { AnySpec, PLUGIN_TOKEN_PREFIX, shortTypeOf, tokenOf, TOKEN_PREFIX } from "../provider/spec";
import { AclDocument, AclDocumentError, AclPathRule, parseAclDocument } from "../resources/keep/policies/acl-document";
import { referenceableSecretInputs } from "./secret-inputs";
import { allSpecs } from "../resources/all-specs";

export type KeepstackPolicy = ResourceValidationPolicy | StackValidationPolicy;

/** Names of the rules, for `enforcementLevels` and for the pack's configuration. */
export const POLICY_NAMES = {
  egpWildcard: "keepstack-egp-wildcard-hard-mandatory",
  exportableTokenization: "keepstack-no-exportable-tokenization",
  secretsByReference: "keepstack-secrets-by-reference",
  skipTlsVerify: "keepstack-no-skip-tls-verify",
  workspaceAutoApply: "keepstack-workspace-auto-apply-allowed",
  acknowledgedOperations: "keepstack-acknowledged-operations-allowed-stacks",
  aclSudoOnSys: "keepstack-acl-no-sudo-on-sys",
  aclGrantOnEverything: "keepstack-acl-no-grant-on-everything",
} as const;

export type PolicyName = (typeof POLICY_NAMES)[keyof typeof POLICY_NAMES];

/** The stack configuration a stack runs with (`keep:skipTlsVerify`, ...), by stack name. */
export type StackConfigSource = (stack: string) => Record<string, string | undefined>;

export interface KeepstackPolicyOptions {
  /** Enforcement level per rule (default `mandatory` for each); the pack's configuration can override it. */
  enforcementLevels?: Partial<Record<PolicyName, EnforcementLevel>>;
  /** Workspaces whose `autoApply` may be true: names or patterns with `*`. Default: none. */
  workspaceAutoApply?: { allowedNames?: string[] };
  /**
   * Operations that wipe or lose data, allowed to run (acknowledged) only in some stacks: names or
   * patterns with `*`. `types` are short type tokens; default `["keep:ReplicationSecondaryEnable"]`.
   */
  acknowledgedOperations?: { allowedStacks?: string[]; types?: string[] };
  /**
   * Where the TLS rule reads the stack's configuration. The policy framework does not hand a stack's
   * config to policies: by default the rule reads `Pulumi.<stack>.yaml` in the directory `pulumi` runs
   * in (its working directory, as PWD tells) and the environment (`KEEP_SKIP_VERIFY`, ...), which the
   * provider host shares.
   */
  stackConfig?: StackConfigSource;
  /** ACL policies that may grant `sudo` under `sys/`: names or patterns with `*`. Default: none. */
  aclSudoOnSys?: { allowedPolicies?: string[] };
}

const specByType = new Map<string, AnySpec>(allSpecs.map((s) => [shortTypeOf(tokenOf(s)), s]));

/** The spec of a resource type of this package, by either door's token, or undefined for anyone else's. */
function specOf(type: string): AnySpec | undefined {
  return type.startsWith(TOKEN_PREFIX) || type.startsWith(PLUGIN_TOKEN_PREFIX) ? specByType.get(shortTypeOf(type)) : undefined;
}

/** `*` matches any run of characters; everything else is literal. */
export function matchesPattern(value: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => new RegExp(`^${p.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`).test(value));
}

/** The stack of a URN: `urn:pulumi:<stack>::<project>::...`. */
export function stackOfUrn(urn: string): string {
  return urn.split("::")[0].replace(/^urn:pulumi:/, "");
}

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim().replace(/^["']|["']$/g, ""));

/** Reads `<service>[-<cluster>]:<key>: value` lines of a stack file (plain values; secure ones are not settings of this rule). */
function readStackFile(file: string): Record<string, string> {
  const config: Record<string, string> = {};
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return config;
  }
  for (const m of text.matchAll(/^\s+([\w.-]+:[\w.-]+):\s*(.*?)\s*$/gm)) config[m[1]] = m[2];
  return config;
}

/** The default source: the stack's file where `pulumi` runs, then the environment. */
export const defaultStackConfig: StackConfigSource = (stack) => {
  const dir = process.env.PWD ?? process.cwd();
  return { ...readStackFile(path.join(dir, `Pulumi.${stack}.yaml`)) };
};

/** Settings that turn TLS verification off, found in stack config and the environment. */
function skipTlsSettings(config: Record<string, string | undefined>, env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(config)) if (/^(keep|workspaces|mesh)(-[a-z][a-z0-9-]*)?:skipTlsVerify$/.test(key) && truthy(value)) found.push(key);
  for (const [name, value] of Object.entries(env)) if (/^(KEEP|WORKSPACES|MESH)(_[A-Z0-9_]+)?_SKIP_VERIFY$/.test(name) && truthy(value)) found.push(name);
  return found.sort();
}

/**
 * The parsed document of an ACL policy resource, or undefined where there is none to read: another
 * type, a document not known yet (preview), or one the service would refuse (preview refuses it).
 */
export function aclDocumentOf(args: { type: string; props: Record<string, unknown> }): AclDocument | undefined {
  if (shortTypeOf(args.type) !== "keep:AclPolicy" || typeof args.props.policy !== "string") return undefined;
  try {
    return parseAclDocument(args.props.policy);
  } catch (e) {
    if (e instanceof AclDocumentError) return undefined;
    throw e;
  }
}

/** Whether a path rule can match a request path under `prefix` (a prefix rule, `+` segments and all). */
export function ruleReaches(rule: AclPathRule, prefix: string): boolean {
  const stored = rule.isPrefix ? rule.path.slice(0, -1) : rule.path;
  if (rule.isPrefix && prefix.startsWith(stored)) return true;
  const segments = stored.split("/");
  const wanted = prefix.split("/").filter((s) => s !== "");
  return wanted.every((w, i) => {
    const segment = segments[i];
    if (segment === undefined) return false;
    if (segment === "+") return true;
    const last = i === segments.length - 1;
    return segment === w || (last && rule.path.endsWith("*") && w.startsWith(segment.replace(/\*$/, "")));
  });
}

/** Every rule, with the options' settings. */
export function keepstackPolicies(options: KeepstackPolicyOptions = {}): KeepstackPolicy[] {
  const level = (name: PolicyName): EnforcementLevel => options.enforcementLevels?.[name] ?? "mandatory";
  const stringList = { type: "array", items: { type: "string" } } as const;

  const egpWildcard: ResourceValidationPolicy = {
    name: POLICY_NAMES.egpWildcard,
    description: 'An endpoint-governing policy on every path ("*") must be hard-mandatory.',
    enforcementLevel: level(POLICY_NAMES.egpWildcard),
    validateResource: (args: ResourceValidationArgs, report: ReportViolation) => {
      if (shortTypeOf(args.type) !== "keep:EgpPolicy") return;
      const paths: unknown[] = Array.isArray(args.props.paths) ? args.props.paths : [];
      if (paths.includes("*") && args.props.enforcementLevel !== "hard-mandatory") {
        report(`EGP "${args.props.name}" governs every path ("*") at enforcement level ${args.props.enforcementLevel ?? "(unset)"}: it must be hard-mandatory`);
      }
    },
  };

  const exportableTokenization: ResourceValidationPolicy = {
    name: POLICY_NAMES.exportableTokenization,
    description: "No tokenization transformation with the exportable mapping mode (its tokens can be decoded back to the values in bulk).",
    enforcementLevel: level(POLICY_NAMES.exportableTokenization),
    validateResource: (args, report) => {
      if (shortTypeOf(args.type) !== "keep:TransformTransformation") return;
      if (args.props.mappingMode === "exportable") report(`transformation "${args.props.name}" uses mappingMode "exportable": use "default"`);
    },
  };

  const secretsByReference: ResourceValidationPolicy = {
    name: POLICY_NAMES.secretsByReference,
    description: "Credentials are given by reference ({ fromConfig }, { fromEnv }, { fromFile }), never as plain values, where the input takes a reference.",
    enforcementLevel: level(POLICY_NAMES.secretsByReference),
    validateResource: (args, report) => {
      const spec = specOf(args.type);
      if (!spec) return;
      for (const key of referenceableSecretInputs(spec)) {
        const value = args.props[key];
        if (typeof value === "string" && value !== "") {
          report(`${key} is given as a value: give it by reference, e.g. { fromConfig: "<project>:<key>" } with \`pulumi config set --secret\`, so it stays out of the state`);
        }
      }
    },
  };

  const skipTlsVerify: StackValidationPolicy = {
    name: POLICY_NAMES.skipTlsVerify,
    description: "TLS certificate verification stays on (no skipTlsVerify in stack config, no *_SKIP_VERIFY in the environment).",
    enforcementLevel: level(POLICY_NAMES.skipTlsVerify),
    validateStack: (args: StackValidationArgs, report: ReportViolation) => {
      const ours = args.resources.filter((r) => specOf(r.type));
      if (ours.length === 0) return;
      const stack = stackOfUrn(ours[0].urn);
      const found = skipTlsSettings((options.stackConfig ?? defaultStackConfig)(stack), options.stackConfig ? {} : process.env);
      if (found.length) report(`TLS verification is turned off by ${found.join(", ")}: give the service's CA instead (caCert)`);
    },
  };

  const workspaceAutoApply: ResourceValidationPolicy = {
    name: POLICY_NAMES.workspaceAutoApply,
    description: "Workspaces apply runs automatically only where allowed (config allowedNames: names or patterns with *).",
    enforcementLevel: level(POLICY_NAMES.workspaceAutoApply),
    configSchema: { properties: { allowedNames: stringList } },
    validateResource: (args, report) => {
      if (shortTypeOf(args.type) !== "workspaces:Workspace" || args.props.autoApply !== true) return;
      const allowed = args.getConfig<{ allowedNames?: string[] }>().allowedNames ?? options.workspaceAutoApply?.allowedNames ?? [];
      const name = String(args.props.name);
      if (!matchesPattern(name, allowed)) report(`workspace "${name}" has autoApply: true, allowed only for ${allowed.length ? allowed.join(", ") : "no workspace"}`);
    },
  };

  const acknowledgedOperations: ResourceValidationPolicy = {
    name: POLICY_NAMES.acknowledgedOperations,
    description: "Operations that wipe or may lose data (a secondary enable) are acknowledged only in the stacks allowed (config allowedStacks, types).",
    enforcementLevel: level(POLICY_NAMES.acknowledgedOperations),
    configSchema: { properties: { allowedStacks: stringList, types: stringList } },
    validateResource: (args, report) => {
      const config = args.getConfig<{ allowedStacks?: string[]; types?: string[] }>();
      const types = config.types ?? options.acknowledgedOperations?.types ?? ["keep:ReplicationSecondaryEnable"];
      const spec = specOf(args.type);
      if (!spec || !types.includes(shortTypeOf(args.type)) || spec.kind !== "operation") return;
      const acknowledged = (spec.acknowledgements ?? []).filter((a) => args.props[a.input] === true).map((a) => a.input);
      if (acknowledged.length === 0) return;
      const allowed = config.allowedStacks ?? options.acknowledgedOperations?.allowedStacks ?? [];
      const stack = stackOfUrn(args.urn);
      if (!matchesPattern(stack, allowed)) {
        report(`${shortTypeOf(args.type)} "${args.name}" is acknowledged (${acknowledged.join(", ")}) in stack "${stack}", allowed only in ${allowed.length ? allowed.join(", ") : "no stack"}`);
      }
    },
  };

  const aclSudoOnSys: ResourceValidationPolicy = {
    name: POLICY_NAMES.aclSudoOnSys,
    description: "No ACL policy grants sudo under sys/ unless it is allowed (config allowedPolicies: names or patterns with *).",
    enforcementLevel: level(POLICY_NAMES.aclSudoOnSys),
    configSchema: { properties: { allowedPolicies: stringList } },
    validateResource: (args, report) => {
      const document = aclDocumentOf(args);
      if (!document) return;
      const allowed = args.getConfig<{ allowedPolicies?: string[] }>().allowedPolicies ?? options.aclSudoOnSys?.allowedPolicies ?? [];
      const name = String(args.props.name);
      if (matchesPattern(name, allowed)) return;
      for (const rule of document.paths) {
        if (rule.capabilities.includes("sudo") && ruleReaches(rule, "sys/")) {
          report(`ACL policy "${name}" grants sudo on path "${rule.path}" (line ${rule.line}), which reaches sys/: allowed only for ${allowed.length ? allowed.join(", ") : "no policy"}`);
        }
      }
    },
  };

  const aclGrantOnEverything: ResourceValidationPolicy = {
    name: POLICY_NAMES.aclGrantOnEverything,
    description: 'No ACL policy grants anything on every path ("*", or "+/*" and the like).',
    enforcementLevel: level(POLICY_NAMES.aclGrantOnEverything),
    validateResource: (args, report) => {
      const document = aclDocumentOf(args);
      if (!document) return;
      for (const rule of document.paths) {
        const everything = rule.path === "*" || /^(\+\/)*\+?\/?\*$/.test(rule.path);
        const grants = rule.capabilities.filter((c) => c !== "deny");
        if (everything && grants.length > 0) report(`ACL policy "${args.props.name}" grants ${grants.join(", ")} on path "${rule.path}" (line ${rule.line}), which matches every path`);
      }
    },
  };

  return [egpWildcard, exportableTokenization, secretsByReference, skipTlsVerify, workspaceAutoApply, acknowledgedOperations, aclSudoOnSys, aclGrantOnEverything];
}

export { parseAclDocument, capabilitiesOn, AclDocumentError, CAPABILITIES } from "../resources/keep/policies/acl-document";
export type { AclDocument, AclPathRule, Capability } from "../resources/keep/policies/acl-document";

export { evaluatePolicies, policyTargetsOf, policyTargetsOfState } from "./evaluate";
export type { PolicyViolation, PolicyTarget } from "./evaluate";
