/** A burst of workspace creations against the service's rate limit completes without a failure. */
import { workspaces } from "pulumi-keepstack";
import { summarize } from "../../harness";
import { startWorkspacesStack, WorkspacesStack } from "./workspaces-stack";

describe("rate limit", () => {
  let stack: WorkspacesStack;
  beforeAll(async () => {
    // The real service's limit: 30 requests per second per token.
    stack = await startWorkspacesStack({ emulator: { rateLimitPerSecond: 30 } });
  });
  afterAll(() => stack.close());

  const COUNT = 200;
  const program = () => {
    for (let i = 0; i < COUNT; i++) new workspaces.Workspace(`burst-${i}`, { name: `burst-${String(i).padStart(3, "0")}` });
  };

  test(`${COUNT} workspace creations at 30 requests per second all succeed, waiting out the 429 answers`, async () => {
    // However slow the machine, some answers are 429: three are scripted, the rest are the limiter's.
    stack.emu.faults.inject({ times: 3, status: 429, headers: { "Retry-After": "1" }, match: /^POST \/api\/v2\/organizations\/[^/]+\/workspaces$/ });
    const result = await stack.engine.up(program);
    expect(summarize(result.steps)).toEqual({ create: COUNT });
    const posts = stack.emu.log.entries.filter((e) => e.method === "POST");
    // The limit was hit, and every refused request was sent again until it went through.
    expect(posts.filter((e) => e.status === 429).length).toBeGreaterThan(0);
    expect(posts.filter((e) => e.status === 201)).toHaveLength(COUNT);
    expect(posts.every((e) => e.status === 201 || e.status === 429)).toBe(true);
    for (let i = 0; i < COUNT; i++) expect(stack.emu.findWorkspace("acme", `burst-${String(i).padStart(3, "0")}`)?.organization).toBe("acme");
  });

  test("destroying them under the same limit succeeds too", async () => {
    const result = await stack.engine.destroy();
    expect(summarize(result.steps)).toEqual({ delete: COUNT });
    expect(stack.emu.findWorkspace("acme", "burst-000")).toBeUndefined();
  });
});
