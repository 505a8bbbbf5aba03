/**
 * The machine of an operation declared as a resource (ARCHITECTURE.md, "Operations are resources"), in the manner of
 * `@pulumi/command`: `create` runs the operation once; nothing runs in preview; any input change
 * and `triggers` run it again (a replacement whose old half does nothing); refresh keeps it and may
 * report the service's status; `delete` undoes it only when the spec declares an undo and the
 * program asks for it. Before acting it reads the current state, so a re-run after lost state does
 * not repeat a destructive step.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { OperationContext } from "./context";
import {
  canonical,
  connectionProblems,
  DiffResult,
  fingerprintReferences,
  Machine,
  plannedOutputs,
  Props,
  ResourceOperationError,
  resolveReferences,
  toPlainJson,
  withoutProvider,
} from "./object-machine";
import { OperationSpec, shortTypeOf, tokenOf } from "./spec";
import { containsUnknown, isUnknown } from "./unknowns";
import { CheckFailure, validateInputs } from "./validate";

/** The input every operation takes: any values; a change runs the operation again. */
export const TRIGGERS_KEY = "triggers";

/** The schema the machine validates: the spec's inputs, strict, plus `triggers`. */
export function operationSchema(spec: OperationSpec) {
  return spec.inputs.extend({ [TRIGGERS_KEY]: z.array(z.unknown()).optional() }).strict();
}

/** Unique per run: the type, the spec's label, and random bits. */
function runId(spec: OperationSpec, inputs: Props): string {
  const label = spec.label?.(inputs as never) ?? spec.type;
  const prefix = typeof inputs.cluster === "string" ? `${inputs.cluster}@` : "";
  return `${prefix}${label}-${randomBytes(6).toString("hex")}`;
}

export function createOperationMachine(spec: OperationSpec, context: () => OperationContext): Machine {
  const token = tokenOf(spec);
  const schema = operationSchema(spec);
  const inputKeys = [...Object.keys(spec.inputs.shape), TRIGGERS_KEY];
  const undoKey = spec.undo?.input;

  const fail = (id: string, operation: string, cause: unknown): never => {
    throw new ResourceOperationError(token, id, operation, cause);
  };

  const parse = (props: Props): Props => {
    const result = validateInputs(schema, withoutProvider(props));
    if (result.failures.length) {
      throw new Error(`${token}: invalid inputs: ${result.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    }
    return result.value as Props;
  };

  /** Irreversible operations run only when acknowledged; checked in preview. */
  const acknowledgementFailures = (inputs: Props, complete: boolean): CheckFailure[] =>
    (spec.acknowledgements ?? []).flatMap((ack) => {
      const value = inputs[ack.input];
      if (isUnknown(value) || value === true) return [];
      if (ack.when && !complete) return []; // Its condition is not known yet.
      if (ack.when && !ack.when(inputs as never)) return [];
      return [{ property: ack.input, reason: `must be true to run this operation, accepting that ${ack.accepts}` }];
    });

  return {
    token,
    inputKeys,
    plan: plannedOutputs,

    async check(olds, news) {
      const result = validateInputs(schema, withoutProvider(news));
      const inputs = (result.value as Props | undefined) ?? withoutProvider(news);
      const failures = [...result.failures, ...acknowledgementFailures(inputs, result.value !== undefined)];
      if (result.value) failures.push(...fingerprintReferences(inputs, olds, context()), ...connectionProblems(spec.module, inputs.cluster, context));
      return { inputs, failures };
    },

    async diff(_id, olds, news): Promise<DiffResult> {
      const changed = inputKeys.filter((k) => containsUnknown(news[k]) || canonical(olds[k] ?? null) !== canonical(news[k] ?? null));
      // Whether destroy undoes the run is a setting of the resource, not a reason to run again.
      const replaces = changed.filter((k) => k !== undoKey);
      return {
        changes: changed.length > 0,
        diffs: changed,
        replaces,
        stables: inputKeys.filter((k) => !changed.includes(k)),
        deleteBeforeReplace: false,
      };
    },

    async create(props) {
      const inputs = parse(props);
      const ctx = context();
      const id = runId(spec, inputs);
      try {
        const sent = resolveReferences(inputs, ctx);
        const found = await spec.current?.(ctx, sent as never);
        if (found) {
          ctx.info(`${shortTypeOf(token)} "${id}": nothing to do: ${found.message}`);
          return { id, outs: toPlainJson({ ...inputs, ...found.computed }) };
        }
        const computed = await spec.run(ctx, sent as never);
        return { id, outs: toPlainJson({ ...inputs, ...computed }) };
      } catch (e) {
        return fail(id, "run", e);
      }
    },

    async read(id, props) {
      const prior = withoutProvider(props);
      if (!spec.status) return { id, props: prior };
      try {
        const status = await spec.status(context(), prior as never, prior);
        return { id, props: toPlainJson({ ...prior, ...status }) };
      } catch (e) {
        // A refresh that cannot read says so, as every resource's does; the run itself stands.
        return fail(id, "status read", e);
      }
    },

    async update(_id, olds, news) {
      // Only the undo setting changes in place (diff replaces on every other input).
      const inputs = parse(news);
      return { outs: toPlainJson({ ...withoutProvider(olds), ...inputs }) };
    },

    async delete(id, props) {
      const state = withoutProvider(props);
      if (!spec.undo || state[spec.undo.input] !== true) return;
      try {
        await spec.undo.run(context(), state);
      } catch (e) {
        fail(id, "undo", e);
      }
    },
  };
}
