/** Pulumi dynamic resources for the secrets (`keep`), workspace (`workspaces`) and mesh (`mesh`) services. */
export * as keep from "./resources/keep";
export * as workspaces from "./resources/workspaces";
export * as mesh from "./resources/mesh";
export { ApiError, ResponseShapeError, ConfigError } from "./provider/errors";
export { FunctionError } from "./provider/functions";
