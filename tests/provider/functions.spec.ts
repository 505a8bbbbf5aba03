/** What the package's functions share: arguments checked by their schema, failures told as the family's error. */
import { z } from "zod";
import { ApiError } from "../../provider/errors";
import { functionArguments, functionCall } from "../../provider/functions";

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
