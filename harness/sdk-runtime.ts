/**
 * The SDK's runtime as the harness drives it in the caller's process: its internals the mock monitor
 * plugs into, what the harness turns off in them (work the language host's process needs and this
 * one does not), errors nobody catches, and the garbage a session leaves between its runs.
 */
import * as v8 from "node:v8";
import * as vm from "node:vm";

/**
 * A session's garbage between its runs: what a run leaves (the SDK's outputs and promises, the
 * protocol's messages) outlives it in V8's old space until a full collection, which V8 puts off while
 * the heap is far below its limit. A 5,000-resource session (preview, up, preview, refresh, destroy)
 * peaked at 1.5 GB of memory with under 200 MB of it live. Before each run, a heap above this size
 * is collected, as jest's leak detector collects it (`--expose-gc` set at run time); the small
 * sessions of the tests never reach it, so they pay nothing.
 */
const COLLECT_ABOVE_BYTES = 384 * 1024 * 1024;
let collectGarbage: (() => void) | undefined;

export function collectIfLarge(): void {
  if (process.memoryUsage().heapUsed < COLLECT_ABOVE_BYTES) return;
  if (!collectGarbage) {
    v8.setFlagsFromString("--expose-gc");
    collectGarbage = vm.runInNewContext("gc") as () => void;
  }
  collectGarbage();
}

/**
 * Routes uncaught exceptions and unhandled rejections to `fail` until the returned function is
 * called. That function first lets one turn of the event loop pass, so rejections made during the
 * run are reported while the handlers are still in place.
 */
export function catchStrayErrors(fail: (e: unknown) => void): () => Promise<void> {
  const handler = (e: unknown) => fail(e);
  process.on("uncaughtException", handler);
  process.on("unhandledRejection", handler);
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    process.off("uncaughtException", handler);
    process.off("unhandledRejection", handler);
  };
}

/**
 * The SDK passes every promise it makes through `debuggablePromise`, which stamps it with
 * `new Error().stack`, keeps it in a set and chains two more promises to it, for a leak report it
 * prints when the language host's process exits. The harness runs programs in the caller's process,
 * where that report has no place, and at thousands of resources those stamps were a quarter of a
 * program run's CPU (where source maps are installed) and a sixth of its live heap. Without
 * PULUMI_DEBUG_PROMISE_LEAKS the promise is passed through as it is; with it, untouched.
 */
function passPromisesThrough(debuggable: { debuggablePromise?: (p: unknown, ctx: unknown) => unknown; debugPromiseLeaks?: boolean }): void {
  const original = debuggable.debuggablePromise;
  if (typeof original !== "function" || debuggable.debugPromiseLeaks || (original as { passThrough?: true }).passThrough) return;
  debuggable.debuggablePromise = Object.assign((p: unknown) => p, { passThrough: true as const });
}

/**
 * The SDK records where each resource was declared (a full stack, read from `new Error().stack` and
 * parsed frame by frame) for the engine to show. The harness's monitor shows no source positions, and
 * with source maps installed (jest, ts-node) that stack was the costliest part of declaring a resource.
 */
function skipSourcePositions(resource: { Resource: { callsites?: () => unknown[] } }): void {
  const callsites = resource.Resource.callsites;
  if (typeof callsites !== "function" || (callsites as { skipped?: true }).skipped) return;
  resource.Resource.callsites = Object.assign(() => [], { skipped: true as const });
}

/** The SDK's runtime internals the mock monitor plugs into (stable across 3.x). */
export function sdkRuntime() {
  passPromisesThrough(require("@pulumi/pulumi/runtime/debuggable"));
  skipSourcePositions(require("@pulumi/pulumi/resource"));
  return {
    settings: require("@pulumi/pulumi/runtime/settings"),
    state: require("@pulumi/pulumi/runtime/state"),
    config: require("@pulumi/pulumi/runtime/config"),
    stack: require("@pulumi/pulumi/runtime/stack"),
    resource: require("@pulumi/pulumi/resource"),
    mocks: require("@pulumi/pulumi/runtime/mocks"),
    structproto: require("google-protobuf/google/protobuf/struct_pb"),
    resproto: require("@pulumi/pulumi/proto/resource_pb"),
  };
}
