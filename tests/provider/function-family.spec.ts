/** What the package's functions share: arguments checked by their schema, failures told as the family's error. */
import { z } from "zod";
import { ApiError } from "../../provider/errors";
import { OperationContext } from "../../provider/context";
import { FunctionError, functionArguments, functionCall, functionFamily } from "../../provider/functions";

class SampleFunctionError extends Error {
  override readonly name = "SampleFunctionError";
}
const schema = z.object({ role: z.string().min(1, "must not be empty") }).strict();

test("arguments are parsed by the schema, or refused naming each argument as an argument of the call", () => {
  expect(functionArguments(SampleFunctionError, "keep.sample.get", schema, { role: "r" })).toEqual({ role: "r" });
  const refused = () => functionArguments(SampleFunctionError, "keep.sample.get", schema, { role: "", rol: "x" });
  expect(refused).toThrow(SampleFunctionError);
  expect(refused).toThrow(/^keep\.sample\.get: invalid arguments: .*role: must not be empty/);
  expect(refused).toThrow(/rol: is not an argument of keep\.sample\.get/);
  expect(() => functionArguments(SampleFunctionError, "keep.sample.get()", schema, {}, "")).toThrow(/^keep\.sample\.get\(\): role: /);
});

test("a failed call becomes the family's error naming the call, with the cause kept; onlyApiErrors lets the function's own errors through", async () => {
  const refusal = new ApiError("keep", "GET", "/v1/x", 403, [{ message: "permission denied" }]);
  const failed = functionCall(SampleFunctionError, 'keep.sample.get(role "r")', () => Promise.reject(refusal));
  await expect(failed).rejects.toThrow(SampleFunctionError);
  await expect(failed).rejects.toThrow(/^keep\.sample\.get\(role "r"\) failed: /);
  await expect(failed).rejects.toMatchObject({ cause: refusal });
  const own = new Error("the role gives IAM users only");
  await expect(functionCall(SampleFunctionError, "keep.sample.get", () => Promise.reject(own), { onlyApiErrors: true })).rejects.toBe(own);
  await expect(functionCall(SampleFunctionError, "keep.sample.get", () => Promise.resolve(7))).resolves.toBe(7);
});

describe("a family of functions", () => {
  class SampleError extends FunctionError {}
  const ctx = {} as OperationContext;
  const family = functionFamily({ prefix: "keep.sample", error: SampleError });
  const get = family.define<{ role: string }, string, z.output<typeof schema>>({
    name: "get",
    args: schema,
    about: (args) => `role "${args.role}"`,
    check: (args, refuse) => (args.role === "root" ? refuse("role: root is refused before any request") : undefined),
    run: async (args, _ctx, fail) => (args.role === "missing" ? fail("no such role") : args.role === "gone" ? Promise.reject(new ApiError("keep", "GET", "/v1/x", 403, [{ message: "denied" }])) : `got ${args.role}`),
  });

  test("each family's error is a FunctionError named after its own class", () => {
    const error = new SampleError("x");
    expect(error).toBeInstanceOf(FunctionError);
    expect(error.name).toBe("SampleError");
    expect(String(error)).toBe("SampleError: x");
  });

  test("arguments are refused by the schema and by the checks before the work runs, naming the function", async () => {
    await expect(get({ role: "" }, ctx)).rejects.toThrow(/^keep\.sample\.get: invalid arguments: role: must not be empty/);
    await expect(get({ role: "root" }, ctx)).rejects.toThrow(/^keep\.sample\.get: role: root is refused/);
    const bare = functionFamily({ prefix: "keep.sample", error: SampleError, bareRefusals: true }).define<{ role: string }, string, z.output<typeof schema>>({ name: "get", args: schema, run: async () => "x" });
    await expect(bare({ role: "" }, ctx)).rejects.toThrow(/^keep\.sample\.get\(\): role: must not be empty/);
  });

  test("the work's result comes back; its own failures name the call once; a refused request says what failed and keeps its cause", async () => {
    await expect(get({ role: "web" }, ctx)).resolves.toBe("got web");
    await expect(get({ role: "missing" }, ctx)).rejects.toThrow(new SampleError('keep.sample.get(role "missing"): no such role'));
    const refused = await get({ role: "gone" }, ctx).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(SampleError);
    expect((refused as Error).message).toMatch(/^keep\.sample\.get\(role "gone"\) failed: keep: GET \/v1\/x returned 403/);
    expect((refused as Error).cause).toBeInstanceOf(ApiError);
  });
});
