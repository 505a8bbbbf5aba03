/** Resources and functions of the workspace service. */
export {};
