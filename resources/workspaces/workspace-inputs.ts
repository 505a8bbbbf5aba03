/**
 * The inputs of a workspace: the spec's attribute table (create defaults, rules) as a zod schema, so
 * `check` reports every broken rule in preview, each naming the property.
 */
import { z } from "zod";
import { isUnknown } from "../../provider/unknowns";

/** The service's own limit on name length (not in the spec; longer names are refused). */
const NAME_MAX_LENGTH = 90;
const VERSION = String.raw`\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?`;
const OPERATOR = String.raw`(?:=|!=|>=|<=|>|<|~>)?`;
const VERSION_CONSTRAINT = new RegExp(`^\\s*${OPERATOR}\\s*${VERSION}(?:\\s*,\\s*${OPERATOR}\\s*${VERSION})*\\s*$`);
const EXACT_VERSION = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;
/** Health assessments need this tool version or later. */
const ASSESSMENTS_MIN_VERSION = [0, 15, 4];
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export const workspaceName = z
  .string()
  .min(1, "must not be empty")
  .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
  .regex(/^[A-Za-z0-9_-]+$/, "may contain only letters, digits, '-' and '_'");

export const organizationName = z
  .string()
  .min(1, "must not be empty")
  .refine((s) => !s.includes("/"), "must not contain '/'");

export const executionModes = ["remote", "local", "agent"] as const;
export type ExecutionMode = (typeof executionModes)[number];

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** The repository a workspace is linked to. */
export const vcsRepoInput = z
  .object({
    /** `<org>/<repo>`; for the dev-ops host `<org>/<project>/_git/<repo>`. */
    identifier: z
      .string()
      .regex(
        /^(?:[^/\s]+\/[^/\s]+|[^/\s]+\/[^/\s]+\/_git\/[^/\s]+)$/,
        "must be <org>/<repo> (or <org>/<project>/_git/<repo> for the dev-ops host)",
      ),
    /** Branch to follow; empty or absent means the repository's default branch. */
    branch: z.string().optional(),
    /** Fetch submodules when cloning. Default false. */
    ingressSubmodules: z.boolean().default(false),
    /** VCS connection (`ot-…`). Give this or `githubAppInstallationId`, not both. */
    oauthTokenId: z.string().min(1, "must not be empty").optional(),
    /**
     * Installation of the repository-host application (`ghain-…`). Give this or `oauthTokenId`, not
     * both. The service takes it on update only, so a new workspace is created first and linked next.
     */
    githubAppInstallationId: z.string().min(1, "must not be empty").optional(),
    /** Regular expression matched against Git tags; a run starts on a VCS event with a matching tag. */
    tagsRegex: z.string().refine(isValidRegex, "must be a valid regular expression").optional(),
  })
  .strict()
  .superRefine(
    (repo, ctx) => {
      // The rule runs even when the shape is wrong (`when`): a null or non-object value already has its issue.
      if (repo === null || typeof repo !== "object" || Array.isArray(repo)) return;
      const oauth = repo.oauthTokenId;
      const app = repo.githubAppInstallationId;
      if (isUnknown(oauth) || isUnknown(app)) return;
      if (oauth !== undefined && app !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["githubAppInstallationId"],
          message: "cannot be given together with oauthTokenId: link the repository through one of them",
        });
      } else if (oauth === undefined && app === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["oauthTokenId"],
          message: "is required (or githubAppInstallationId instead): the repository needs a VCS connection",
        });
      }
    },
    { when: () => true },
  );

/** Keys with organization-level defaults; false hands the setting back to the organization's default. */
export const settingOverwritesInput = z
  .object({
    /** Whether the workspace's `executionMode` overrides the organization default. */
    executionMode: z.boolean().optional(),
    /** Whether the workspace's agent pool overrides the organization default. */
    agentPool: z.boolean().optional(),
  })
  .strict();

export const workspaceInputShape = {
  /** Name: letters, digits, `-` and `_`; unique in the organization. Changing it renames the workspace in place. */
  name: workspaceName,
  /** Organization of the workspace, overriding `workspaces:organization`. Changing it replaces the workspace. */
  organization: organizationName.optional(),
  /** Description shown by the service. */
  description: z.string().optional(),
  /** Agent pool (`apool-…`) running the workspace's runs: required with `executionMode: "agent"`, forbidden otherwise. */
  agentPoolId: z.string().min(1, "must not be empty").optional(),
  /** Whether destroy plans can be queued. Default true. */
  allowDestroyPlan: z.boolean().default(true),
  /**
   * Health assessments (formerly drift detection). Default false. Top paid tier only, tool version
   * 0.15.4 or later, remote (or agent) execution; the organization setting `assessments-enforced` may force it.
   */
  assessmentsEnabled: z.boolean().default(false),
  /** Apply automatically after a successful plan (VCS, UI and command-line runs). Default false. */
  autoApply: z.boolean().default(false),
  /** Apply automatically runs started by run triggers. Default false. */
  autoApplyRunTrigger: z.boolean().default(false),
  /** ISO 8601 timestamp of the next scheduled destroy run. */
  autoDestroyAt: z
    .string()
    .refine((s) => ISO_TIMESTAMP.test(s) && !Number.isNaN(Date.parse(s)), "must be an ISO 8601 timestamp such as 2030-01-31T18:00:00Z")
    .optional(),
  /** Destroy after this long without activity: 1 to 4 digits, greater than 0, then `d` or `h` (`14d`, `48h`). */
  autoDestroyActivityDuration: z
    .string()
    .regex(/^\d{1,4}[dh]$/, "must be a number of at most four digits followed by the unit d or h, such as 14d or 48h")
    .refine((s) => !/^\d+/.test(s) || Number.parseInt(s, 10) > 0, "must be greater than 0")
    .optional(),
  /**
   * `remote`, `local` (state storage only) or `agent`. Absent: left to the service (the organization
   * default at creation); `settingOverwrites: { executionMode: false }` hands it back to the organization
   * default. Never together with `operations`.
   */
  executionMode: z.enum(executionModes, { error: "must be one of remote, local, agent" }).optional(),
  /** Start runs only for changed files selected by `triggerPrefixes` or `triggerPatterns`. Default true. */
  fileTriggersEnabled: z.boolean().default(true),
  /** Every workspace of the organization may read this workspace's state. Default false. */
  globalRemoteState: z.boolean().default(false),
  /** Deprecated: use `executionMode`. false means state storage only. Never together with `executionMode`. */
  operations: z.boolean().optional(),
  /** Queue runs as soon as the workspace is created. Default false. */
  queueAllRuns: z.boolean().default(false),
  /** Shown as "created via <sourceName>". Set on creation only: changing it replaces the workspace. */
  sourceName: z.string().min(1, "must not be empty").optional(),
  /** Link shown with `sourceName`. Set on creation only: changing it replaces the workspace. */
  sourceUrl: z
    .string()
    .regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL")
    .optional(),
  /** Automatic speculative plans on pull requests. Default true. */
  speculativeEnabled: z.boolean().default(true),
  /** Tool version: an exact version or a constraint such as `~> 1.9`. Absent: left to the service (the latest release at creation). */
  iacVersion: z
    .string()
    .refine((s) => s.trim() === "latest" || VERSION_CONSTRAINT.test(s), "must be a version such as 1.9.5 or a constraint such as ~> 1.9")
    .optional(),
  /** Glob patterns (from the repository root) of files whose change starts a run. Not together with `triggerPrefixes`. */
  triggerPatterns: z.array(z.string().min(1, "must not be empty")).default([]),
  /** Path prefixes (from the repository root) watched besides the working directory. Not together with `triggerPatterns`. */
  triggerPrefixes: z.array(z.string().min(1, "must not be empty")).default([]),
  /** Relative path in the repository where runs execute; absent means the root. */
  workingDirectory: z
    .string()
    .refine((s) => !s.startsWith("/") && !s.split("/").includes(".."), "must be a relative path inside the repository")
    .optional(),
  /** Which organization defaults this workspace overrides; `executionMode: true` needs `executionMode`. */
  settingOverwrites: settingOverwritesInput.optional(),
  /** Repository linked to the workspace. Removing it from the program unlinks the repository. */
  vcsRepo: vcsRepoInput.optional(),
  /** Project (`prj-…`) to create the workspace in (default: the organization's default project); changing it moves the workspace, removing it leaves the workspace where it is. */
  projectId: z.string().min(1, "must not be empty").optional(),
  /**
   * With `adopt: true`: the ID (`ws-…`) of the workspace to adopt. Without it adoption finds the
   * workspace by organization and name. Used at creation only.
   */
  adoptId: z
    .string()
    .regex(/^ws-[A-Za-z0-9]+$/, "must be a workspace ID (ws-…)")
    .optional(),
};

type Issue = { path: string[]; message: string };

/** Rules between attributes (the spec's "Rule" column). Unknown values skip the rules they take part in. */
export function workspaceRuleIssues(inputs: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  // A value of the wrong type has its own issue: the rules between attributes take only well-typed ones.
  const expected: Record<string, string> = { executionMode: "string", operations: "boolean", agentPoolId: "string" };
  const given = (key: string) => inputs[key] !== undefined && (expected[key] === undefined || typeof inputs[key] === expected[key] || isUnknown(inputs[key]));
  const anyUnknown = (...keys: string[]) => keys.some((k) => isUnknown(inputs[k]));
  const mode = inputs.executionMode;
  const operations = inputs.operations;
  const overwrites = inputs.settingOverwrites as { executionMode?: unknown } | undefined;

  if (given("executionMode") && given("operations") && !anyUnknown("executionMode", "operations")) {
    issues.push({
      path: ["operations"],
      message: "must not be given together with executionMode (operations is deprecated: keep executionMode alone)",
    });
  }

  if (given("agentPoolId") && !anyUnknown("agentPoolId", "executionMode", "operations")) {
    if (given("operations")) {
      issues.push({
        path: ["agentPoolId"],
        message: `must not be set when operations is ${operations}: an agent pool needs executionMode "agent" (and no operations)`,
      });
    } else if (mode === "remote" || mode === "local") {
      issues.push({ path: ["agentPoolId"], message: `must not be set when executionMode is "${mode}": it is used only with "agent"` });
    } else if (mode === undefined) {
      issues.push({ path: ["agentPoolId"], message: 'needs executionMode: "agent"' });
    }
  }
  if (mode === "agent" && !given("agentPoolId")) {
    issues.push({ path: ["agentPoolId"], message: 'is required when executionMode is "agent"' });
  }

  if (overwrites && typeof overwrites === "object" && !isUnknown(overwrites) && !anyUnknown("executionMode")) {
    if (overwrites.executionMode === true && !given("executionMode")) {
      issues.push({ path: ["executionMode"], message: "is required when settingOverwrites.executionMode is true" });
    }
    if (overwrites.executionMode === false && (given("executionMode") || given("operations"))) {
      issues.push({
        path: ["settingOverwrites", "executionMode"],
        message: `is false, so the organization's default execution mode applies and ${given("executionMode") ? "executionMode" : "operations"} would be ignored: remove one of them`,
      });
    }
  }

  const prefixes = inputs.triggerPrefixes;
  const patterns = inputs.triggerPatterns;
  if (Array.isArray(prefixes) && Array.isArray(patterns) && prefixes.length > 0 && patterns.length > 0) {
    issues.push({
      path: ["triggerPatterns"],
      message: "must not be given together with triggerPrefixes: the service selects changed files by one or the other",
    });
  }

  if (inputs.assessmentsEnabled === true && !anyUnknown("executionMode", "operations", "iacVersion")) {
    if (mode === "local" || operations === false) {
      issues.push({ path: ["assessmentsEnabled"], message: "needs remote (or agent) execution, not state storage only" });
    }
    const exact = typeof inputs.iacVersion === "string" ? EXACT_VERSION.exec(inputs.iacVersion.trim()) : null;
    if (exact && compareVersions(exact.slice(1, 4).map(Number), ASSESSMENTS_MIN_VERSION) < 0) {
      issues.push({ path: ["assessmentsEnabled"], message: `needs iacVersion ${ASSESSMENTS_MIN_VERSION.join(".")} or later` });
    }
  }
  return issues;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export const workspaceInputs = z.object(workspaceInputShape).superRefine(
  (inputs, ctx) => {
    for (const issue of workspaceRuleIssues(inputs as Record<string, unknown>)) ctx.addIssue({ code: "custom", ...issue });
  },
  { when: () => true },
);

export type WorkspaceInputs = z.output<typeof workspaceInputs>;
export type VcsRepoInputs = z.output<typeof vcsRepoInput>;
