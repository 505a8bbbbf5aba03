/** Resources and functions of the mesh service. */
export {};
