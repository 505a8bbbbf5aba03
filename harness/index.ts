/** The engine harness: runs Pulumi programs of dynamic resources without the Pulumi CLI. */
export { Engine, EngineError, EngineOptions, Program, RunResult, Step, StepOp, StateResource, summarize } from "./engine";
export { ProviderHost } from "./provider-host";
