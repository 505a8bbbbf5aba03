/**
 * Runs policies over resources without a policy pack run and collects what they report: for a
 * program's own tests (on a stack's state, or a run of this repository's engine harness) and this
 * package's. The policies get the
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

/** A resource of an exported stack (`stack.exportStack()` of the Automation API, `pulumi stack export`). */
interface ExportedResource {
  urn: string;
  type: string;
  custom?: boolean;
  inputs?: Record<string, unknown>;
}

/**
 * The resources a stack holds, as the policies see them: every custom resource of an exported
 * deployment (`await stack.exportStack()`), providers aside, with its inputs. Secret inputs stay as
 * the state keeps them, encrypted: a rule reading one meets the state's envelope, not the value.
 */
export function policyTargetsOfState(exported: { deployment?: { resources?: readonly ExportedResource[] } }): PolicyTarget[] {
  return (exported.deployment?.resources ?? [])
    .filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"))
    .map((r) => ({ urn: r.urn, type: r.type, name: r.urn.slice(r.urn.lastIndexOf("::") + 2), props: r.inputs ?? {} }));
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
