/**
 * The Pulumi engine's rules the harness follows, in one table. Each rule says what the engine does,
 * cites where the engine does it (pulumi/pulumi at the version `npm test` runs, v3.274.1: the file
 * under `pkg/` and the function), and names the real-engine tests that show the engine doing it; the
 * differential test (tests/support/differential.ts) holds the harness's steps to the CLI's for whole
 * programs. engine.ts marks the place where it applies a rule with `engine rule <name>`, and what a
 * rule decides alone (a URN, which outputs are secret, a refresh step's operation) is a function here.
 * tests/harness/engine-rules.test.ts checks that every rule is cited, shown under the real engine,
 * and applied, and that engine.ts cites the engine nowhere else.
 *
 * What is not here the harness does not do: what a test needs beyond these (the `import` resource
 * option, aliases, targets, transforms) runs under the real CLI.
 */

import type { PropertyChange } from "./provider-host";

export interface EngineRule {
  /** What the engine does, in a sentence a maintainer can check against the code cited. */
  says: string;
  /** Where: `pkg/<path>.go: <function>` in pulumi/pulumi. */
  follows: string[];
  /** The tests that show it under the real engine (tests/engine/), and the harness's own where one holds the harness to it. */
  shownBy: string[];
}

const EXAMPLES = "tests/engine/examples-life.test.ts";
const EVERY_TYPE = "tests/engine/every-type.test.ts";
const FLOWS = "tests/engine/flows.test.ts";
const OPTIONS = "tests/harness/resource-options.test.ts";

export const ENGINE_RULES = {
  urn: {
    says: "A resource's URN qualifies its type by its parent's whole qualified type, except when the parent is the stack.",
    follows: ["pkg/resource/deploy/deployment.go: Deployment.generateURN"],
    shownBy: [EXAMPLES, EVERY_TYPE],
  },
  checkThenDiff: {
    says: "Each registration is checked by its provider (the old inputs beside the new; any failure fails it, naming each property), then diffed against the state: the old outputs and inputs beside the checked new inputs.",
    follows: ["pkg/resource/deploy/step_generator.go: stepGenerator.generateResourceSteps", "pkg/resource/deploy/step_generator.go: stepGenerator.diff"],
    shownBy: [EXAMPLES, EVERY_TYPE, "tests/engine/plugin-typescript.test.ts"],
  },
  defaultProvider: {
    says: "A package's resources without an explicit provider go to its default provider, configured from the stack's settings of the package's namespace; its CheckConfig failures fail the run.",
    follows: ["pkg/resource/deploy/default_providers.go: defaultProviders.newRegisterDefaultProviderEvent", "pkg/resource/deploy/providers/registry.go: Registry.Check"],
    shownBy: [FLOWS, "tests/engine/plugin-typescript.test.ts"],
  },
  explicitProvider: {
    says: "An explicit provider's configuration is checked (CheckConfig) and diffed against its state (DiffConfig); a changed configuration is a new instance of the provider, and its resources go to it.",
    follows: ["pkg/resource/deploy/providers/registry.go: Registry.Check", "pkg/resource/deploy/providers/registry.go: Registry.Diff", "pkg/resource/deploy/providers/registry.go: Registry.Create"],
    shownBy: ["tests/engine/plugin-typescript.test.ts", EVERY_TYPE],
  },
  plainInputs: {
    says: "A provider that does not accept secrets (the dynamic provider host) receives every input plain; one that does (the plugin) receives them marked.",
    follows: ["pkg/resource/plugin/provider_plugin.go: removeSecrets"],
    shownBy: [FLOWS, EXAMPLES],
  },
  secretOutputs: {
    says: "From a provider that does not accept secrets, an output is secret where the input of the same key held a secret; outputs named in additionalSecretOutputs are secret whatever the provider answered.",
    follows: ["pkg/resource/plugin/provider_plugin.go: annotateSecrets", "pkg/resource/deploy/source_eval.go: resmon.RegisterResource"],
    shownBy: [FLOWS, EXAMPLES],
  },
  ignoreChanges: {
    says: "A property named in ignoreChanges takes its old input value before the check, so its change is neither planned nor made.",
    follows: ["pkg/resource/deploy/step_generator.go: processIgnoreChanges"],
    shownBy: [FLOWS, OPTIONS],
  },
  replaceOnChanges: {
    says: "A changed property named in replaceOnChanges replaces the resource, as a replacing change of the provider's does.",
    follows: ["pkg/resource/deploy/step_generator.go: applyReplaceOnChanges"],
    shownBy: [FLOWS, OPTIONS],
  },
  sameStep: {
    says: "A resource whose diff finds no change keeps its ID and outputs; its inputs become the program's. A preview writes no state.",
    follows: ["pkg/resource/deploy/step.go: SameStep.Apply"],
    shownBy: [EXAMPLES, EVERY_TYPE],
  },
  initErrors: {
    says: "A create that failed after making its object keeps the object in the state with its errors; the next up updates it even when the diff finds no change.",
    follows: ["pkg/resource/deploy/step.go: CreateStep.Apply", "pkg/resource/deploy/step_generator.go: applyReplaceOnChanges (hasInitErrors)"],
    shownBy: [FLOWS, EVERY_TYPE],
  },
  replacement: {
    says: "A replacement makes the new object, then deletes the old one; when the provider or deleteBeforeReplace asks, it deletes the old one first.",
    follows: ["pkg/resource/deploy/step_generator.go: stepGenerator.continueStepsFromDiff"],
    shownBy: [FLOWS, EVERY_TYPE],
  },
  pendingDelete: {
    says: "An old object whose delete failed during a replacement stays in the state, marked for deletion; a preview does not show it, and the next up deletes it after the program's steps (destroy with the rest).",
    follows: ["pkg/resource/deploy/step_generator.go: stepGenerator.GenerateDeletes", "pkg/resource/deploy/step.go: NewDeleteReplacementStep"],
    shownBy: [FLOWS, OPTIONS],
  },
  stopAtFailure: {
    says: "Once a step has failed, no new step starts; the run fails with every error.",
    follows: ["pkg/resource/deploy/step_executor.go: stepExecutor.cancelDueToError"],
    shownBy: [FLOWS, EVERY_TYPE],
  },
  deletes: {
    says: "Resources in the state that the program no longer declares are deleted after the program's steps, dependents (and an explicit provider's resources) before what they depend on, the rest in parallel.",
    follows: ["pkg/resource/deploy/step_generator.go: stepGenerator.GenerateDeletes", "pkg/resource/deploy/step_generator.go: stepGenerator.ScheduleDeletes"],
    shownBy: [EXAMPLES, FLOWS, OPTIONS],
  },
  protect: {
    says: "A protected resource is neither deleted nor replaced: the run fails before any delete, naming it.",
    follows: ["pkg/resource/deploy/step.go: DeleteStep.Apply", "pkg/resource/deploy/step_generator.go: stepGenerator.continueStepsFromDiff"],
    shownBy: [FLOWS, OPTIONS],
  },
  stateOnlyDelete: {
    says: "A delete of a resource with retainOnDelete, or deletedWith a resource deleted in the same run, removes it from the state and sends nothing.",
    follows: ["pkg/resource/deploy/step.go: DeleteStep.Apply", "pkg/resource/deploy/step.go: isDeletedWith"],
    shownBy: [FLOWS, OPTIONS],
  },
  readExternal: {
    says: "A resource read with `get` is external: read into the state, never deleted; it leaves the state when the program no longer reads it.",
    follows: ["pkg/resource/deploy/step_generator.go: stepGenerator.GenerateReadSteps", "pkg/resource/deploy/step.go: DeleteStep.Apply"],
    shownBy: [FLOWS],
  },
  refreshStep: {
    says: "A refresh reads each resource; one gone leaves the state; otherwise the provider diffs the read state against the inputs held before, and the step is `update` where it finds a change (the diff's kinds inverted) and `same` otherwise, whatever computed outputs moved. An external resource is compared by its outputs alone.",
    follows: ["pkg/resource/deploy/step.go: RefreshStep.Apply", "pkg/resource/deploy/step.go: RefreshStep.ResultOp"],
    shownBy: [EXAMPLES, EVERY_TYPE, FLOWS],
  },
  importCommand: {
    says: "`pulumi import` reads each object by its ID alone and checks the inputs read (failures are warnings, not errors); the imported resource's parent is the stack, and the code written holds the schema's input properties only.",
    follows: ["pkg/resource/deploy/step.go: ImportStep.Apply", "pkg/resource/deploy/import.go: NewImportDeployment"],
    shownBy: ["tests/engine/import.test.ts"],
  },
} satisfies Record<string, EngineRule>;

export type EngineRuleName = keyof typeof ENGINE_RULES;

type Props = Record<string, unknown>;

/** Engine rule urn: the URN of a resource of `type` named `name` under `parent`. */
export function urnOf(stack: string, project: string, type: string, name: string, parent?: string): string {
  const parentType = parent ? parent.split("::")[2] : "";
  const qualified = parentType && parentType !== "pulumi:pulumi:Stack" ? `${parentType}$${type}` : type;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** Engine rule ignoreChanges: the new inputs with each ignored property's old value (top-level keys). */
export function withIgnoredChanges(news: Props, oldInputs: Props | undefined, ignoreChanges: readonly string[]): Props {
  if (!oldInputs || !ignoreChanges.length) return news;
  const out = { ...news };
  for (const key of ignoreChanges) if (key in oldInputs) out[key] = oldInputs[key];
  return out;
}

/** Engine rule replaceOnChanges: the keys that replace, the provider's and the changed ones the program named. */
export function replacingKeys(providerReplaces: readonly string[], changed: readonly string[], replaceOnChanges: readonly string[]): string[] {
  return [...providerReplaces, ...replaceOnChanges.filter((k) => changed.includes(k) && !providerReplaces.includes(k))];
}

/**
 * Engine rule secretOutputs: the keys of the secret outputs, from those marked secret (by the plugin's
 * answer, or, for a provider that does not accept secrets, by the inputs) and those the program named.
 */
export function withAdditionalSecrets(secretKeys: readonly string[], additionalSecretOutputs: readonly string[]): string[] {
  return [...new Set([...secretKeys, ...additionalSecretOutputs])];
}

/** Engine rule refreshStep: a diff's kind as the refresh reports it (an up would undo what the refresh found). */
const INVERSE: Record<PropertyChange, PropertyChange> = { add: "delete", "add-replace": "delete-replace", delete: "add", "delete-replace": "add-replace", update: "update", "update-replace": "update-replace" };

export function invertedDiff(detailedDiff: Record<string, PropertyChange>): Record<string, PropertyChange> {
  return Object.fromEntries(Object.entries(detailedDiff).map(([k, kind]) => [k, INVERSE[kind]]));
}
