/**
 * Runs policies over resources without the Pulumi CLI and collects what they report: for a
 * program's own tests (through the engine harness) and this package's. The policies get the
 * arguments `@pulumi/policy` gives them (type, props, URN, name, their configuration).
 */
import type { EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";

/** A resource as the policies see it: its checked inputs. */
export interface PolicyTarget {
  urn: string;
  type: string;
  name: string;
  props: Record<string, unknown>;
}

export interface PolicyViolation {
  policy: string;
  message: string;
  /** The resource in violation; absent for the stack as a whole. */
  urn?: string;
}

/**
 * The resources a run plans or made, as the policies see them: every step of a harness run
 * (`engine.preview(program)` or `engine.up(program)`) that leaves a resource, with its checked
 * inputs. With a preview's result, a policy stops a change before it is made.
 */
export function policyTargetsOf(run: { steps: readonly { op: string; urn: string; type: string; name: string; inputs?: Record<string, unknown> }[] }): PolicyTarget[] {
  return run.steps.filter((s) => s.inputs !== undefined && s.op !== "delete").map((s) => ({ urn: s.urn, type: s.type, name: s.name, props: s.inputs! }));
}

/** Each policy's configuration, as a pack's config file gives it: `{ "<policy>": { ... } }`. */
export type PoliciesConfig = Record<string, Record<string, unknown> | undefined>;

function configOf(config: PoliciesConfig, name: string): Record<string, unknown> {
  const value = config[name];
  return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

/** Violations of every policy that is not disabled, resource by resource, then for the stack. */
export async function evaluatePolicies(
  policies: readonly (ResourceValidationPolicy | StackValidationPolicy)[],
  resources: readonly PolicyTarget[],
  config: PoliciesConfig = {},
): Promise<PolicyViolation[]> {
  const violations: PolicyViolation[] = [];
  const notApplicable = (): never => {
    throw Object.assign(new Error("not applicable"), { notApplicable: true });
  };
  const ignoreNotApplicable = (e: unknown) => {
    if (!(e as { notApplicable?: boolean }).notApplicable) throw e;
  };
  for (const policy of policies) {
    const settings = configOf(config, policy.name);
    const level = (settings.enforcementLevel as EnforcementLevel | undefined) ?? policy.enforcementLevel;
    if (level === "disabled") continue;
    const getConfig = <T extends object>() => settings as T;
    if ("validateResource" in policy && policy.validateResource) {
      const validations = Array.isArray(policy.validateResource) ? policy.validateResource : [policy.validateResource];
      for (const r of resources) {
        const args = {
          ...r,
          opts: {},
          stackTags: new Map<string, string>(),
          isType: (cls: { __pulumiType?: string }) => cls.__pulumiType === r.type,
          asType: (cls: { __pulumiType?: string }) => (cls.__pulumiType === r.type ? r.props : undefined),
          getConfig,
          notApplicable,
        };
        for (const validate of validations) {
          await (async () => validate(args as never, (message: string) => violations.push({ policy: policy.name, message, urn: r.urn })))().catch(ignoreNotApplicable);
        }
      }
    }
    if ("validateStack" in policy && policy.validateStack) {
      const args = {
        resources: resources.map((r) => ({ ...r, opts: {}, dependencies: [], propertyDependencies: {}, isType: () => false, asType: () => undefined })),
        stackTags: new Map<string, string>(),
        getConfig,
        notApplicable,
      };
      const validateStack = policy.validateStack;
      await (async () =>
        validateStack(args as never, (message: string, urn?: string) => violations.push({ policy: policy.name, message, ...(urn ? { urn } : {}) })))().catch(
        ignoreNotApplicable,
      );
    }
  }
  return violations;
}
