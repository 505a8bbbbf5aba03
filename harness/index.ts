/** The engine harness: runs Pulumi programs of dynamic resources without the Pulumi CLI. */
export { Engine, EngineError, summarize } from "./engine";
export type { EngineOptions, OperationEvent, Program, RunResult, Step, StepOp, StateResource } from "./engine";
export { ProviderHost } from "./provider-host";
export { programFile } from "./program-file";
