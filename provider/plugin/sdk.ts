/**
 * The gRPC runtime and the generated protocol modules of the `@pulumi/pulumi` installation at hand.
 * They are loaded from the SDK's own folder, never from ours: the generated messages must be built by
 * the same `google-protobuf` and served by the same `@grpc/grpc-js` the SDK ships with.
 */
import * as path from "node:path";

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-require-imports */
export interface SdkModules {
  sdkRoot: string;
  grpc: any;
  struct: any;
  empty: any;
  any: any;
  status: any;
  provider: any;
  providerRpc: any;
  plugin: any;
  engine: any;
  engineRpc: any;
}

const loaded = new Map<string, SdkModules>();

/** The modules of the SDK that `from` (a directory) resolves `@pulumi/pulumi` to; this package's by default. */
export function sdkModules(from?: string): SdkModules {
  const sdkRoot = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: from ? [from, __dirname] : [__dirname] }));
  let found = loaded.get(sdkRoot);
  if (!found) {
    const load = (id: string) => require(require.resolve(id, { paths: [sdkRoot] }));
    found = {
      sdkRoot,
      grpc: load("@grpc/grpc-js"),
      struct: load("google-protobuf/google/protobuf/struct_pb"),
      empty: load("google-protobuf/google/protobuf/empty_pb"),
      any: load("google-protobuf/google/protobuf/any_pb"),
      status: require(path.join(sdkRoot, "proto/status_pb")),
      provider: require(path.join(sdkRoot, "proto/provider_pb")),
      providerRpc: require(path.join(sdkRoot, "proto/provider_grpc_pb")),
      plugin: require(path.join(sdkRoot, "proto/plugin_pb")),
      engine: require(path.join(sdkRoot, "proto/engine_pb")),
      engineRpc: require(path.join(sdkRoot, "proto/engine_grpc_pb")),
    };
    loaded.set(sdkRoot, found);
  }
  return found;
}
/* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-require-imports */
