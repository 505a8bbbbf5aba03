/** Secrets stay secret: credentials never reach state, messages or logs; secret inputs stay secret. */
import * as pulumi from "@pulumi/pulumi";
import { keep } from "pulumi-keepstack";
import { Engine, EngineError } from "../../harness";
import { KeepStack, keepConfig, startKeepStack } from "../support/keep-stack";

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

  test("the token never appears in state, provider output, the request log or an error", async () => {
    await stack.engine.up(() => new keep.AclPolicy("p", { name: "p", policy: TEXT }));
    const token = stack.keep.rootToken;
    expect(JSON.stringify(stack.engine.exportState())).not.toContain(token);
    expect(JSON.stringify(stack.keep.log.entries)).not.toContain(token);
    await stack.engine.destroy();

    const refused = new Engine({ project: "keep-test", config: keepConfig(stack.keep, { "keep:token": "wrong-token-value" }) });
    try {
      const error = (await refused.up(() => new keep.AclPolicy("q", { name: "q", policy: TEXT })).catch((e) => e)) as EngineError;
      expect(error).toBeInstanceOf(EngineError);
      expect(error.message).toMatch(/keep:AclPolicy "q": create failed: keep: POST \/v1\/sys\/policies\/acl\/q returned 403: permission denied\. the token was refused or lacks permission: check keep:token \(or KEEP_TOKEN\)/);
      expect(error.message).not.toContain("wrong-token-value");
      expect(JSON.stringify(refused.exportState())).not.toContain("wrong-token-value");
    } finally {
      await refused.close();
    }
  });
});
