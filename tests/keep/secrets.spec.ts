/** Secrets stay secret: credentials never reach state, messages or logs; secret inputs stay secret. */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { Engine, EngineError } from "../../harness";
import { KeepStack, keepConfig, startKeepStack } from "../support/keep-stack";
import { startRecordingProxy } from "../support/recording-proxy";

const TEXT = 'path "secret/data/payroll/*" {\n  capabilities = ["read"]\n}\n';

describe("secrets", () => {
  let stack: KeepStack;
  beforeAll(async () => {
    stack = await startKeepStack();
  });
  afterAll(() => stack.close());

  test("a secret input is a secret output, in state and in the program", async () => {
    const result = await stack.engine.up(() => {
      const p = new keep.AclPolicy("payroll", { name: "payroll", policy: pulumi.secret(TEXT) });
      return { secret: pulumi.isSecret(p.policy) };
    });
    const state = [...stack.engine.state.values()][0];
    expect(state.secretOutputs).toContain("policy");
    expect(JSON.stringify(stack.engine.exportState())).toContain('"4dabf18193072939515e22adb298388d"');
    expect(result.outputs.secret).toBe(true);
    await stack.engine.destroy();
  });

  test("the token travels only in its header: never in a URL, a body, another header, state or the host's output", async () => {
    const proxy = await startRecordingProxy(stack.keep.url);
    const engine = new Engine({ project: "keep-test", config: keepConfig(stack.keep, { "keep:address": proxy.url }), secretConfig: ["keep:token"] });
    try {
      const token = stack.keep.rootToken;
      const program = () => new keep.AclPolicy("p", { name: "p", policy: TEXT });
      const runs = [await engine.up(program), await engine.refresh(), await engine.up(() => new keep.AclPolicy("p", { name: "p", policy: `${TEXT}# v2\n` })), await engine.destroy()];
      // The recording saw the real requests, credentials included: the assertions below can fail.
      // The create reads first (it never writes over an object it did not make).
      expect(proxy.requests.map((r) => r.method)).toEqual(["GET", "POST", "GET", "POST", "DELETE"]);
      for (const request of proxy.requests) {
        expect(request.headers["x-keep-token"]).toBe(token);
        const { "x-keep-token": _sent, ...otherHeaders } = request.headers;
        expect(JSON.stringify([request.url, request.body, otherHeaders])).not.toContain(token);
      }
      expect(JSON.stringify(engine.exportState())).not.toContain(token);
      expect(JSON.stringify(runs.map((r) => r.diagnostics))).not.toContain(token);
    } finally {
      await engine.close();
      await proxy.close();
    }

    const refused = new Engine({ project: "keep-test", config: keepConfig(stack.keep, { "keep:token": "wrong-token-value" }) });
    try {
      const error = (await refused.up(() => new keep.AclPolicy("q", { name: "q", policy: TEXT })).catch((e) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.message).toMatch(/keep:AclPolicy "q": create failed: keep: GET \/v1\/sys\/policies\/acl\/q returned 403: permission denied\. the token was refused or lacks permission: check keep:token \(or KEEP_TOKEN\)/);
      expect(error.message).not.toContain("wrong-token-value");
      expect(JSON.stringify(refused.exportState())).not.toContain("wrong-token-value");
    } finally {
      await refused.close();
    }
  });
});
