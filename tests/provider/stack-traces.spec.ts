/**
 * Declaring a resource formats one stack trace with frames: the SDK's, for the resource's source
 * position. The SDK also gives each of the four promises of every output a trace, which it prints
 * only with PULUMI_DEBUG_PROMISE_LEAKS set; formatted through a program's source maps, those traces
 * were most of a large program's CPU. Our classes declare with the stack-trace limit at 0 unless that
 * setting asks for the traces, and give the limit back however the declaration ends.
 *
 * Run in a Node.js process of its own, as a program runs (jest formats stack traces its own way).
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const PROGRAM = `
const pulumi = require("@pulumi/pulumi");
pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, "p", "s", true);
const { keep } = require(${JSON.stringify(path.join(__dirname, "..", "..", "dist", "index.js"))});
const limit = Error.stackTraceLimit;
const traces = { withFrames: 0, withoutFrames: 0 };
Error.prepareStackTrace = (error, frames) => (traces[frames.length > 0 ? "withFrames" : "withoutFrames"]++, String(error));
new keep.kv.Secret("app", { path: "app/config", data: { user: "app" } });
const kept = Error.stackTraceLimit === limit;
let refusal;
try {
  new keep.AclPolicy("orphan", { name: "orphan", policy: "" }, { parent: {} });
} catch (e) {
  refusal = String(e);
}
Error.prepareStackTrace = undefined;
console.log(JSON.stringify({ ...traces, kept, keptAfterRefusal: Error.stackTraceLimit === limit, refusal }));
`;

function declare(env: NodeJS.ProcessEnv = {}) {
  const env_ = { ...process.env, ...env };
  if (!("PULUMI_DEBUG_PROMISE_LEAKS" in env)) delete env_.PULUMI_DEBUG_PROMISE_LEAKS;
  return JSON.parse(execFileSync(process.execPath, ["-e", PROGRAM], { env: env_, encoding: "utf8" }));
}

describe("stack traces of a declaration", () => {
  test("a resource's outputs get no frames: one trace has them, the source position's", () => {
    const seen = declare();
    expect(seen.withFrames).toBe(1);
    // Four for each output, the URN's and the ID's among them.
    expect(seen.withoutFrames).toBeGreaterThan(4 * 5);
    expect(seen.kept).toBe(true);
  });

  test("a declaration the SDK refuses gives the limit back", () => {
    const seen = declare();
    expect(seen.refusal).toMatch(/parent is not a valid Resource/);
    expect(seen.keptAfterRefusal).toBe(true);
  });

  test("with PULUMI_DEBUG_PROMISE_LEAKS set, every promise keeps its trace", () => {
    const seen = declare({ PULUMI_DEBUG_PROMISE_LEAKS: "1" });
    expect(seen.withFrames).toBeGreaterThan(4 * 5);
    expect(seen.kept).toBe(true);
  });
});
