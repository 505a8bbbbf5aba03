/** The machine of any kind of spec: CRUD objects and operations. */
import type { OperationContext } from "./context";
import { createMachine, Machine } from "./object-machine";
import { createOperationMachine } from "./operation-machine";
import { AnySpec, isOperationSpec } from "./spec";

export function machineOf(spec: AnySpec, context: () => OperationContext): Machine {
  return isOperationSpec(spec) ? createOperationMachine(spec, context) : createMachine(spec, context);
}
